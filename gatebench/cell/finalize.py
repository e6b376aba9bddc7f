"""`gatebench finalize`: score a run cell into one ResultRecord (C/result.json).

Three steps over plain data: gather the evidence (evidence.gather: what the worker, the CLI and the hook left,
the config as prep wrote it, the final tree), judge it (judge.judge: the status, the hidden oracle run one last
time on the final work copy, a variant's mutated tests, tamper and leak findings), then write final.diff and the
record built from the two (record.result_record). Pure reading plus one oracle run: finalizing twice gives the
same record (timestamps aside).

A cell always gets its result.json once it has a cell.json: when scoring itself fails (a git that cannot
run, a task gone from the bench home, a bug), the record is an infra_error whose `error` names the cause
("finalize failed: ...").
"""

from __future__ import annotations

import time

from gatebench.cell import record
from gatebench.cell.cell import CellPaths
from gatebench.cell.evidence import gather, stop_records
from gatebench.cell.finaldiff import write_final_diff
from gatebench.cell.judge import judge, never_worked, oracle_findings, status_of
from gatebench.cell.record import bare_record, record_cell_id
from gatebench.common.util import read_json_object, write_atomic
from gatebench.errors import UsageError
from gatebench.models.cell import CellMeta
from gatebench.models.loading import load_model
from gatebench.models.result import ResultRecord

# Imported from here by the CLI, the matrix and tests.
__all__ = ["FINALIZE_FAILED", "bare_record", "cell_sealed", "finalize", "never_worked", "oracle_findings",
           "status_of", "stop_records"]


def cell_sealed(meta: CellMeta) -> bool:
    """cell.json's `sealed` (the agent ran inside Claude Code's sandbox); absent = False."""
    return bool(getattr(meta, "sealed", False))


FINALIZE_FAILED = "finalize failed: "


def finalize(cell: CellPaths, *, attempt_no: int = 1, extra_timing: dict | None = None,
             reuse_oracle: bool = True) -> ResultRecord:
    """Score the cell and write C/result.json. Raises UsageError if `cell` is not a prepared cell; any failure
    after that still writes a record: an infra_error naming the cause (FINALIZE_FAILED)."""
    t0 = time.monotonic()
    if not cell.meta.is_file():
        raise UsageError(f"{cell.root}: not a prepared cell (no cell.json)")
    meta = load_model(cell.meta, CellMeta)
    try:
        return _finalize(cell, meta, t0, attempt_no, extra_timing, reuse_oracle)
    except Exception as e:
        worker = read_json_object(cell.worker) or {}
        rec = bare_record(run_id=meta.run_id, cell_id=record_cell_id(meta), config=meta.config,
                          task=meta.task, rep=meta.rep, variant=meta.variant, worker=str(worker.get("worker") or "unknown"),
                          attempt_no=attempt_no, meta=meta, model=worker.get("model"),
                          error=f"{FINALIZE_FAILED}{type(e).__name__}: {e}")
        rec.timing = {**(extra_timing or {}), "finalize_s": round(time.monotonic() - t0, 3)}
        write_atomic(cell.result, rec.model_dump_json(indent=1) + "\n")
        return rec


def _finalize(cell: CellPaths, meta: CellMeta, t0: float, attempt_no: int, extra_timing: dict | None,
              reuse_oracle: bool) -> ResultRecord:
    ev = gather(cell, meta)
    j = judge(ev, reuse_oracle=reuse_oracle and cell_sealed(meta))
    write_final_diff(ev)  # the record names final.diff when it is there
    timing = record.timing_of(ev, j, extra_timing)
    timing["finalize_s"] = round(time.monotonic() - t0 - timing["final_oracle_s"] - timing.get("variant_check_s", 0.0), 3)
    rec = record.result_record(ev, j, attempt_no=attempt_no, timing=timing)
    write_atomic(cell.result, rec.model_dump_json(indent=1) + "\n")
    return rec

