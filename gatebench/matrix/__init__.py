"""The matrix: cells scheduled over configs, tasks and reps (`matrix`), the ledger (`ledger`), the Ray
executor (`ray_executor`).

Imports: the cell and everything below it; never audit, plugineval or cli.
"""
