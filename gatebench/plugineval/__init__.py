"""Plugin eval: `claude plugin eval` run and read."""
