"""`gatebench finalize`: score a run cell into one result record."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = ("score a run cell: final oracle, metrics, hook events, leak and tamper scans -> result.json (exit 1: it "
        "could not score the cell, and result.json is an infra_error record naming why)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("cell", type=Path, help="cell folder (or its repo/)")
    p.add_argument("--json", action="store_true", help="print the whole record as JSON")
    p.add_argument("--fresh-oracle", action="store_true",
                   help="always rerun the hidden oracle (default: reuse the last stop's result when the work copy "
                        "is byte for byte what that stop judged)")


def run(args: argparse.Namespace) -> int:
    from gatebench.cell.cell import find_cell
    from gatebench.cell.finalize import FINALIZE_FAILED, finalize
    from gatebench.errors import UsageError

    cell = find_cell(args.cell)
    if cell is None:
        raise UsageError(f"{args.cell}: not inside a prepared cell (no cell.json found)")
    rec = finalize(cell, reuse_oracle=not args.fresh_oracle)
    if args.json:
        print(rec.model_dump_json(indent=1))
    else:
        print(summary_line(rec.model_dump(mode="json")))
        print(f"  record: {cell.result}")
    return 1 if (rec.error or "").startswith(FINALIZE_FAILED) else 0  # the record says why it could not score


def summary_line(r: dict) -> str:
    u = r.get("usage") or {}
    flags = [f for f in ("tamper", "leak", "give_up") if r.get(f)]
    return (f"{r['cell_id']}: {r['status']}{' (' + r['error'] + ')' if r.get('error') else ''} | "
            f"solved={r['solved']} first_stop={r.get('first_stop_solved')} blocks={r.get('blocks')} | "
            f"turns={r.get('turns')} tools={sum((r.get('tool_calls') or {}).values())} "
            f"tokens in/out={u.get('input_tokens')}/{u.get('output_tokens')} "
            f"{'sim $' if r.get('worker') == 'sim' else '$'}{r.get('cost_usd', 0):.4f} "
            f"wall={r.get('wall_s')}s" + (f" | FLAGS: {', '.join(flags)}" if flags else "")
            + (f" | OUTCOME: {r['outcome']} ({'; '.join(r.get('outcome_why') or [])[:300]})" if r.get("outcome") else ""))
