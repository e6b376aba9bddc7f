#!/usr/bin/env python3
"""Does revision B behave as revision A does? The bench's outputs of two git revisions side by side (issue 35).

One temporary git worktree (the same path for both revisions: a cell's config names the checkout's hidden
tests by absolute path, so two checkouts in two places would differ by their paths alone) is switched
between A and B. This venv's interpreter runs each revision's code with PYTHONPATH set to that worktree
(checked: `gatebench.__file__` must lie in it), and the pinned CLI of this checkout ($GATEBENCH_CLAUDE).

  1. The quick sim matrix: `gatebench matrix --worker sim` on a config x task subset (default 3 x 3 =
     9 cells, one rep, --seed 1), run A, B, A, B, each then `gatebench analyze`d by its own code.
  2. Finalize: every cell of the first A run and the first B run finalized again in place, by A, B, A, B
     (the same agent work judged by both codes; `gatebench finalize CELL --json`).
  3. Analyze: the first A run's ledger analyzed by A, B, A, B (--seed 1).

Each output is flattened to field paths (a record's by its cell id) after normalising the temp folder's
path and ISO timestamps. A field is "noisy" if it differs between two runs of the same code (A with A, B
with B; a cell id and list indices generalised, so a field noisy in one cell is noisy in all); every other
field is compared between A and B. The revisions' commit ids (`versions.git_commit`, the report's
provenance) differ by construction and are normalised too.
Exit 0 if no field differs, 1 if some do, 2 if a step failed.

  scripts/compare_trees.py REV_A REV_B [--configs none,tests,self] [--tasks T1,T2,T3] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLAUDE = ROOT / ".tools" / "claude-code" / "node_modules" / ".bin" / "claude"
TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:[+-]\d\d:\d\d|Z)?")
REVS: list[tuple[str, str]] = []  # each revision's sha and its 12-digit form -> <rev>: they differ by construction


class Step(Exception):
    """A step of the comparison failed (named, with the tail of its log)."""


class Tree:
    """The one worktree both revisions take turns in."""

    def __init__(self, tmp: Path, revs: dict[str, str]):
        self.src, self.revs, self.now = tmp / "src", revs, ""
        git("worktree", "add", "-q", "--detach", str(self.src), revs["A"])

    def use(self, label: str) -> dict:
        """Check out revision `label` (A or B); the environment that runs its code."""
        env = dict(os.environ, PYTHONPATH=str(self.src), GATEBENCH_CLAUDE=str(CLAUDE))
        if self.now == label:
            return env
        git("-C", str(self.src), "checkout", "-q", "--detach", self.revs[label])
        git("-C", str(self.src), "clean", "-qffdx")  # no bytecode or folder of the other revision stays
        where = subprocess.run([sys.executable, "-c", "import gatebench; print(gatebench.__file__)"], env=env,
                               capture_output=True, text=True, cwd=self.src).stdout.strip()
        if not where.startswith(str(self.src) + os.sep):
            raise Step(f"revision {label} would import gatebench from {where!r}, not from {self.src}")
        self.now = label
        return env

    def close(self) -> None:
        git("worktree", "remove", "--force", str(self.src))


def git(*args: str) -> str:
    r = subprocess.run(["git", "-C", str(ROOT), *args] if args[0] != "-C" else ["git", *args], capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise Step(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def run(tree: Tree, label: str, argv: list[str], log: Path, timeout_s: float, ok: tuple = (0,)) -> str:
    """`python -m gatebench ARGV` as revision `label`, in its own process group (ended whole on timeout)."""
    env = tree.use(label)
    with open(log, "w") as f:
        p = subprocess.Popen([sys.executable, "-m", "gatebench", *argv], cwd=tree.src, env=env, stdout=subprocess.PIPE,
                             stderr=f, text=True, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGTERM)
            p.communicate(timeout=60)
            raise Step(f"{label}: gatebench {argv[0]} ran past {timeout_s:.0f}s (log {log})")
    if p.returncode not in ok:
        tail = log.read_text(errors="replace")[-1500:]
        raise Step(f"{label}: gatebench {' '.join(argv)} exited {p.returncode}:\n{tail}")
    return out


def normal(x: object, subs: list[tuple[str, str]]) -> object:
    if isinstance(x, dict):
        return {k: normal(v, subs) for k, v in x.items()}
    if isinstance(x, list):
        return [normal(v, subs) for v in x]
    if isinstance(x, str):
        for a, b in subs:
            x = x.replace(a, b)
        return TS.sub("<ts>", x)
    return x


def subs_for(*folders: Path) -> list[tuple[str, str]]:
    """Each folder's path and the CLI's dash-encoded form of it (`-tmp-x-runs-A1`), most specific first, and
    the revisions' commit ids (the record's `versions.git_commit`, the report's provenance)."""
    out = list(REVS)
    for i, f in enumerate(folders):
        out += [(str(f), f"<dir{i}>"), (str(f).replace("/", "-").replace(".", "-"), f"<dir{i}->")]
    return out


def flat(x: object, path: str, out: dict) -> dict:
    if isinstance(x, dict):
        for k, v in x.items():
            flat(v, f"{path}.{k}" if path else k, out)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            flat(v, f"{path}[{i}]", out)
        if not x:
            out[path] = []
    else:
        out[path] = x
    return out


def general(key: str) -> str:
    """`tests/T1/0|stops[1].seconds` -> `stops[*].seconds`: the field, whatever cell and position (a line of
    summary.md stays itself: its lines are not alike)."""
    if key.startswith("summary.md|"):
        return key
    return re.sub(r"\[\d+\]", "[*]", key.split("|", 1)[-1])


def records(lines: list[dict], subs: list[tuple[str, str]]) -> dict:
    out: dict = {}
    for rec in lines:
        cell = rec.get("cell_id") or "?"
        out.update({f"{cell}|{k}": v for k, v in flat(normal(rec, subs), "", {}).items()})
    return out


def analysis(folder: Path, subs: list[tuple[str, str]]) -> dict:
    """analysis.json's fields and summary.md's lines (the headline tables a reader sees)."""
    out = flat(normal(json.loads((folder / "analysis.json").read_text()), subs), "", {})
    for i, line in enumerate((folder / "summary.md").read_text().splitlines()):
        out[f"summary.md|[{i}]"] = normal(line, subs)
    return out


def compare(runs: dict[str, list[dict]]) -> dict:
    """Fields of A's and B's outputs (two runs each): noisy where a code differs from itself, else A vs B."""
    noisy = {general(k) for a, b in (runs["A"], runs["B"]) for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
    pairs = list(zip(runs["A"], runs["B"], strict=True))
    keys = set().union(*(a.keys() | b.keys() for a, b in pairs))
    differ = {k: [(a.get(k), b.get(k)) for a, b in pairs] for k in sorted(keys)
              if general(k) not in noisy and any(a.get(k) != b.get(k) for a, b in pairs)}
    quiet = [k for k in keys if general(k) not in noisy]
    return {"fields": len(keys), "compared": len(quiet), "noisy": sorted(noisy), "differ": differ}


# --- the three steps ----------------------------------------------------------------------------------

def matrix_step(tree: Tree, tmp: Path, args: argparse.Namespace) -> tuple[dict, dict, dict[str, Path]]:
    """The quick sim matrix run A, B, A, B, each analyzed by its own code: (records, analyses, run dirs)."""
    recs: dict[str, list[dict]] = {"A": [], "B": []}
    anas: dict[str, list[dict]] = {"A": [], "B": []}
    dirs = {}
    for n, label in enumerate("ABAB"):
        name = f"{label}{n // 2 + 1}"
        runs_dir = tmp / "runs" / name
        t0 = time.monotonic()
        run(tree, label, ["matrix", "--worker", "sim", "--configs", args.configs, "--tasks", args.tasks, "--reps",
                          "1", "--jobs", str(args.jobs), "--seed", "1", "--run-id", "cmp", "--runs-dir",
                          str(runs_dir)], tmp / f"matrix-{name}.log", args.timeout_s, ok=(0, 1))
        run_dir = runs_dir / "cmp"
        run(tree, label, ["analyze", str(run_dir), "--seed", "1"], tmp / f"analyze-{name}.log", 600)
        subs = subs_for(run_dir, runs_dir, tmp)
        lines = [json.loads(x) for x in (run_dir / "results.jsonl").read_text().splitlines() if x.strip()]
        recs[label].append(records(lines, subs))
        anas[label].append(analysis(run_dir / "analysis", subs))
        dirs.setdefault(label, run_dir)
        print(f"[compare] matrix {name}: {len(lines)} records, {time.monotonic() - t0:.0f}s", flush=True)
    return recs, anas, dirs


def finalize_step(tree: Tree, tmp: Path, dirs: dict[str, Path]) -> dict:
    """Every cell of the first A and B runs finalized again in place by A, B, A, B."""
    cells = sorted(p.parent for d in dirs.values() for p in d.glob("cells/*/*/r*/result.json"))
    out: dict[str, list[dict]] = {"A": [], "B": []}
    for n, label in enumerate("ABAB"):
        got: dict = {}
        for c in cells:
            rec = json.loads(run(tree, label, ["finalize", str(c), "--json"], tmp / "finalize.log", 600, ok=(0, 1)))
            rec["cell_id"] = f"{c.relative_to(tmp)}"
            got.update(records([rec], subs_for(c.parent.parent.parent.parent, tmp)))
        out[label].append(got)
        print(f"[compare] finalize pass {n + 1} ({label}): {len(cells)} cells", flush=True)
    return out


def analyze_step(tree: Tree, tmp: Path, run_dir: Path) -> dict:
    """The first A run's ledger analyzed by A, B, A, B into folders of their own."""
    out: dict[str, list[dict]] = {"A": [], "B": []}
    for n, label in enumerate("ABAB"):
        dest = tmp / f"analysis-{n}"
        run(tree, label, ["analyze", str(run_dir), "--seed", "1", "--out", str(dest)], tmp / "analyze.log", 600)
        out[label].append(analysis(dest, subs_for(dest, run_dir, tmp)))
    return out


def show(name: str, c: dict) -> bool:
    print(f"== {name}: {c['fields']} fields; {c['compared']} compared (identical across two runs of the same "
          f"code), {len(c['noisy'])} noisy field names left out; differ: {len(c['differ'])}")
    if c["noisy"]:
        print("   noisy: " + ", ".join(c["noisy"][:40]) + (" ..." if len(c["noisy"]) > 40 else ""))
    for k, v in list(c["differ"].items())[:30]:
        print(f"   DIFFER {k}: " + "; ".join(f"A={a!r:.100} B={b!r:.100}" for a, b in v))
    return not c["differ"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rev_a")
    ap.add_argument("rev_b")
    ap.add_argument("--configs", default="none,tests,self")
    ap.add_argument("--tasks", default="T1,T2,T3")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout-s", type=float, default=900)
    ap.add_argument("--keep", action="store_true", help="keep the temp folder (runs, logs) and say where")
    args = ap.parse_args()
    revs = {"A": git("rev-parse", args.rev_a), "B": git("rev-parse", args.rev_b)}
    REVS.extend((sha[:n], "<rev>") for sha in revs.values() for n in (40, 12))
    print(f"[compare] A = {revs['A']} ({args.rev_a}), B = {revs['B']} ({args.rev_b}); configs {args.configs}, "
          f"tasks {args.tasks}, load {os.getloadavg()[0]:.1f}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="gatebench-compare-"))
    tree = None
    try:
        tree = Tree(tmp, revs)
        recs, anas, dirs = matrix_step(tree, tmp, args)
        fin = finalize_step(tree, tmp, dirs)
        ana = analyze_step(tree, tmp, dirs["A"])
        ok = [show("quick sim matrix: records", compare(recs)), show("quick sim matrix: analyze", compare(anas)),
              show("finalize (same cells, both codes)", compare(fin)),
              show("analyze (same ledger, both codes)", compare(ana))]
        return 0 if all(ok) else 1
    except Step as e:
        print(f"[compare] step failed: {e}", file=sys.stderr)
        return 2
    finally:
        if tree is not None:
            tree.close()
        if args.keep:
            print(f"[compare] kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
