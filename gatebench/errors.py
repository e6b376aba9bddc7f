"""The error every layer may raise for bad input; at the bottom so nothing imports upward to reach it.

Standard library only. The CLI prints it as `gatebench: error: ...` and exits 2 (SPEC.md, "Exit codes").
"""


class UsageError(Exception):
    """Bad input from the user: printed as `gatebench: error: ...`, exit 2, nothing changed."""
