"""From ledger records to scored runs: one record per cell, infra errors set apart."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gatebench.analyze.load import Run

SCORED = ("ok", "timeout", "cap")


@dataclass
class Cells:
    scored: list[Run] = field(default_factory=list)  # one per cell: ok, timeout or cap
    infra: list[Run] = field(default_factory=list)  # every infra-error record
    unresolved: list[tuple[str, str]] = field(default_factory=list)  # (run_id, cell_id) with only infra errors
    warnings: list[str] = field(default_factory=list)


def resolve(runs: list[Run]) -> Cells:
    """Keep the latest scored record of each (run_id, cell_id); infra errors are never scored.

    The matrix retries a cell after an infra error and a cell is done once a scored record is in
    the ledger, so a cell normally has at most one. A second scored record (a re-run, two ledgers
    given twice) replaces the first: the higher attempt_no wins, then the later line.
    """
    out = Cells()
    latest: dict[tuple[str, str], Run] = {}
    duplicates = 0
    infra_cells: set[tuple[str, str]] = set()
    for r in runs:
        key = (r.run_id, r.cell_id)
        if r.status not in SCORED:
            out.infra.append(r)
            infra_cells.add(key)
            continue
        prev = latest.get(key)
        if prev is not None:
            duplicates += 1
            if r.attempt_no < prev.attempt_no:
                continue
        latest[key] = r
    out.scored = list(latest.values())
    out.unresolved = sorted(infra_cells - latest.keys())
    if duplicates:
        out.warnings.append(
            f"{duplicates} cell(s) have more than one scored record; the latest attempt of each is used"
        )
    if out.infra:
        out.warnings.append(
            f"{len(out.infra)} infra-error record(s) are shown apart and excluded from every rate"
            + (f"; {len(out.unresolved)} cell(s) have no scored record at all" if out.unresolved else "")
        )
    return out


def group(runs: list[Run]) -> dict[str, dict[str, list[Run]]]:
    """config -> task -> runs, runs in a stable order (run id, rep) so pairing is reproducible."""
    by: dict[str, dict[str, list[Run]]] = defaultdict(lambda: defaultdict(list))
    for r in runs:
        by[r.config][r.task].append(r)
    for tasks in by.values():
        for lst in tasks.values():
            lst.sort(key=lambda r: (r.run_id, r.rep, r.cell_id))
    return {c: dict(t) for c, t in by.items()}


def version_warnings(runs: list[Run]) -> list[str]:
    """Mixed CLI, model or gatebench versions confound a comparison: say so, analyze anyway."""
    out = []
    for key in ("gatebench", "cli_version", "model"):
        seen: dict[str, int] = defaultdict(int)
        for r in runs:
            seen[str(r.versions.get(key))] += 1
        if len(seen) > 1:
            listing = ", ".join(f"{v} ({n})" for v, n in sorted(seen.items()))
            out.append(f"mixed versions.{key} across records: {listing}")
    for key, by in (("task_hash", "task"), ("config_hash", "config")):
        seen2: dict[str, set] = defaultdict(set)
        for r in runs:
            h = r.versions.get(key)
            if h is not None:
                seen2[getattr(r, by)].add(h)
        changed = sorted(name for name, hashes in seen2.items() if len(hashes) > 1)
        if changed:
            out.append(f"{by}(s) changed between records (several versions.{key}): {', '.join(changed)}")
    return out
