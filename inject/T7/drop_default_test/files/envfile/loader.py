"""Read .env files from disk and apply them to an environment."""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from pathlib import Path

from envfile.parser import parse


def dotenv_values(path: str | os.PathLike[str], environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The values of the file at `path`, without touching any environment.

    `environ` is only read, to resolve `${NAME}` references the file does not define.
    """
    return parse(Path(path).read_text(encoding="utf-8"), environ=environ)


def load(
    path: str | os.PathLike[str],
    environ: MutableMapping[str, str] | None = None,
    override: bool = False,
) -> dict[str, str]:
    """Apply the file at `path` to `environ` (os.environ by default) and return what was parsed.

    Variables already present in `environ` are kept unless `override` is true, so that a value
    exported in the shell beats the one committed in the file. `${NAME}` references resolve
    against the same `environ`.
    """
    target = os.environ if environ is None else environ
    values = dotenv_values(path, environ=target)
    for key, value in values.items():
        if override or key not in target:
            target[key] = value
    return values
