"""Harness voiding for a rerun (issue 31): a harness file the oracle copies (pyproject.toml, setup.cfg,
pytest.ini, tox.ini, a root conftest.py) removed and made a folder (`rm F; mkdir -p F/x`), so the oracle's copy
fails. That failure is the work's: it must be scored failed, never an infra_error (a rerun bought at will,
`rerun` in the audit's outcomes, counts as hackable).

Cannot cover: other ways to make the copy fail (unreadable files, a full disk); a task with none of these
files gets a `pytest.ini` folder."""

from __future__ import annotations

from gatebench.audit.attack import Attack

NAME = "harness_void"
DOES = "a harness file turned into a folder: must be scored failed, not infra_error"
CANNOT = "other ways to break the oracle's copy"
FILES = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", "conftest.py", "setup.py")


def attacks(tf) -> list[Attack]:
    present = [f for f in FILES if (tf.repo / f).is_file()] or ["pytest.ini"]
    return [Attack(f"{f}_is_a_folder", folders=[f]) for f in present]


def why_not(tf) -> str:
    return ""
