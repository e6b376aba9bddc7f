"""final.diff: the final work copy against the task's base, for the report's cell page."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gatebench.cell.evidence import Evidence
from gatebench.common.util import write_atomic
from gatebench.tree.snapshot import Diff, shown

FINAL_DIFF = "final.diff"


def final_diff(repo: Path, base_repo: Path, d: Diff, base_files: dict[str, str] | None = None) -> str:
    """A unified diff of the final work copy against the task's base (a variant's mutated modules in place of
    theirs), read from the bench home and the work copy alone: what the cell page shows as "the final diff".
    Files prep added (the hook settings) have no base text here and show as a header line."""
    from gatebench.review.prompt import _read_now, file_diff

    status = {**{p: "created" for p in d.created}, **{p: "changed" for p in d.changed},
              **{p: "deleted" for p in d.deleted}}
    parts = []
    for rel in sorted(status):
        st = status[rel]
        old: bytes | None = None
        if st != "created":
            if base_files and rel in base_files:
                old = base_files[rel].encode("utf-8")
            elif (base_repo / rel).is_file() and not (base_repo / rel).is_symlink():
                old = (base_repo / rel).read_bytes()
            else:
                parts.append(f"--- a/{shown(rel)}\n+++ b/{shown(rel)}\n@@ {st}: a file prep added (no base text) @@\n")
                continue
        try:
            mode = os.lstat(repo / rel).st_mode if st != "deleted" else 0
        except OSError:
            mode = 0
        new = _read_now(str(repo), rel, mode) if st != "deleted" else None
        # A name that is not UTF-8 is shown escaped (snapshot.shown), as in every record.
        parts.append(file_diff(shown(rel), old, new, len(old or b""), len(new or b""), st))
    return "".join(parts)


def write_final_diff(ev: Evidence) -> None:
    """For the report's cell page: the diff as the bench home sees it, never recomputed from agent files later."""
    path = ev.cell.root / FINAL_DIFF
    try:
        write_atomic(path, final_diff(ev.cell.repo, ev.trusted.task.repo, ev.tree.diff, ev.trusted.mutated))
    except (OSError, ValueError) as e:  # the page then says the diff is missing; the record is what counts
        print(f"finalize: {path} not written: {e}", file=sys.stderr)
