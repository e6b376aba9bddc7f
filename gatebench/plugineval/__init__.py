"""Plugin eval: `claude plugin eval` suites exported (`plugineval`), their Stop hook and scaffold
(`eval_harness`, standard library on the stop path) and their sim runs (`plugineval_sim`).

Imports: the cell, suite, sim and everything below them; never the matrix, audit or cli.
"""
