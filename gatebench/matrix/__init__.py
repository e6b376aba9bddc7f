"""The matrix: cells scheduled, run by executors, written to the ledger."""
