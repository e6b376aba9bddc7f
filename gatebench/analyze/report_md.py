"""`summary.md`: every table of the analysis as Markdown."""

from __future__ import annotations

from gatebench.analyze import tables
from gatebench.models.analysis import Analysis


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def md_table(t: tables.Table) -> str:
    out = [f"## {t.title}", ""]
    if not t.rows:
        out += ["_(nothing to show)_", ""]
    else:
        out.append("| " + " | ".join(_cell(h) for h in t.header) + " |")
        out.append("|" + "|".join("---" for _ in t.header) + "|")
        out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in t.rows]
        out.append("")
    if t.note:
        out += [t.note, ""]
    return "\n".join(out)


def render(a: Analysis) -> str:
    head = [
        "# gatebench analysis",
        "",
        f"**{a.notice}**" if a.notice else "",
        "",
        f"Generated {a.generated_at} by gatebench {a.gatebench}; schema `{a.schema_}`. "
        f"Baseline: `{a.baseline or 'none present'}`. {int(100 * a.settings.confidence)}% intervals; "
        f"bootstrap {a.settings.resamples} resamples, seed {a.settings.seed}.",
        "",
    ]
    if a.warnings:
        head += ["## Warnings", "", *[f"- {_cell(w)}" for w in a.warnings], ""]
    sections = [
        tables.headline(a),
        *([tables.impossible(a)] if a.impossible else []),
        tables.solve_rates(a),
        tables.deltas(a),
        tables.counterfactual(a),
        tables.gates(a),
        *([tables.scores(a)] if a.scores else []),
        tables.costs(a),
        tables.pass_k(a),
        tables.statuses(a),
        tables.integrity(a),
        tables.matrix(a),
        tables.plans(a),
        tables.provenance(a),
        tables.inputs(a),
    ]
    return "\n".join(head) + "\n".join(md_table(t) for t in sections)
