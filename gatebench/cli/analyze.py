"""`gatebench analyze`: the config x task matrix of one or more ledgers, as Markdown, JSON and HTML."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gatebench.errors import UsageError

HELP = ("analyze ledgers or claude plugin eval results: solve rates, paired Δ, gates as classifiers, cost; writes "
        "summary.md, analysis.json, report.html")
DESCRIPTION = (
    "Read one or more ledgers (runs/<run-id>/results.jsonl), score every cell and write summary.md, "
    "analysis.json and report.html; print the headline table. Bad lines (a truncated last line, an unknown "
    "schema version, a bad field) are skipped with a message and the rest is analyzed. Definitions: SPEC.md, "
    "'## analyze'."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dirs", nargs="*", metavar="RUN_DIR",
                   help="run folder(s) holding results.jsonl, or ledger file(s); or claude plugin eval results: "
                        "aggregate-result.json file(s), or folder(s) holding them anywhere below (an exported "
                        "suite); default: the newest folder in runs/")
    p.add_argument("--baseline", default="none", metavar="CONFIG",
                   help="config the others are compared with, paired by task (default: none, the no-gate config)")
    p.add_argument("--out", type=Path, metavar="DIR", help="output folder (default: <first RUN_DIR>/analysis)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--target-halfwidth", type=float, default=5.0, metavar="POINTS",
                   help="half-width of the 95%% CI the run-size plans aim at, in percentage points (default 5)")
    p.add_argument("--runs-root", type=Path, default=Path("runs"), help=argparse.SUPPRESS)


def find_ledgers(args_dirs: list[str], runs_root: Path) -> list[Path]:
    if not args_dirs:
        candidates = sorted(
            (d for d in runs_root.glob("*") if (d / "results.jsonl").is_file()),
            key=lambda d: (d / "results.jsonl").stat().st_mtime,
        ) if runs_root.is_dir() else []
        if not candidates:
            raise UsageError(f"no RUN_DIR given and no {runs_root}/<run-id>/results.jsonl found")
        print(f"analyze: newest run: {candidates[-1]}", file=sys.stderr)
        return [candidates[-1]]
    out = []
    for a in args_dirs:
        p = Path(a)
        if not p.exists():
            raise UsageError(f"{p}: no such run folder or ledger file")
        if p.is_dir() and not (p / "results.jsonl").is_file():
            from gatebench.analyze.plugineval import find_aggregates

            if not find_aggregates(p):
                raise UsageError(f"{p / 'results.jsonl'}: not found, nor any aggregate-result.json below {p} "
                                 "(is it a run folder, or claude plugin eval results?)")
        out.append(p)
    return out


def _write(path: Path, text: str) -> None:
    # Write then rename, so a reader never sees half a report (mode per the umask: reports are shared).
    from gatebench.common.util import write_atomic

    write_atomic(path, text)


def run(args: argparse.Namespace) -> int:
    from gatebench.analyze import pipeline, report_html, report_md, tables

    if args.resamples < 100:
        raise UsageError(f"--resamples {args.resamples}: use at least 100")
    if not 0 < args.target_halfwidth < 100:
        raise UsageError(f"--target-halfwidth {args.target_halfwidth:g}: must be between 0 and 100 points")
    paths = find_ledgers(args.run_dirs, args.runs_root)
    first = paths[0] if paths[0].is_dir() else paths[0].parent
    out_dir: Path = args.out or first / "analysis"
    baseline = None if args.baseline == "" else args.baseline
    analysis = pipeline.analyze(paths, baseline, out_dir, resamples=args.resamples, seed=args.seed,
                                target_halfwidth=args.target_halfwidth / 100.0)
    for w in analysis.warnings:
        print(f"analyze: warning: {w}", file=sys.stderr)
    if not analysis.configs and not analysis.impossible:
        raise UsageError("no scored record in " + ", ".join(str(p) for p in paths) + " (see the warnings above)")
    out_dir.mkdir(parents=True, exist_ok=True)
    from gatebench.analyze import cellpage

    pages = cellpage.write_pages(analysis.cells, out_dir, lambda p, text: _write(Path(p), text))
    _write(out_dir / "analysis.json", json.dumps(analysis.model_dump(mode="json", by_alias=True), indent=1) + "\n")
    _write(out_dir / "summary.md", report_md.render(analysis))
    _write(out_dir / "report.html", report_html.render(analysis))
    print(analysis.notice + "\n")
    print(tables.text_table(tables.headline(analysis)))
    if analysis.impossible:
        print("\n" + tables.text_table(tables.impossible(analysis)))
    print(f"\nwrote {out_dir}/summary.md, analysis.json, report.html and {pages} cell page(s) in "
          f"{out_dir}/cells/", file=sys.stderr)
    return no_oracle_ran(analysis.oracle_runs, analysis.cells_total)


def no_oracle_ran(judged: int, runs: int) -> int:
    """SPEC section 17, "No oracle ran": runs listed, none judged by the hidden oracle, is no solve rate: said, exit 1."""
    from gatebench.cli import EXIT_FAIL

    if runs and not judged:
        print(f"analyze: NO ORACLE RAN: none of the {runs} run(s) was judged by the hidden oracle (each an infra "
              "error, or an oracle that could not run for the bench's own reason): the rates above are not solve "
              "rates", file=sys.stderr)
        return EXIT_FAIL
    return 0
