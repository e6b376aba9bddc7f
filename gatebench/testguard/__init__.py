"""The test guard: which files are tests and what they check (`testident`, `pychecks`, `jschecks`,
`benchtests`), the policy on changing them (`testpolicy`, `userask`), the runners and their results
(`runners/`, `testresults`).

Imports: the standard library, `gatebench.common`, `gatebench.tree` and `gatebench.oracle` only.
"""
