"""A cell's evidence, gathered in one place each before anything judges it (finalize's first step).

What the bench home and cell.json say the cell is (task, config, variant: `Trusted`), what the worker left
(worker.json, stream.jsonl with stderr.log, the transcript under C/home), the hook's event log and its stop
records, and the final work copy against prep's baseline and the task's base (`Tree`). Reading only.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from gatebench.cell.arms import with_state_ignore
from gatebench.cell.cell import CellPaths
from gatebench.cell.stream import stream_metrics
from gatebench.cell.transcript import find_transcript, transcript_metrics
from gatebench.common.defaults import DEFAULT_IGNORE
from gatebench.common.util import read_json_object, read_jsonl
from gatebench.errors import UsageError
from gatebench.hook.state import Paths, read_events
from gatebench.installer.configs import load_config
from gatebench.models.cell import CellMeta
from gatebench.suite import variants
from gatebench.suite.benchstate import bench_resolved
from gatebench.suite.tasks import TaskFiles, load_task
from gatebench.suite.tasks import tree_hash as task_tree_hash
from gatebench.tree.globs import GlobSet
from gatebench.tree.snapshot import Diff, Snap, compare, diff, walk


@dataclass(frozen=True)
class Trusted:
    """The cell as prep made it, rebuilt from the bench home and cell.json alone (never from the cell's state)."""

    task: TaskFiles
    resolved: dict  # the config document prep wrote
    problems: list[str]  # what makes the cell unscorable
    findings: list[dict]  # the cell's state/config.json differing from `resolved`
    mutated: dict[str, str] | None  # a variant's mutated modules; None for a normal cell
    variant_problem: str | None  # the variant no longer rebuilds (then `mutated` is {})


@dataclass(frozen=True)
class Stream:
    events: list[dict]  # stream.jsonl
    metrics: dict  # stream_metrics
    stderr_tail: str  # the last 500 characters of stderr.log


@dataclass(frozen=True)
class Transcript:
    path: Path
    metrics: dict  # transcript_metrics


@dataclass(frozen=True)
class Tree:
    prep: Snap | None  # the work copy against prep's baseline (None: unreadable); the oracle-reuse check reads it
    diff: Diff  # against the task's base in the bench home
    special: list[str]  # special files the walk skipped


@dataclass(frozen=True)
class Evidence:
    cell: CellPaths
    meta: CellMeta
    trusted: Trusted
    worker: dict | None  # worker.json; None when the worker never finished
    stream: Stream
    session_id: str | None
    transcript: Transcript | None
    events: list[dict]  # the hook's event log
    stops: list[dict]  # its stop events of this session, as StopRecord dicts
    tree: Tree


def gather(cell: CellPaths, meta: CellMeta) -> Evidence:
    """Everything finalize judges, each piece read once."""
    trusted = trust(cell, meta)
    worker = read_json_object(cell.worker)
    stream = read_stream(cell)
    sid = stream.metrics["session_id"] or (worker or {}).get("session_id")
    events = read_events(str(cell.events))
    return Evidence(cell=cell, meta=meta, trusted=trusted, worker=worker, stream=stream, session_id=sid,
                    transcript=read_transcript(cell.home, sid), events=events, stops=stop_records(events, sid),
                    tree=read_tree(cell, trusted))


def trust(cell: CellPaths, meta: CellMeta) -> Trusted:
    tf, resolved, problems, findings = trusted_config(cell, meta, read_json_object(cell.state / "config.json") or {})
    mutated, variant_problem = variant_files(tf, meta)
    return Trusted(tf, resolved, problems, findings, mutated, variant_problem)


def read_stream(cell: CellPaths) -> Stream:
    events, _bad = read_jsonl(cell.stream)
    stderr_tail = ""
    if (cell.root / "stderr.log").exists():
        stderr_tail = (cell.root / "stderr.log").read_text(errors="replace")[-500:].strip()
    return Stream(events, stream_metrics(events), stderr_tail)


def read_transcript(home: Path, session_id: str | None) -> Transcript | None:
    tpath = find_transcript(home, session_id)
    return Transcript(tpath, transcript_metrics(read_jsonl(tpath)[0])) if tpath else None


def read_tree(cell: CellPaths, trusted: Trusted) -> Tree:
    prep = against_prep(cell.repo, cell.state, trusted.resolved)
    d, special = tree_diff(cell.repo, cell.state, trusted.resolved, trusted.task.repo, base_files=trusted.mutated,
                           prep_diff=prep)
    return Tree(prep, d, special)


def reviewer_models(gate: dict) -> dict:
    """`{"models": [...]}` of a review gate's reviewers (provenance for analyze), else nothing."""
    revs = (gate.get("details") or {}).get("reviewers") if gate.get("kind") == "review" else None
    models = sorted({str(r["model"]) for r in revs or [] if isinstance(r, dict) and r.get("model")})
    return {"models": models} if models else {}


def stop_records(events: list[dict], session_id: str | None) -> list[dict]:
    """The hook's stop events of this session, as StopRecord dicts, in order."""
    out: list[dict] = []
    for e in events:
        if e.get("hook") != "stop" or (session_id and e.get("session_id") not in (session_id, None)):
            continue
        oracle = e.get("oracle") or {}
        counts = (e.get("diff") or {}).get("counts") or {}
        out.append({
            "attempt": e.get("attempt") or len(out) + 1,
            "decision": e.get("decision") or "allow",
            "gates": [{"name": g.get("name"), "kind": g.get("kind"), "verdict": g.get("verdict"),
                       "seconds": g.get("seconds", 0.0), "cost_usd": g.get("cost_usd", 0.0),
                       **({"error": str((g.get("details") or {}).get("error"))[:300]}
                          if g.get("verdict") == "error" else {}),
                       **({"fault": str((g.get("details") or {}).get("fault"))[:300]}
                          if (g.get("details") or {}).get("fault") else {}),
                       **reviewer_models(g)}
                      for g in e.get("gates") or []],
            "oracle_solved": oracle.get("solved") if oracle else None,
            "oracle_error": oracle.get("error") if oracle else None,
            "oracle_seconds": oracle.get("seconds", 0.0) if oracle else 0.0,
            "files_changed": sum(int(v) for v in counts.values()),
            "seconds": e.get("seconds") or 0.0,
            "errors": list(e.get("errors") or []),
            "judged": e.get("diff") is not None,
            **({"honest_exit": e["honest_exit"]} if isinstance(e.get("honest_exit"), dict) else {}),
        })
    return out


def against_prep(repo: Path, state: Path, resolved: dict) -> Snap | None:
    """The work copy against prep's baseline (whichever format prep took it in: walker or git), or None when
    that baseline cannot be read. Taken once: the oracle-reuse check and the tree diff both read it."""
    paths = Paths(str(state))
    try:
        return compare(str(repo), GlobSet(resolved.get("ignore") or DEFAULT_IGNORE), paths.baseline, paths.blobs)
    except (OSError, ValueError):
        return None


def tree_diff(repo: Path, state: Path, resolved: dict, base_repo: Path | None = None,
              base_files: dict[str, str] | None = None, prep_diff: Snap | None = None) -> tuple[Diff, list[str]]:
    """(the work copy's diff against its baseline, special files the walk skipped). With `base_repo` (the
    task's repo in the bench home) every path of the task is judged against it, with `base_files` (a
    variant's mutated modules, computed from the bench home) in place of theirs; the state's baseline (in
    whichever format prep took it: walker or git, snapshot.compare) only judges what prep added there
    (the hook settings). `prep_diff`: against_prep's answer, when the caller has it."""
    ignore = GlobSet(resolved.get("ignore") or DEFAULT_IGNORE)
    if prep_diff is None:
        prep_diff = against_prep(repo, state, resolved)
    # A walker comparison has walked the tree already; a git one has git ids and lists no special files.
    if prep_diff is not None and prep_diff.via == "walk":
        manifest, special = prep_diff.now, prep_diff.special
    else:
        w = walk(str(repo), ignore)
        manifest, special = w.manifest, w.special
    if base_repo is None:
        return (prep_diff.diff if prep_diff else diff({}, manifest)), special
    home = walk(str(base_repo), ignore).manifest
    for rel, text in (base_files or {}).items():
        data = text.encode("utf-8")
        home[rel] = [hashlib.sha256(data).hexdigest(), len(data), (home.get(rel) or [0, 0, 0o100644])[2]]
    d = diff(home, manifest)
    added = {p for p in (prep_diff.baseline if prep_diff else ())} - set(home)
    pd = prep_diff.diff if prep_diff else Diff([], [], [])
    return Diff([p for p in d.created if p not in added],
                sorted(d.changed + [p for p in pd.changed if p in added]),
                sorted(d.deleted + [p for p in pd.deleted if p in added])), special


def trusted_config(cell: CellPaths, meta: CellMeta, state_doc: dict) -> tuple[TaskFiles, dict, list[str], list[dict]]:
    """The resolved config as prep wrote it, rebuilt from the bench home and cell.json alone.

    Returns (task files, resolved config, problems that make the cell unscorable, findings).
    The cell's own state/config.json is evidence only: any difference from the rebuilt document is a
    tamper finding (the hook ran under it).
    """
    tf = load_task(meta.task)
    problems: list[str] = []
    if task_tree_hash(tf.dir, tf.hidden) != meta.task_hash:
        problems.append(f"task {meta.task} changed since prep (tasks/ or hidden/ hash is not {meta.task_hash})")
    try:
        cfg = load_config(meta.config)
    except UsageError as e:
        raise UsageError(f"{cell.meta}: config {meta.config!r} is not in the bench home: {e}") from None
    expected = with_state_ignore(bench_resolved(cfg, tf, cell.repo, cell.state, sys.executable), meta.arm)
    if expected.config_hash != meta.config_hash:
        problems.append(f"config {meta.config} changed since prep (hash {expected.config_hash}, "
                        f"cell.json says {meta.config_hash})")
    doc = json.loads(expected.model_dump_json(by_alias=True))
    differ = sorted(k for k in doc.keys() | state_doc.keys() if doc.get(k) != state_doc.get(k))
    findings = [{"kind": "tamper", "path": str(cell.state / "config.json"),
                 "why": f"differs from what prep wrote (fields: {', '.join(differ)})"}] if differ else []
    return tf, doc, problems, findings


def variant_files(tf: TaskFiles, meta: CellMeta) -> tuple[dict[str, str] | None, str | None]:
    """(the cell's variant's mutated modules from the bench home, None for a normal cell; the problem that makes
    the cell unscorable when the variant no longer loads, its modules then {})."""
    if meta.variant == variants.NORMAL:
        return None, None
    try:
        return variants.mutated_files(tf, variants.load_variant(tf, meta.variant)), None
    except UsageError as e:
        return {}, f"the cell's {meta.variant} variant cannot be rebuilt: {e}"
