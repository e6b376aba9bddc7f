"""Control runs: whose fault it is when a harness cannot run on the work copy (stdlib only).

An oracle or tests-gate run that cannot run, or gives no usable report, proves nothing by itself: the cause
may be in the work copy (a harness file turned into a folder, a forged report) or in the bench (a missing
interpreter, a broken sandbox). The same run, in the same environment, on the task's trusted tree decides:
if it fails too, the fault is the bench's; if it runs, the work copy's. Nothing is assumed either way
(SPEC section 8, "Whose fault").

One `Controls` lives as long as one stop or one finalize: each harness's control runs at most once in it,
its trusted trees are built once, on first need, and removed by `close`.
"""

from __future__ import annotations

import os
import shutil
import tempfile

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

WORK, BENCH = "work", "bench"
UNPROVEN = "unproven"  # an error a control run must decide; never leaves the run that raised it


def _skip(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in (".git", "__pycache__", ".pytest_cache") or n.endswith(".pyc")}


class Controls:
    """The trusted trees of one task (`base`: its pristine repo; `reference`: the reference laid over it) and
    the control runs made on them so far."""

    def __init__(self, base_dir: str | None, reference_dir: str | None = None):
        self.base_dir, self.reference_dir = base_dir, reference_dir
        self._tmp: str | None = None
        self._trees: dict[str, str] = {}
        self.runs: dict[str, dict] = {}  # harness key -> {"ran", "error", "tree", "seconds"}

    def tree(self, which: str) -> str:
        """The trusted tree `which` (`reference` falls back to `base` when the task has none). Raises OSError."""
        which = which if which == "base" or self.reference_dir else "base"
        if which in self._trees:
            return self._trees[which]
        if not self.base_dir or not os.path.isdir(self.base_dir):
            raise OSError(f"the task's base repo is not there: {self.base_dir}")
        self._tmp = self._tmp or tempfile.mkdtemp(prefix="gatebench-control-")
        dest = os.path.join(self._tmp, which, "repo")
        shutil.copytree(self.base_dir, dest, symlinks=True, ignore=_skip)
        if which == "reference" and self.reference_dir:
            shutil.copytree(self.reference_dir, dest, symlinks=True, ignore=_skip, dirs_exist_ok=True)
        self._trees[which] = dest
        return dest

    def run(self, key: str, which: str, attempt: Callable[[str], dict]) -> dict:
        """`attempt(tree)` -> {"ran": bool, "error": str | None} on the trusted tree, once per key."""
        if key not in self.runs:
            try:
                tree = self.tree(which)
            except OSError as e:
                self.runs[key] = {"ran": False, "error": f"cannot build the task's {which} tree: {e}", "tree": which}
            else:
                self.runs[key] = {**attempt(tree), "tree": "reference" if self.reference_dir and which != "base"
                                  else "base"}
        return self.runs[key]

    def close(self) -> None:
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
        self._tmp, self._trees = None, {}


def attribute(error: str, control: dict) -> tuple[str, str]:
    """(fault, the error naming its cause) of a run that failed where its control did or did not."""
    if control.get("ran"):
        return WORK, (f"{error} [the same run on the task's {control['tree']} tree ran: the cause is in the "
                      "work copy]")
    return BENCH, f"{error} [the same run on the task's {control['tree']} tree failed too: {control.get('error')}]"


def summary(control: dict | None) -> dict | None:
    """What an event or record keeps of a control run."""
    if control is None:
        return None
    return {"ran": bool(control.get("ran")), "tree": control.get("tree"),
            **({"error": str(control["error"])[:300]} if control.get("error") else {})}


def oracle_judged(status: str, oracle: object) -> bool:
    """A record's hidden oracle judged it: the run is scored (no infra error) and its final oracle ran, or could
    not run for a cause a control run proved to be the work copy's (SPEC section 17, "No oracle ran")."""
    if status == "infra_error" or not isinstance(oracle, dict):
        return False
    return not oracle.get("error") or oracle.get("fault") == WORK
