"""The hidden oracle: closed harness, canaries and twins, sandbox."""
