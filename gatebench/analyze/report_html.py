"""`report.html`: one self-contained page (inline CSS and SVG, no script, nothing fetched)."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from gatebench.analyze import svg, tables
from gatebench.models.analysis import Analysis

CSS = """
body{font-family:"DejaVu Sans",Arial,sans-serif;font-size:14px;color:#222;margin:24px;max-width:1400px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}h3{font-size:14px;margin:14px 0 4px}
table{border-collapse:collapse;margin:8px 0 4px;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right;white-space:nowrap}
th{background:#f1f1f1}td:first-child,th:first-child{text-align:left}
.note{color:#555;font-size:12px;margin:2px 0 12px}.warn{background:#fff4e0;border:1px solid #e0b060;padding:6px 12px}
figure{margin:12px 0}svg.chart{display:block;max-width:100%;height:auto}
.cells{max-height:480px;overflow:auto;display:inline-block}
.notice{background:#e8f0ff;border:1px solid #7090d0;padding:6px 12px}
"""


CHEAT_COLOR, ABSTAIN_COLOR = "#b3261e", "#1f5fa8"


def html_table(t: tables.Table, links: list[dict[str, str]] | None = None, title: bool = True) -> str:
    out = [f"<h3>{escape(t.title)}</h3>" if title else "", "<table><thead><tr>",
           *[f"<th>{escape(h)}</th>" for h in t.header], "</tr></thead><tbody>"]
    if not t.rows:
        out.append(f'<tr><td colspan="{len(t.header)}">nothing to show</td></tr>')
    for i, r in enumerate(t.rows):
        cells = [f"<td>{escape(c)}</td>" for c in r]
        if links is not None:
            cells.append("<td>" + " ".join(
                f'<a href="{escape(quote(href, safe="/.:-_~"))}">{escape(name)}</a>' for name, href in links[i].items()
            ) + "</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    if t.note:
        out.append(f'<p class="note">{escape(t.note)}</p>')
    return "".join(out)


def _section(title: str, *parts: str) -> str:
    return f"<section><h2>{escape(title)}</h2>" + "".join(parts) + "</section>"


def _figure(chart: str) -> str:
    return f"<figure>{chart}</figure>"


def charts(a: Analysis) -> dict[str, str]:
    rate_rows = [(s.config, s.solve_rate.value, s.solve_rate.lo, s.solve_rate.hi) for s in a.configs]
    forest_rows = []
    for cf in a.counterfactual:
        d = next((x for x in a.deltas if x.config == cf.config), None)
        if d:
            forest_rows.append((f"{cf.config} vs {d.baseline}", d.estimate.value, d.estimate.lo, d.estimate.hi, "between"))
        if cf.config != a.baseline:
            forest_rows.append((f"{cf.config} within-run", cf.delta.value, cf.delta.lo, cf.delta.hi, "within"))
        if cf.validity:
            v = cf.validity.difference
            forest_rows.append((f"{cf.config} validity", v.value, v.lo, v.hi, "validity"))
    points = [
        (s.config, s.cost_per_run, s.solve_rate.value, s.solve_rate.lo, s.solve_rate.hi, s.config in a.pareto)
        for s in a.configs
        if s.solve_rate.value is not None
    ]
    m = a.matrix
    cells = [[(c.rate, f"{c.solved}/{c.runs}" if c.runs else "–") for c in row] for row in m.cells]
    imp_rows = [row for s in a.impossible for row in (
        (f"{s.config} cheat", s.cheat_rate.value, s.cheat_rate.lo, s.cheat_rate.hi),
        (f"{s.config} abstain", s.abstain_rate.value, s.abstain_rate.lo, s.abstain_rate.hi))]
    sim_imp = tables.simulated(a) & {s.config for s in a.impossible}
    return {
        "impossible": svg.rate_chart(imp_rows, "Cheat and abstain rates, impossible variants (95% CI)"
                                     + (" - sim agent" if sim_imp else ""), cls="cheat-chart",
                                     colors=[CHEAT_COLOR, ABSTAIN_COLOR] * len(a.impossible)),
        "rates": svg.rate_chart(rate_rows, "Solve rate per config (95% CI, task-clustered)"),
        "forest": svg.forest(forest_rows, "Δ solve rate (percentage points, 95% CI)"),
        "cost": svg.cost_scatter(points, "Cost per run vs solve rate"
                                 + (" (simulated dollars: the sim agent's runs, never paid)" if tables.simulated(a) else "")),
        "heatmap": svg.heatmap(m.tasks, m.configs, cells, "Solve rate by task and config (hardest first)"),
    }


def render(a: Analysis) -> str:
    ch = charts(a)
    head = (
        f"<p>Generated {escape(a.generated_at)} by gatebench {escape(a.gatebench)}; schema "
        f"<code>{escape(a.schema_)}</code>. Baseline: <code>{escape(a.baseline or 'none present')}</code>. "
        f"{int(100 * a.settings.confidence)}% intervals; bootstrap {a.settings.resamples} resamples, "
        f"seed {a.settings.seed}.</p>"
    )
    notice = f'<p class="notice" id="notice"><b>{escape(a.notice)}</b></p>' if a.notice else ""
    warn = ""
    if a.warnings:
        warn = '<div class="warn"><b>Warnings</b><ul>' + "".join(f"<li>{escape(w)}</li>" for w in a.warnings) + "</ul></div>"
    cell_table = tables.Table(
        f"Cells ({len(a.cells)} of {a.cells_total} listed)",
        ["config", "task", "rep", "variant", "run", "status", "solved", "outcome", "files"],
        [[c.config, c.task, str(c.rep), c.variant, c.run_id, c.status, "yes" if c.solved else "no", c.outcome or "–"]
         for c in a.cells],
        ("" if len(a.cells) == a.cells_total else f"Only the first {a.cells_listed_max} cells are listed; the ledger "
         "has all. ") + "page = the cell's own page: prompt, conversation, every stop's gates and oracle, final diff.",
    )
    impossible = []
    if a.impossible:
        impossible = [_section("Cheating under pressure (impossible variants)", _figure(ch["impossible"]),
                               html_table(tables.impossible(a), title=False))]
    body = [
        _section("Headline", html_table(tables.headline(a), title=False)),
        *impossible,
        _section("Solve rate", _figure(ch["rates"]), html_table(tables.solve_rates(a)), html_table(tables.pass_k(a))),
        _section("Δ against the baseline", _figure(ch["forest"]), html_table(tables.deltas(a)),
                 html_table(tables.counterfactual(a))),
        _section("Cost", _figure(ch["cost"]), html_table(tables.costs(a))),
        _section("Gates as classifiers", html_table(tables.gates(a))),
        *([_section("claude plugin eval scores", html_table(tables.scores(a), title=False))] if a.scores else []),
        _section("Integrity", html_table(tables.integrity(a), title=False)),
        _section("Task × config", _figure(ch["heatmap"]), html_table(tables.matrix(a))),
        _section("What it would take", html_table(tables.plans(a), title=False)),
        _section("Provenance", html_table(tables.provenance(a), title=False)),
        _section("Statuses and inputs", html_table(tables.statuses(a)), html_table(tables.inputs(a))),
        _section("Cells", '<div class="cells">' + html_table(
            cell_table, [{**({"page": c.page} if c.page else {}), **c.links} for c in a.cells]) + "</div>"),
    ]
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        # Nothing on this page may load anything: the policy makes a stray reference fail loudly.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "img-src data:\">"
        "<title>gatebench analysis</title>"
        f"<style>{CSS}</style></head><body><h1>gatebench analysis</h1>{notice}{head}{warn}"
        + "".join(body)
        + "</body></html>\n"
    )
