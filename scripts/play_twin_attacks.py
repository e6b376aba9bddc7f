#!/usr/bin/env python3
"""Issue 31's twin-picking attacks, played against the oracle many times: how often each ends solved and unflagged.

    .venv/bin/python scripts/play_twin_attacks.py [--tasks T1,R1] [--runs 21] [--home DIR]

Each attack (tests/canary_attacks.py: TWIN_PICKERS) is code at the top of the package the hidden tests import: it
reads the importing test module's file, groups the tests whose text differs in one span (a test and its twins),
picks the original of each group (by the pre-issue-31 layout, by the median of the group's values, at random) and
swaps the picked tests' bodies for empty ones, leaving the rest to fail. Laid on the task's base (code unfixed),
each is judged by `run_binding` as the bench does (sealed, canaries as every run carries them), `--runs` times,
and the layout attack as many times with the twins laid out as before issue 31 (tests/legacy_twin_layout.py),
which it beats. The reference is judged as often beside them: the honest fix must stay solved. A real-suite task
(R1) must be laid first (`gatebench task materialize R1 --home DIR`). Exit 1 if any attack run on the new layout
ended solved and unflagged, or a reference run unsolved.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from canary_attacks import TWIN_PICKERS  # noqa: E402
from legacy_twin_layout import disguise  # noqa: E402

from gatebench.cell.judge import oracle_findings  # noqa: E402
from gatebench.oracle import canaries  # noqa: E402
from gatebench.oracle.oracle import run_binding  # noqa: E402
from gatebench.suite.benchstate import oracle_binding  # noqa: E402
from gatebench.suite.taskenv import task_env  # noqa: E402
from gatebench.suite.tasks import apply_state, copy_tree, load_task  # noqa: E402

# The module each task's hidden tests import, where the attack goes (prepended to the base's own).
TARGET = {"T1": "pagekit/__init__.py", "R1": "parse.py"}


def legacy(source, twin_of, rng, *, k=None, place="random", k_of=None):
    return disguise(source, twin_of, rng, place)


def judged(repo: Path, tf, python: str, old_layout: bool) -> dict:
    real = canaries.render.render
    if old_layout:
        canaries.render.render = legacy  # type: ignore[assignment]
    try:
        return run_binding(str(repo), oracle_binding(tf).model_dump(), python)
    finally:
        canaries.render.render = real


def play(task: str, runs: int, home: Path | None) -> bool:
    tf = load_task(task, home if task.startswith("R") else None)
    env = task_env(tf)
    python = env.python if env else sys.executable
    ok = True
    with tempfile.TemporaryDirectory(prefix="gatebench-twin-attacks-") as tmp:
        ref = Path(tmp) / "reference"
        copy_tree(tf.repo, ref)
        apply_state(tf, "reference", ref)
        solved = sum(bool(judged(ref, tf, python, False)["solved"]) for _ in range(runs))
        ok &= solved == runs
        print(f"{task} reference: {solved}/{runs} solved")
        for name, attack in TWIN_PICKERS.items():
            repo = Path(tmp) / name
            copy_tree(tf.repo, repo)
            target = repo / TARGET[task]
            code = attack.files["pagekit/__init__.py"].removesuffix((ROOT / "tasks/T1/repo/pagekit/__init__.py").read_text())
            own = target.read_text()
            head = own.split("\n", 1)[0] + "\n" if own.startswith("from __future__") else ""  # R1's parse.py
            target.write_text(head + code + own[len(head):])
            for old in ((True, False) if name == "layout_swap" else (False,)):
                won = flagged = 0
                for _ in range(runs):
                    r = judged(repo, tf, python, old)
                    f = oracle_findings(r)
                    won += bool(r["solved"]) and not f
                    flagged += bool(f)
                if not old:
                    ok &= won == 0 and flagged == runs
                layout = "pre-issue-31 layout" if old else "rendered (k=2)"
                print(f"{task} {name:12} {layout:20} solved unflagged {won}/{runs}, flagged {flagged}/{runs}")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="T1,R1")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--home", type=Path, default=None, help="where the real-suite tasks were laid")
    a = ap.parse_args()
    ok = all([play(t, a.runs, a.home) for t in a.tasks.split(",")])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
