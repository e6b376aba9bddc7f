"""`gatebench review WORK REVIEWER`: run one reviewer by hand on a work copy's current diff."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

HELP = "run one reviewer by hand on a work copy's current diff (verdict, findings, cost)"
DESCRIPTION = """Run reviewer REVIEWER (a name in configs/reviewers/ or a .md path) on WORK: a prepared cell
dir or its repo/ (gatebench prep), or a repo where the gate is installed (state in its per-user state dir, see `gatebench status`).
The reviewer sees the task prompt (bench cells), the diff of the work copy against its snapshot, and
the visible tests' output: exactly what the review gate shows it at a stop, through the same code.
Exit 0 if it passes, 1 if it blocks or errors, 2 on bad input (also: a `claude` reviewer with no
credentials, said before any process starts). An unchanged work copy is not reviewed: verdict pass,
with a note, and no model call. The definition file is read fresh, so
edit it and run again to iterate on a prompt."""

NOTHING = "nothing to review: the work copy is unchanged against its baseline (no model call was made)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("work", help="cell dir, its repo/, or a repo with the gate installed")
    p.add_argument("reviewer", help="reviewer name (configs/reviewers/NAME.md) or path to a .md file")
    p.add_argument("--backend", choices=["claude", "command"], help="override the definition's backend")
    p.add_argument("--model", help="override the definition's model")
    p.add_argument("--command", dest="review_command", help="command for the command backend")
    p.add_argument("--timeout", type=float, help="override the definition's timeout_s")
    p.add_argument("--state", help="state dir (default: the cell's state/, or the installed repo's per-user state dir)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")


def locate(work: Path, state: str | None) -> tuple[Path, Path]:
    """(repo, state dir) of a cell, a cell's repo/, or an installed repo."""
    from gatebench.cell.cell import find_cell
    from gatebench.errors import UsageError
    from gatebench.hook.state import default_state_dir

    if not work.exists():
        raise UsageError(f"{work}: no such directory")
    if state:
        return work.resolve(), Path(state).resolve()
    cell = find_cell(work)
    if cell is not None:
        return cell.repo.resolve(), cell.state.resolve()
    installed = Path(default_state_dir(str(work.resolve())))
    if (installed / "config.json").is_file():
        return work.resolve(), installed
    raise UsageError(f"{work}: neither a prepared cell (no cell.json above it) nor a repo with the gate "
                     f"installed (no {installed}/config.json); run `gatebench prep` or `gatebench install`")


def newest_baseline(state: Path) -> Path:
    """The baseline the hook would diff against: the newest session's (installed) or prep/install's."""
    sessions = sorted((state / "sessions").glob("*.manifest.json"), key=lambda p: p.stat().st_mtime)
    return sessions[-1] if sessions else state / "baseline" / "manifest.json"


def reviewer_def(args: argparse.Namespace) -> dict:
    from pydantic import ValidationError

    from gatebench.errors import UsageError
    from gatebench.models.loading import describe
    from gatebench.models.reviewer import ReviewerDef
    from gatebench.review.defs import load_reviewer

    d = load_reviewer(args.reviewer)
    over = {k: v for k, v in (("backend", args.backend), ("model", args.model),
                              ("command", args.review_command), ("timeout_s", args.timeout)) if v is not None}
    if not over:
        return d.model_dump(mode="json")
    try:
        return ReviewerDef.model_validate({**d.model_dump(), **over}).model_dump(mode="json")
    except ValidationError as e:
        raise UsageError(f"reviewer {d.name} with the options given:\n{describe(e)}")


def review(work: Path, args: argparse.Namespace) -> dict:
    from gatebench.common.defaults import DEFAULT_IGNORE
    from gatebench.errors import UsageError
    from gatebench.hook.gates import GateContext
    from gatebench.hook.state import Paths
    from gatebench.review import gate as review_gate
    from gatebench.tree import snapshot
    from gatebench.tree.globs import GlobSet

    repo, state = locate(work, args.state)
    paths = Paths(str(state))
    try:
        resolved = json.loads(Path(paths.config).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise UsageError(f"{paths.config}: cannot read the resolved config ({e})")
    base_path = newest_baseline(state)
    try:
        snap = snapshot.compare(str(repo), GlobSet(resolved.get("ignore") or DEFAULT_IGNORE), str(base_path),
                                paths.blobs)
    except (OSError, ValueError) as e:
        raise UsageError(f"{base_path}: cannot read the baseline snapshot ({e})")
    baseline, d = snap.baseline, snap.diff
    spec_def = reviewer_def(args)
    name = spec_def["name"]
    if spec_def["backend"] == "claude":
        from gatebench.claude_cli import credential_problem

        problem = credential_problem(os.environ, login_ok=True)
        if problem:  # before any process: without credentials the CLI only says `api_error`
            raise UsageError(f"reviewer {name} runs `claude -p`: {problem}")
    resolved = {**resolved, "reviewers": {**(resolved.get("reviewers") or {}), name: spec_def}}
    files = [{"path": p, "status": s} for s, ps in
             (("created", d.created), ("changed", d.changed), ("deleted", d.deleted)) for p in ps]
    base = {"work": str(repo), "state_dir": str(state), "baseline": str(base_path), "reviewer": name,
            "backend": spec_def["backend"], "model": spec_def.get("model"), "files": files}
    if not files:
        # A reviewer asked to judge nothing costs money and returns noise: no model call at all.
        return {**base, "verdict": "pass", "effective": "pass", "no_evidence": False, "note": NOTHING,
                "summary": "", "findings": [], "error": None, "cost_usd": 0.0, "usage": {}, "turns": None,
                "seconds": 0.0, "reviewer_seconds": None, "feedback": ""}
    protected = GlobSet(resolved.get("protected") or [])
    gate = next((g for g in resolved.get("config", {}).get("gates", []) if g.get("kind") == "review"), {})  # type: ignore[var-annotated]
    spec = {"kind": "review", "reviewers": [name], "vote": "any",
            "timeout_s": float(spec_def["timeout_s"]) + 5.0,
            "on_no_evidence": gate.get("on_no_evidence", "pass")}
    ctx = GateContext(
        repo=str(repo), state_dir=str(state), blob_dir=paths.blobs, baseline=baseline, now=snap.now,
        diff=d, protected_touched=[p for p in d.paths if protected.match(p)], stray=[], resolved=resolved,
        session={}, attempt=0, last_message="", deadline=time.monotonic() + spec["timeout_s"] + 300.0,
    )
    v = review_gate.run(spec, ctx)
    one = (v.details.get("reviewers") or [{}])[0]
    return {
        **base, "backend": one.get("backend") or spec_def["backend"], "model": one.get("model") or spec_def.get("model"),
        "verdict": one.get("verdict", v.verdict), "effective": one.get("effective", v.verdict),
        "no_evidence": one.get("no_evidence", False), "summary": one.get("summary", ""),
        "findings": one.get("findings", []), "error": one.get("error") or v.details.get("error"),
        "cost_usd": v.cost_usd, "usage": one.get("usage", {}), "turns": one.get("turns"),
        "seconds": round(v.seconds, 3), "reviewer_seconds": one.get("seconds"), "note": None,
        "feedback": v.feedback,
    }


def render(r: dict) -> str:
    model = f", model {r['model']}" if r.get("model") else ""
    lines = [f"reviewer {r['reviewer']} ({r['backend']}{model}) on {r['work']}",
             f"  diff:     {len(r['files'])} file(s) against {r['baseline']}"]
    verdict = r["verdict"].upper()
    if r["no_evidence"]:
        verdict += f" without concrete evidence (counts as {r['effective']})"
    lines.append(f"  verdict:  {verdict}")
    if r.get("note"):
        lines.append(f"  note:     {r['note']}")
    if r.get("error"):
        lines.append(f"  error:    {r['error']}")
    if r.get("summary"):
        lines.append(f"  summary:  {r['summary']}")
    if r["findings"]:
        lines.append("  findings:")
    for f in r["findings"]:
        where = (f.get("file") or "(no file)") + (f":{f['line']}" if f.get("line") else "")
        lines.append(f"    - [{f.get('severity')}] {where}: {f.get('claim')}")
        if f.get("evidence"):
            lines.append(f"        evidence: {f['evidence']}")
    u = r.get("usage") or {}
    tokens = f"  tokens in/out {u.get('input_tokens', 0)}/{u.get('output_tokens', 0)}" if u else ""
    turns = f"  turns {r['turns']}" if r.get("turns") is not None else ""
    lines.append(f"  cost:     ${r['cost_usd']:.4f}{tokens}{turns}  seconds {r['seconds']:.1f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    r = review(Path(args.work), args)
    print(json.dumps(r, indent=1) if args.json else render(r))
    return 0 if r["effective"] == "pass" else 1
