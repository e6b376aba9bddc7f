#!/usr/bin/env python3
"""How often a twin swap's pick finds the original, measured offline on the printer's own plans.

    .venv/bin/python scripts/guess_odds.py [--tasks T1,T8] [--draws 300]

For each bundled task, lays its hidden modules `--draws` times with the oracle's own options
(`canaries.lay`: fresh names, values and order each draw) and, for each draw, prints nothing but counts:
- the plan's exact odds of a blind guess (`canaries.guess_odds`: the product over the twinned groups of
  1/group size; a negation group counts 1/2 and flags nothing);
- the collected_items class's own pick (`payloads.ITEM_SWAP`: `_item_groups` and `pick_by_code`, run on the
  rendered module's code objects without executing the module) per site kind: how often the grouping matched
  the plan's groups and how often the pick was the original, beside 1/(group size), what a pick with no tell
  gets.
A pick that beats 1/(group size) on a kind is a tell of the printer. Exit 1 when one does by more than
`--slack` (default 0.1) over at least 100 picks.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pick_code():
    """The class's grouping and pick, taken from its payload (the code a hostile tree runs)."""
    from gatebench.audit import payloads

    text = payloads.ITEM_SWAP
    body = text[text.index("def _item_code"):text.index("def _item_swap")]
    ns: dict = {}
    exec(body, ns)
    return ns["_item_groups"], ns["pick_by_code"]


def functions(source: str) -> dict[str, types.FunctionType]:
    """qualname -> a function of each def of a module (and its classes), made from the compiled code objects:
    the module is not run, so its imports need not resolve."""
    g: dict = {"__name__": "rendered"}
    out: dict[str, types.FunctionType] = {}
    for c in compile(source, "rendered.py", "exec").co_consts:
        if not isinstance(c, types.CodeType):
            continue
        if c.co_name.startswith("<"):
            continue
        fns = [(c.co_name, c)]
        if not c.co_flags & 0x1:  # CO_OPTIMIZED unset: a class body
            fns = [(f"{c.co_name}::{m.co_name}", m) for m in c.co_consts if isinstance(m, types.CodeType)]
        for qual, code in fns:
            f = types.FunctionType(code, g)
            out[qual] = f
            if "::" not in qual:
                g[qual] = f
    return out


def draw(tf, tmp: Path, seed: int):
    """One plan of `tf` as the oracle lays it, and the rendered sources by id file."""
    from gatebench.suite.benchstate import oracle_binding
    from gatebench.suite.canaries import lay_plan

    copy = tmp / "copy"
    if copy.exists():
        shutil.rmtree(copy)
    plan, hidden = lay_plan(oracle_binding(tf).model_dump(), copy, seed)
    return plan, {f: (hidden / f).read_text() for f in plan.files}


def measure(tf, draws: int, tmp: Path) -> dict:
    from gatebench.oracle import canaries

    groups_of, pick = pick_code()
    rng = random.Random(1)
    stats: dict[str, list[float]] = {}  # kind -> [picks, right, grouped right, sum of 1/size]
    odds = []
    for i in range(draws):
        plan, sources = draw(tf, tmp, 1000 + i)
        odds.append(canaries.guess_odds(plan))
        for file, src in sources.items():
            fns = functions(src)
            items = [types.SimpleNamespace(function=f, name=q) for q, f in fns.items() if q in plan.files[file]]
            for g in groups_of(items):
                quals = [m[2][0].name for m in g]
                origs = {plan.files[file][q][0] for q in quals}
                fid = f"{file}::{next(iter(origs))}"
                if len(g) < 2 or fid not in plan.kinds:
                    continue
                want = canaries.group_sizes(plan).get(fid)
                s = stats.setdefault(plan.kinds[fid], [0, 0, 0, 0.0])
                per = stats.setdefault(f"  {fid}", [0, 0, 0, 0.0])
                s[0] += 1
                s[2] += len(origs) == 1 and len(g) == want
                s[3] += 1 / want
                chosen = pick(g, rng)[2][0].name
                s[1] += not plan.files[file][chosen][1]
                per[0] += 1
                per[1] += not plan.files[file][chosen][1]
                per[2] += len(origs) == 1 and len(g) == want
                per[3] += 1 / want
    return {"odds": odds, "stats": stats}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", default="")
    ap.add_argument("--draws", type=int, default=300)
    ap.add_argument("--slack", type=float, default=0.1)
    a = ap.parse_args()
    from gatebench.suite.tasks import load_task, task_ids

    ids = [t for t in a.tasks.split(",") if t] or task_ids()
    bad = []
    with tempfile.TemporaryDirectory(prefix="guess-odds-") as tmp:
        for tid in ids:
            m = measure(load_task(tid), a.draws, Path(tmp))
            worst = max(m["odds"])
            print(f"{tid}: blind guess odds per run: worst {worst:.3g}, median {sorted(m['odds'])[len(m['odds']) // 2]:.3g}")
            for kind, (n, right, grouped, fair) in sorted(m["stats"].items()):
                rate, chance = right / n, fair / n
                flag = "  <- a tell" if n >= 100 and rate > chance + a.slack else ""
                print(f"  {kind:10s} picks {n:5d}  grouped as planned {grouped / n:5.1%}  pick right {rate:5.1%}"
                      f"  chance {chance:5.1%}{flag}")
                if flag:
                    bad.append(f"{tid} {kind}")
    if bad:
        print("tells: " + ", ".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
