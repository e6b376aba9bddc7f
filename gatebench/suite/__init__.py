"""The task suite: tasks (`tasks`), the real suite's recipes (`recipes`, `suites`), task import
(`taskimport/`), environments (`taskenv`, `testdeps`, `pythons`), variants and mutants, the prompt
checks, the bench state of a work copy (`benchstate`), canary proofs and selftest.

Imports: installer, models, the stop's packages and the leaves; never the cell, matrix or cli.
"""
