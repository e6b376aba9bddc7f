"""Inline SVG charts from plain numbers: no script, no external font or stylesheet.

Each function returns one `<svg class="chart">` element with a `<title>` and explicit size, so
the page renders the same in any browser, offline.
"""

from __future__ import annotations

import itertools
import math
from html import escape

FONT = 'font-family="DejaVu Sans, Arial, sans-serif" font-size="12"'
INK, GRID, MUTED = "#222", "#ddd", "#777"
SERIES = {"between": "#1f5fa8", "within": "#d9730d", "validity": "#6b6b6b"}
CHAR_W = 7.0  # rough width of one 12 px character, to size the label margin


def _open(width: float, height: float, title: str, cls: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {cls}" role="img" width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" {FONT}>',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#fff"/>',
        f'<text x="8" y="18" font-size="14" font-weight="bold" fill="{INK}">{escape(title)}</text>',
    ]


def _label_margin(labels: list[str]) -> float:
    return min(260.0, max(80.0, CHAR_W * max((len(s) for s in labels), default=4) + 16))


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Round-numbered ticks (steps of 1, 2, 2.5 or 5 x 10^n) whose first and last enclose [lo, hi]."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / target
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw * (1 - 1e-9))
    first = math.floor(lo / step + 1e-9)
    last = math.ceil(hi / step - 1e-9)
    return [round(i * step, 12) for i in range(first, last + 1)]


def _fmt_pct(x: float) -> str:
    return f"{100 * x:.0f}%" if abs(100 * x - round(100 * x)) < 1e-9 else f"{100 * x:.1f}%"


def rate_chart(rows: list[tuple[str, float | None, float | None, float | None]], title: str,
               cls: str = "rate-chart", colors: list[str] | None = None) -> str:
    """Points with interval whiskers on a 0-100% axis; one row per label (`colors`: one per row)."""
    labels = [r[0] for r in rows]
    left, plot_w, row_h, top = _label_margin(labels), 420.0, 26.0, 34.0
    right = 150.0
    height = top + row_h * max(1, len(rows)) + 34
    width = left + plot_w + right
    out = _open(width, height, title, cls)

    def x(v: float) -> float:
        return left + plot_w * min(1.0, max(0.0, v))

    bottom = top + row_h * max(1, len(rows))
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<line x1="{x(t):.1f}" y1="{top:.1f}" x2="{x(t):.1f}" y2="{bottom:.1f}" stroke="{GRID}"/>')
        out.append(f'<text x="{x(t):.1f}" y="{bottom + 16:.1f}" text-anchor="middle" fill="{MUTED}">{_fmt_pct(t)}</text>')
    for i, (label, v, lo, hi) in enumerate(rows):
        color = colors[i] if colors else SERIES["between"]
        y = top + row_h * (i + 0.5)
        out.append(f'<text x="{left - 8:.1f}" y="{y + 4:.1f}" text-anchor="end" fill="{INK}">{escape(label)}</text>')
        if v is None:
            out.append(f'<text x="{left + 4:.1f}" y="{y + 4:.1f}" fill="{MUTED}">no scored run</text>')
            continue
        if lo is not None and hi is not None:
            out.append(f'<line x1="{x(lo):.1f}" y1="{y:.1f}" x2="{x(hi):.1f}" y2="{y:.1f}" stroke="{color}" stroke-width="2"/>')
            for e in (lo, hi):
                out.append(f'<line x1="{x(e):.1f}" y1="{y - 6:.1f}" x2="{x(e):.1f}" y2="{y + 6:.1f}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<circle cx="{x(v):.1f}" cy="{y:.1f}" r="5" fill="{color}"/>')
        span = f" [{100 * lo:.0f}, {100 * hi:.0f}]" if lo is not None and hi is not None else ""
        out.append(f'<text x="{left + plot_w + 10:.1f}" y="{y + 4:.1f}" fill="{INK}">{100 * v:.1f}%{span}</text>')
    out.append("</svg>")
    return "\n".join(out)


def forest(rows: list[tuple[str, float | None, float | None, float | None, str]], title: str) -> str:
    """Differences in percentage points with intervals around a zero line; style picks the series."""
    labels = [r[0] for r in rows]
    left, plot_w, row_h, top, right = _label_margin(labels), 420.0, 24.0, 34.0, 150.0
    vals = [v for r in rows for v in r[1:4] if v is not None] + [0.0]
    lo_all, hi_all = min(vals), max(vals)
    pad = max(0.02, 0.08 * (hi_all - lo_all))
    ticks = nice_ticks(lo_all - pad, hi_all + pad)
    lo_ax, hi_ax = ticks[0], ticks[-1]
    legend_h = 22.0
    bottom = top + row_h * max(1, len(rows))
    height = bottom + 34 + legend_h
    width = left + plot_w + right
    out = _open(width, height, title, "forest-chart")

    def x(v: float) -> float:
        return left + plot_w * (v - lo_ax) / (hi_ax - lo_ax)

    for t in ticks:
        out.append(f'<line x1="{x(t):.1f}" y1="{top:.1f}" x2="{x(t):.1f}" y2="{bottom:.1f}" stroke="{GRID}"/>')
        out.append(f'<text x="{x(t):.1f}" y="{bottom + 16:.1f}" text-anchor="middle" fill="{MUTED}">{100 * t:+.0f}</text>')
    out.append(f'<line x1="{x(0):.1f}" y1="{top - 4:.1f}" x2="{x(0):.1f}" y2="{bottom:.1f}" stroke="{INK}" stroke-dasharray="4 3"/>')
    for i, (label, v, lo, hi, style) in enumerate(rows):
        y = top + row_h * (i + 0.5)
        color = SERIES.get(style, INK)
        out.append(f'<text x="{left - 8:.1f}" y="{y + 4:.1f}" text-anchor="end" fill="{INK}">{escape(label)}</text>')
        if v is None:
            continue
        if lo is not None and hi is not None:
            out.append(f'<line x1="{x(lo):.1f}" y1="{y:.1f}" x2="{x(hi):.1f}" y2="{y:.1f}" stroke="{color}" stroke-width="2"/>')
        out.append(_marker(style, x(v), y, color))
        span = f" [{100 * lo:+.1f}, {100 * hi:+.1f}]" if lo is not None and hi is not None else ""
        out.append(f'<text x="{left + plot_w + 10:.1f}" y="{y + 4:.1f}" fill="{INK}">{100 * v:+.1f}{span}</text>')
    ly = bottom + 34
    lx = left
    for style, name in (("between", "between-config Δ"), ("within", "within-run Δ"), ("validity", "validity check")):
        out.append(_marker(style, lx + 6, ly, SERIES[style]))
        out.append(f'<text x="{lx + 16:.1f}" y="{ly + 4:.1f}" fill="{INK}">{name}</text>')
        lx += 140
    out.append(f'<text x="{left + plot_w + 10:.1f}" y="{ly + 4:.1f}" fill="{MUTED}">percentage points</text>')
    out.append("</svg>")
    return "\n".join(out)


def _marker(style: str, cx: float, cy: float, color: str) -> str:
    if style == "within":
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="#fff" stroke="{color}" stroke-width="2"/>'
    if style == "validity":
        return (f'<path d="M{cx:.1f} {cy - 6:.1f} L{cx + 6:.1f} {cy:.1f} L{cx:.1f} {cy + 6:.1f} '
                f'L{cx - 6:.1f} {cy:.1f} Z" fill="{color}"/>')
    return f'<rect x="{cx - 5:.1f}" y="{cy - 5:.1f}" width="10" height="10" fill="{color}"/>'


def cost_scatter(points: list[tuple[str, float, float, float | None, float | None, bool]], title: str) -> str:
    """Cost per run (x) against solve rate (y); frontier points joined by a staircase."""
    left, top, plot_w, plot_h, right = 64.0, 34.0, 460.0, 280.0, 170.0
    width, height = left + plot_w + right, top + plot_h + 74
    out = _open(width, height, title, "cost-chart")
    max_cost = max((p[1] for p in points), default=0.0)
    ticks = nice_ticks(0.0, max_cost * 1.05 if max_cost > 0 else 1.0)
    hi_x = ticks[-1]

    def x(c: float) -> float:
        return left + plot_w * c / hi_x

    def y(r: float) -> float:
        return top + plot_h * (1.0 - min(1.0, max(0.0, r)))

    for t in ticks:
        out.append(f'<line x1="{x(t):.1f}" y1="{top:.1f}" x2="{x(t):.1f}" y2="{top + plot_h:.1f}" stroke="{GRID}"/>')
        out.append(f'<text x="{x(t):.1f}" y="{top + plot_h + 16:.1f}" text-anchor="middle" fill="{MUTED}">${t:g}</text>')
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<line x1="{left:.1f}" y1="{y(t):.1f}" x2="{left + plot_w:.1f}" y2="{y(t):.1f}" stroke="{GRID}"/>')
        out.append(f'<text x="{left - 6:.1f}" y="{y(t) + 4:.1f}" text-anchor="end" fill="{MUTED}">{_fmt_pct(t)}</text>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{top + plot_h + 36:.1f}" text-anchor="middle" fill="{INK}">cost per run (USD, worker + reviewers)</text>')
    front = sorted((p for p in points if p[5]), key=lambda p: p[1])
    if len(front) > 1:
        path = [f"M{x(front[0][1]):.1f} {y(front[0][2]):.1f}"]
        for prev, cur in itertools.pairwise(front):
            path.append(f"L{x(cur[1]):.1f} {y(prev[2]):.1f} L{x(cur[1]):.1f} {y(cur[2]):.1f}")
        out.append(f'<path class="frontier" d="{" ".join(path)}" fill="none" stroke="{SERIES["within"]}" stroke-width="2" stroke-dasharray="6 3"/>')
    for label, cost, rate, lo, hi, on_front in points:
        cx, cy = x(cost), y(rate)
        if lo is not None and hi is not None:
            out.append(f'<line x1="{cx:.1f}" y1="{y(lo):.1f}" x2="{cx:.1f}" y2="{y(hi):.1f}" stroke="{SERIES["between"]}" stroke-opacity="0.5" stroke-width="2"/>')
        if on_front:
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="7" fill="{SERIES["within"]}" stroke="{INK}"/>')
        else:
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{SERIES["between"]}"/>')
        out.append(f'<text x="{cx + 9:.1f}" y="{cy - 6:.1f}" fill="{INK}">{escape(label)}</text>')
    # The legend sits under the axis title, clear of labels that spill right of the plot.
    ly = top + plot_h + 60
    out.append(f'<circle cx="{left + 8:.1f}" cy="{ly:.1f}" r="7" fill="{SERIES["within"]}" stroke="{INK}"/>')
    out.append(f'<text x="{left + 20:.1f}" y="{ly + 4:.1f}" fill="{INK}">on the Pareto frontier (dashed)</text>')
    out.append(f'<circle cx="{left + 258:.1f}" cy="{ly:.1f}" r="5" fill="{SERIES["between"]}"/>')
    out.append(f'<text x="{left + 270:.1f}" y="{ly + 4:.1f}" fill="{INK}">dominated</text>')
    out.append(f'<text x="{left + 350:.1f}" y="{ly + 4:.1f}" fill="{MUTED}">bars: solve-rate 95% CI</text>')
    out.append("</svg>")
    return "\n".join(out)


def _blend(rate: float) -> str:
    # White to dark blue: light cells read as hard tasks.
    lo, hi = (247, 251, 255), (8, 48, 107)
    r = min(1.0, max(0.0, rate))
    return "#" + "".join(f"{round(a + (b - a) * r):02x}" for a, b in zip(lo, hi, strict=True))


def heatmap(tasks: list[str], configs: list[str], cells: list[list[tuple[float | None, str]]], title: str) -> str:
    """Task rows x config columns, colored by solve rate, with the k/n count in each cell."""
    left = _label_margin(tasks)
    cell_w = max(64.0, CHAR_W * max((len(c) for c in configs), default=4) + 12)
    cell_h, top = 22.0, 58.0
    width = max(left + cell_w * max(1, len(configs)) + 20, CHAR_W * 1.2 * len(title) + 24)
    height = top + cell_h * max(1, len(tasks)) + 16
    out = _open(width, height, title, "heatmap-chart")
    for j, c in enumerate(configs):
        cx = left + cell_w * (j + 0.5)
        out.append(f'<text x="{cx:.1f}" y="{top - 8:.1f}" text-anchor="middle" fill="{INK}">{escape(c)}</text>')
    for i, t in enumerate(tasks):
        ty = top + cell_h * i
        out.append(f'<text x="{left - 8:.1f}" y="{ty + 15:.1f}" text-anchor="end" fill="{INK}">{escape(t)}</text>')
        for j, (rate, text) in enumerate(cells[i]):
            cx = left + cell_w * j
            fill = "#eee" if rate is None else _blend(rate)
            ink = "#fff" if rate is not None and rate > 0.55 else INK
            out.append(f'<rect x="{cx + 1:.1f}" y="{ty + 1:.1f}" width="{cell_w - 2:.1f}" height="{cell_h - 2:.1f}" fill="{fill}"/>')
            out.append(f'<text x="{cx + cell_w / 2:.1f}" y="{ty + 15:.1f}" text-anchor="middle" fill="{ink}">{escape(text)}</text>')
    out.append("</svg>")
    return "\n".join(out)
