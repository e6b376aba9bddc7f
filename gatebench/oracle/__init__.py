"""The hidden oracle: the run of hidden tests on a copy (`oracle`), the closed harness (`closed`,
`pytest_boot`, `harness`, `pytestconfig`), canaries and twins (`canaries`, `twins`, `render`), the
sandbox (`sandbox`) and whose fault a failed run is (`control`).

Imports: the standard library, `gatebench.common` and `gatebench.tree` only (the stop's path).
"""
