"""What a config's records say about the trust in their scores: canaries that passed, and cells rerun.

The canary-pass rate is the share of scored runs whose final oracle proved, with a contradicted twin, that
its outcomes did not depend on the code: in-process cheating, measured (SPEC section 17). Reruns are cells
the matrix ran again after an infra error: the bench's own faults, each one a session paid more than once;
a config that had any is flagged, since its cells did not all run under the same conditions.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gatebench.analyze import stats
from gatebench.models.analysis import Estimate, Rerun

if TYPE_CHECKING:  # load imports this module's record reader
    from gatebench.analyze.runs import Run


def canary_flag(d: dict) -> bool | None:
    """True: the record's final oracle had a contradicted canary; None: it ran none (or an older record)."""
    c = d.get("canaries")
    if not isinstance(c, dict) or c.get("run") == 0:
        return None
    contradicted = c.get("contradicted")
    return bool(contradicted) if isinstance(contradicted, list) else None


def canary_rate(tasks: dict[str, list[Run]], confidence: float) -> tuple[Estimate | None, int, int]:
    """(rate with its task-clustered interval, runs with a contradiction, runs with canaries)."""
    per_task = [(sum(bool(r.canary) for r in rs if r.canary is not None), sum(r.canary is not None for r in rs))
                for rs in tasks.values()]
    cells = [(k, n) for k, n in per_task if n > 0]
    hits, n = sum(k for k, _ in cells), sum(n for _, n in cells)
    if not cells:
        return None, 0, 0
    p, lo, hi, _n_eff = stats.clustered_rate(cells, confidence)
    return Estimate(value=p, lo=lo, hi=hi), hits, n


def read_infra(ledger: Path) -> dict[str, list[str]]:
    """cell_id -> the errors of its failed attempts, from the run's `infra.jsonl` (absent: none)."""
    from gatebench.common.util import read_jsonl

    out: dict[str, list[str]] = {}
    lines, _bad = read_jsonl(ledger.parent / "infra.jsonl")
    for line in lines:
        cell = line.get("cell_id")
        if isinstance(cell, str):
            out.setdefault(cell, []).append(f"attempt {line.get('attempt_no')}: {str(line.get('error'))[:300]}")
    return out


def reruns(runs: list[Run], infra: dict[str, dict[str, list[str]]]) -> dict[str, list[Rerun]]:
    """config -> every cell whose record says it took more than one attempt (`infra`: ledger folder -> read_infra)."""
    out: dict[str, list[Rerun]] = {}
    for r in sorted(runs, key=lambda r: (r.config, r.run_id, r.cell_id)):
        if r.attempt_no > 1:
            errors = infra.get(r.base_dir, {}).get(r.cell_id, [])
            out.setdefault(r.config, []).append(Rerun(run_id=r.run_id, cell_id=r.cell_id, attempts=r.attempt_no,
                                                      final_status=r.status, errors=errors))
    return out
