"""Environment variables set for the length of a block, the caller's values back after it (a curate inside a
run must not move that run's bench home)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def environ(values: dict[str, str], defaults: dict[str, str] | None = None) -> Iterator[None]:
    """Set `values`, and each of `defaults` that is not set already; restore every one of them on the way out
    (a variable that was unset is unset again)."""
    defaults = {k: v for k, v in (defaults or {}).items() if k not in os.environ}
    saved = {k: os.environ.get(k) for k in (*values, *defaults)}
    os.environ.update({**defaults, **values})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
