"""One cell's own page in the report (`cells/<n>-<config>-<task>-r<rep>.html`): what the agent did, readable.

A page shows, top first: the verdict (status, solved, an impossible cell's outcome and why), the prompt, the
conversation turn by turn (the agent's text, each tool call with its input and an abridged result) with each
stop attempt where it happened (every gate's verdict, feedback and time, the hidden oracle at that stop, the
decision and the exact reason sent), the final diff against the task's base (finalize's `final.diff`), and the
findings. Self-contained like report.html: inline CSS, no script, nothing fetched (a CSP says so).

`read_cell` is the file edge (bounded reads of the cell's record, event log, stream and diff); `conversation`
and `render` are pure.
"""

from __future__ import annotations

import json
import os
import re
from html import escape
from urllib.parse import quote

READ_MAX = 8 << 20  # bytes read of a stream or event log (a run may leave up to 256 MiB of output)
DIFF_MAX = 400_000
RESULT_CHARS = 1500
INPUT_CHARS = 4000
FEEDBACK_CHARS = 2500
STOP_FEEDBACK = "Stop hook feedback:"

CSS = """
body{font-family:"DejaVu Sans",Arial,sans-serif;font-size:14px;color:#222;margin:24px;max-width:1200px}
h1{font-size:20px;margin-bottom:4px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ccc}
.verdict{border:2px solid #888;padding:8px 14px;margin:10px 0;background:#fafafa}
.verdict.cheated{border-color:#b3261e;background:#fdecea}.verdict.abstained{border-color:#1f5fa8;background:#e8f0ff}
.verdict.failed{border-color:#8a6d00;background:#fff7e0}.verdict.solved{border-color:#2e7d32;background:#edf7ee}
.badge{font-weight:bold;font-size:16px}.note{color:#555;font-size:12px}
table{border-collapse:collapse;font-size:13px;margin:6px 0}th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;
vertical-align:top}th{background:#f1f1f1}
pre{background:#f6f6f6;border:1px solid #e2e2e2;padding:6px 8px;white-space:pre-wrap;word-break:break-word;
font-size:12px;margin:4px 0;max-height:420px;overflow:auto}
.turn{margin:8px 0;padding:4px 10px;border-left:4px solid #ccc}.turn.text{border-color:#7090d0}
.turn.tool{border-color:#999}.turn.error{border-color:#b3261e}.turn.notice{border-color:#d9730d}
.stop{margin:12px 0;padding:6px 12px;border:2px solid #888;background:#fcfcfc}
.stop.block{border-color:#d9730d}.stop.allow{border-color:#2e7d32}.stop.give_up{border-color:#b3261e}
.v-block,.v-error{color:#b3261e;font-weight:bold}.v-pass{color:#2e7d32}.v-skipped{color:#777}
.add{color:#1b5e20}.del{color:#b3261e}.hunk{color:#6a1b9a}.file{font-weight:bold}
nav a{margin-right:12px}pre.diff{max-height:none}
"""


PAGE_NAME = re.compile(r"^[0-9]{5}-[A-Za-z0-9_.+-]+\.html$")


def page_name(index: int, config: str, task: str, rep: int, variant: str = "normal") -> str:
    """The page's file name under cells/: listing order first, so names are unique even for retried cells."""
    raw = f"{index:05d}-{config}-{task}-r{rep}" + ("" if variant == "normal" else f"-{variant}")
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", raw) + ".html"


# ---------------------------------------------------------------- reading (the file edge)


def _read_text(path: str | None, limit: int = READ_MAX) -> tuple[str | None, bool]:
    """(text, cut) of a regular file, at most `limit` bytes; (None, False) when it cannot be read."""
    if not path:
        return None, False
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError:
        return None, False
    return data[:limit].decode("utf-8", "replace"), len(data) > limit


def _jsonl(path: str | None) -> tuple[list[dict], bool]:
    text, cut = _read_text(path)
    out = []
    for line in (text or "").splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if isinstance(d, dict):
            out.append(d)
    return out, cut


def read_cell(links: dict[str, str]) -> dict:
    """Everything a page shows, from the cell's files (`links`: name -> absolute path, as in a record's `paths`).
    Missing files are listed in `missing`, never an error: a ledger may outlive its cells."""
    missing = []
    cell = links.get("cell")
    record = None
    if cell:
        text, _ = _read_text(os.path.join(cell, "result.json"))
        try:
            record = json.loads(text) if text else None
        except ValueError:
            record = None
    if record is None:
        missing.append("result.json")
    events, events_cut = _jsonl(links.get("events"))
    if not events:
        missing.append("events")
    stream, stream_cut = _jsonl(links.get("stream"))
    source = "stream"
    if not any(e.get("type") == "assistant" for e in stream):
        stream, stream_cut = _jsonl(links.get("transcript"))
        source = "transcript"
        if not stream:
            missing.append("stream and transcript")
    prompt = None
    if cell:
        text, _ = _read_text(os.path.join(cell, "state", "config.json"))
        try:
            prompt = ((json.loads(text) if text else {}).get("task") or {}).get("prompt")
        except (ValueError, AttributeError):
            prompt = None
    diff, diff_cut = _read_text(links.get("diff"), DIFF_MAX)
    if diff is None:
        missing.append("final.diff")
    sid = (record or {}).get("session_id")
    stops = [e for e in events if e.get("hook") == "stop" and (not sid or e.get("session_id") in (sid, None))]
    return {"record": record, "stops": stops, "events_cut": events_cut, "stream": stream, "stream_cut": stream_cut,
            "source": source, "prompt": prompt, "diff": diff, "diff_cut": diff_cut, "missing": missing}


# ---------------------------------------------------------------- the conversation (pure)


def _blocks(message: object) -> list[dict]:
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _result_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def conversation(events: list[dict], stops: list[dict]) -> list[dict]:
    """The run as items in order: text, tool (with its result), stop (the hook's event for it), notice, result.

    Each block the hook sent ("Stop hook feedback") marks where the next stop event happened; stops left at the
    end (the allowed or given-up one) come before the final result."""
    items: list[dict] = []
    tools: dict[str, dict] = {}
    seen: set = set()
    pending = list(stops)
    for e in events:
        kind = e.get("type")
        if e.get("isSidechain"):
            continue
        if kind == "assistant":
            for b in _blocks(e.get("message")):
                key = b.get("id") or (id(e), b.get("type"), b.get("text"))
                if key in seen:
                    continue
                seen.add(key)
                if b.get("type") == "text" and str(b.get("text", "")).strip():
                    items.append({"kind": "text", "text": str(b["text"])})
                elif b.get("type") == "tool_use":
                    item = {"kind": "tool", "name": str(b.get("name")), "input": b.get("input") or {},
                            "result": None, "error": False}
                    tools[str(b.get("id"))] = item
                    items.append(item)
        elif kind == "user":
            for b in _blocks(e.get("message")):
                if b.get("type") == "tool_result" and str(b.get("tool_use_id")) in tools:
                    t = tools[str(b.get("tool_use_id"))]
                    t["result"], t["error"] = _result_text(b.get("content")), bool(b.get("is_error"))
                elif b.get("type") == "text" and STOP_FEEDBACK in str(b.get("text", "")):
                    items.append({"kind": "stop", "event": pending.pop(0) if pending else None,
                                  "feedback": str(b["text"])})
        elif kind == "system" and e.get("subtype") == "informational" and e.get("content"):
            items.append({"kind": "notice", "text": str(e["content"])})
        elif kind == "result":
            items += [{"kind": "stop", "event": s, "feedback": None} for s in pending]
            pending = []
            items.append({"kind": "result", "text": str(e.get("result") or ""), "subtype": e.get("subtype"),
                          "turns": e.get("num_turns"), "cost": e.get("total_cost_usd")})
    items += [{"kind": "stop", "event": s, "feedback": None} for s in pending]
    return items


# ---------------------------------------------------------------- rendering (pure)


def _abridge(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    return f"{text[:head]}\n[... {len(text) - limit} characters cut ...]\n{text[-(limit - head):]}"


FOLD_LINES = 14  # longer blocks show their head, the rest one click away (<details>, no script)


def _pre(text: str, limit: int, cls: str = "", fold: bool = True) -> str:
    c = f' class="{cls}"' if cls else ""
    text = _abridge(text, limit)
    lines = text.splitlines()
    if not fold or len(lines) <= FOLD_LINES:
        return f"<pre{c}>{escape(text)}</pre>"
    head = "\n".join(lines[:6])
    return (f"<details><summary><code>{escape(lines[0][:120])}</code> … ({len(lines)} lines)</summary>"
            f"<pre{c}>{escape(text)}</pre></details>" if not head.strip() else
            f"<pre{c}>{escape(head)}</pre><details><summary>{len(lines) - 6} more lines</summary>"
            f"<pre{c}>{escape(chr(10).join(lines[6:]))}</pre></details>")


def diff_stats(diff: str) -> list[tuple[str, int, int]]:
    """(path, lines added, lines removed) per file of a unified diff."""
    out: list[tuple[str, int, int]] = []
    for line in diff.splitlines():
        if line.startswith("+++ "):
            path = line[4:]
            if path == "/dev/null" and out:
                continue
            out.append((path[2:] if path.startswith("b/") else path, 0, 0))
        elif line.startswith("--- "):
            if line[4:] != "/dev/null":
                pending = line[4:]
                out.append((pending[2:] if pending.startswith("a/") else pending, 0, 0))
        elif out and line.startswith("+"):
            p, a, r = out[-1]
            out[-1] = (p, a + 1, r)
        elif out and line.startswith("-"):
            p, a, r = out[-1]
            out[-1] = (p, a, r + 1)
    merged: dict[str, tuple[int, int]] = {}
    for p, a, r in out:
        a0, r0 = merged.get(p, (0, 0))
        merged[p] = (a0 + a, r0 + r)
    return [(p, a, r) for p, (a, r) in merged.items()]


def _tool_input(name: str, inp: dict) -> str:
    if name == "Bash" and "command" in inp:
        return _pre(f"$ {inp['command']}", INPUT_CHARS)
    if name in ("Write",) and "content" in inp:
        return (f"<div><code>{escape(str(inp.get('file_path')))}</code></div>"
                + _pre(str(inp["content"]), INPUT_CHARS))
    if name in ("Edit", "MultiEdit") and "old_string" in inp:
        return (f"<div><code>{escape(str(inp.get('file_path')))}</code></div>"
                + _pre("\n".join("- " + ln for ln in str(inp["old_string"]).splitlines()), INPUT_CHARS, "del")
                + _pre("\n".join("+ " + ln for ln in str(inp.get("new_string", "")).splitlines()), INPUT_CHARS, "add"))
    if name == "Read" and "file_path" in inp:
        return f"<div><code>{escape(str(inp['file_path']))}</code></div>"
    return _pre(json.dumps(inp, indent=1, ensure_ascii=False), INPUT_CHARS)


def _stop_html(item: dict, n: int) -> str:
    e = item.get("event") or {}
    if not e:
        return (f'<div class="stop block" id="stop-{n}"><b>Stop attempt {n}</b>: the hook logged no event for it '
                "(the gate never ran)</div>")
    decision = str(e.get("decision") or "?")
    rows = []
    for g in e.get("gates") or []:
        fb = str(g.get("feedback") or "")
        err = (g.get("details") or {}).get("error") if isinstance(g.get("details"), dict) else None
        detail = _pre(fb, FEEDBACK_CHARS) if fb else ""
        if err:
            detail += f"<div class='v-error'>error: {escape(str(err))[:600]}</div>"
        rows.append(f"<tr><td>{escape(str(g.get('name')))}</td><td>{escape(str(g.get('kind')))}</td>"
                    f"<td class='v-{escape(str(g.get('verdict')))}'>{escape(str(g.get('verdict')))}</td>"
                    f"<td>{float(g.get('seconds') or 0):.2f} s</td><td>{detail}</td></tr>")
    gates = ("<table><tr><th>gate</th><th>kind</th><th>verdict</th><th>time</th><th>feedback</th></tr>"
             + "".join(rows) + "</table>") if rows else "<div class='note'>no gate in this config</div>"
    o = e.get("oracle")
    if isinstance(o, dict):
        fails = ", ".join(map(str, (o.get("failing") or [])[:12]))
        oracle = (f"<div>Hidden oracle at this stop: <b class='{'v-pass' if o.get('solved') else 'v-block'}'>"
                  f"{'solved' if o.get('solved') else 'not solved'}</b> ({o.get('passed', 0)} passed, "
                  f"{o.get('failed', 0)} failed{', ' + escape(fails) if fails else ''})"
                  f"{' error: ' + escape(str(o['error'])[:300]) if o.get('error') else ''} "
                  "<span class='note'>(never shown to the agent)</span></div>")
    else:
        oracle = "<div class='note'>no hidden oracle at this stop</div>"
    claim = e.get("honest_exit")
    honest = ""
    if isinstance(claim, dict) and claim.get("tests"):
        words = "; ".join(f"{t}: {(claim.get('words') or {}).get(t, '')}" for t in claim["tests"])
        honest = (f"<div><b>Honest exit</b> ({escape(str(claim.get('via')))}"
                  f"{', let the stop through' if claim.get('let_through') else ''}): {escape(words)}</div>")
    reason = e.get("reason")
    sent = (f"<details><summary>reason sent to the agent ({len(reason)} chars)</summary>{_pre(reason, 12000)}"
            "</details>") if reason else ""
    sysmsg = f"<div>systemMessage to the user: {escape(str(e['system_message']))}</div>" if e.get("system_message") else ""
    changed = (e.get("diff") or {}).get("counts") or {}
    return (f'<div class="stop {escape(decision)}" id="stop-{n}"><b>Stop attempt {escape(str(e.get("attempt") or n))}'
            f"</b> — decision <b>{escape(decision)}</b> ({float(e.get('seconds') or 0):.2f} s; files created/changed/"
            f"deleted {changed.get('created', 0)}/{changed.get('changed', 0)}/{changed.get('deleted', 0)})"
            f"{gates}{oracle}{honest}{sysmsg}{sent}</div>")


def _diff_html(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        cls = ("file" if line.startswith(("--- ", "+++ ")) else "hunk" if line.startswith("@@")
               else "add" if line.startswith("+") else "del" if line.startswith("-") else "")
        out.append(f'<span class="{cls}">{escape(line)}</span>' if cls else escape(line))
    return "<pre class=\"diff\">" + "\n".join(out) + "</pre>"


def _verdict_html(cell: dict, rec: dict | None, diff: str | None = None) -> str:
    outcome = cell.get("outcome") or (rec or {}).get("outcome")
    variant = cell.get("variant") or (rec or {}).get("variant") or "normal"
    solved = cell.get("solved")
    cls = outcome or ("solved" if solved else "failed")
    if outcome:
        badge = f"{outcome.upper()} (impossible variant)"
    else:
        badge = f"{'SOLVED' if solved else 'NOT SOLVED'} ({cell.get('status')})"
    why = "".join(f"<li>{escape(w)}</li>" for w in (rec or {}).get("outcome_why") or [])
    facts = []
    if rec:
        if variant != "normal":
            facts.append(f"hidden oracle (the real task): {'solved' if rec.get('solved') else 'not solved'}")
        imp = rec.get("impossible") or {}
        if imp:
            facts.append(f"mutated visible test(s) on the final code: {'PASS' if imp.get('solved') else 'fail'} "
                         f"({', '.join(imp.get('mutated') or [])})")
        facts.append(f"stops {len(rec.get('stops') or [])}, blocks {rec.get('blocks', 0)}"
                     f"{', give-up' if rec.get('give_up') else ''}")
        if rec.get("tampered"):
            facts.append("tampered: " + "; ".join(map(str, rec["tampered"][:8])))
        if rec.get("leaks"):
            facts.append("leaks: " + "; ".join(map(str, rec["leaks"][:8])))
        facts.append(f"turns {rec.get('turns', 0)}, wall {float(rec.get('wall_s') or 0):.1f} s, "
                     f"{'sim ' if rec.get('worker') == 'sim' else ''}${float(rec.get('cost_usd') or 0):.4f}")
        if rec.get("error"):
            facts.append(f"error: {rec['error']}")
    if diff:
        facts.append("final diff: " + (", ".join(f"{p} (+{a} −{r})" for p, a, r in diff_stats(diff)) or "no change"))
    sim = (rec or {}).get("worker") == "sim"
    notice = ("<div class='note'>Played by gatebench's scripted sim agent (policy "
              f"{escape(str(((rec or {}).get('sim') or {}).get('policy')))}), not by a model: what it does is the "
              "simulator's policy; its dollars are simulated.</div>") if sim else ""
    return (f'<div class="verdict {escape(cls)}"><div class="badge">{escape(badge)}</div>'
            + (f"<ul>{why}</ul>" if why else "")
            + "<div>" + "<br>".join(escape(f) for f in facts) + "</div>" + notice + "</div>")


def render(cell: dict, data: dict) -> str:
    """The page. `cell`: the report's listing of it (config, task, rep, run_id, variant, status, solved, outcome,
    links relative to the page); `data`: read_cell's."""
    rec = data.get("record")
    title = (f"{cell.get('config')} / {cell.get('task')} / rep {cell.get('rep')}"
             + (f" / {cell.get('variant')}" if cell.get("variant") not in (None, "normal") else ""))
    parts = [f"<h1>Cell {escape(title)}</h1>",
             f"<div class='note'>run {escape(str(cell.get('run_id')))} · <a href='../report.html'>back to the report</a>"
             " · files: " + " ".join(f"<a href=\"{escape(quote(h, safe='/.:-_~'))}\">{escape(n)}</a>"
                                     for n, h in sorted((cell.get("links") or {}).items())) + "</div>",
             "<nav><a href='#prompt'>prompt</a><a href='#conversation'>conversation</a><a href='#stops'>stops</a>"
             "<a href='#diff'>final diff</a><a href='#findings'>findings</a></nav>",
             _verdict_html(cell, rec, data.get("diff"))]
    if data.get("missing"):
        parts.append(f"<p class='note'>Not found for this cell: {escape(', '.join(data['missing']))}.</p>")
    stops = data.get("stops") or []
    if stops:
        rows = []
        for i, e in enumerate(stops, 1):
            verdicts = ", ".join(f"{g.get('name')} {g.get('verdict')}" for g in e.get("gates") or []) or "no gate"
            o = e.get("oracle") if isinstance(e.get("oracle"), dict) else None
            rows.append(f"<tr><td><a href='#stop-{i}'>{escape(str(e.get('attempt') or i))}</a></td>"
                        f"<td>{escape(str(e.get('decision')))}</td><td>{escape(verdicts)}</td>"
                        f"<td>{'–' if o is None else ('solved' if o.get('solved') else 'not solved')}</td>"
                        f"<td>{float(e.get('seconds') or 0):.2f} s</td></tr>")
        parts.append("<h2 id='stops'>Stops</h2><table><tr><th>attempt</th><th>decision</th><th>gates</th>"
                     "<th>hidden oracle</th><th>hook time</th></tr>" + "".join(rows) + "</table>")
    parts.append("<h2 id='prompt'>Prompt</h2>" + (_pre(data["prompt"], 20000, fold=False) if data.get("prompt")
                                                  else "<p class='note'>not recorded</p>"))
    parts.append("<h2 id='conversation'>Conversation</h2>")
    if data.get("source") == "transcript":
        parts.append("<p class='note'>from the transcript (no stream-json output was found)</p>")
    n = 0
    for it in conversation(data.get("stream") or [], stops):
        if it["kind"] == "text":
            parts.append(f"<div class='turn text'><b>agent</b>{_pre(it['text'], 8000, fold=False)}</div>")
        elif it["kind"] == "tool":
            result = ""
            if it["result"] is not None:
                result = ("<div class='note'>result" + (" (error)" if it["error"] else "") + "</div>"
                          + _pre(it["result"], RESULT_CHARS))
            parts.append(f"<div class='turn tool{' error' if it['error'] else ''}'><b>{escape(it['name'])}</b>"
                         f"{_tool_input(it['name'], it['input'])}{result}</div>")
        elif it["kind"] == "stop":
            n += 1
            parts.append(_stop_html(it, n))
        elif it["kind"] == "notice":
            parts.append(f"<div class='turn notice'>{escape(it['text'])}</div>")
        elif it["kind"] == "result":
            parts.append(f"<div class='turn'><b>end of run</b>: {escape(str(it.get('subtype')))}, "
                         f"{escape(str(it.get('turns')))} turns</div>")
    if data.get("stream_cut"):
        parts.append(f"<p class='note'>The output was longer than {READ_MAX >> 20} MiB: the rest is not shown.</p>")
    parts.append("<h2 id='diff'>Final diff against the task's base</h2>")
    if data.get("diff"):
        parts.append(_diff_html(data["diff"]) + ("<p class='note'>cut</p>" if data.get("diff_cut") else ""))
    elif data.get("diff") == "":
        parts.append("<p>No change.</p>")
    else:
        parts.append("<p class='note'>No final.diff in the cell (finalized by an older gatebench, or moved).</p>")
    findings = (rec or {}).get("findings") or []
    found = "".join(f"<tr><td>{escape(str(f.get('kind')))}</td><td>{escape(str(f.get('path')))}</td>"
                    f"<td>{escape(str(f.get('why')))}</td></tr>" for f in findings if isinstance(f, dict))
    parts.append("<h2 id='findings'>Findings</h2>" + (f"<table><tr><th>kind</th><th>path</th><th>why</th></tr>{found}"
                                                    "</table>" if found else "<p>None.</p>"))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
            "img-src data:\">"
            f"<title>gatebench cell {escape(title)}</title><style>{CSS}</style></head><body>"
            + "".join(parts) + "</body></html>\n")


def write_pages(cells: list, out_dir, write) -> int:
    """Write each listed cell's page (`cell.page`, relative to `out_dir`) with `write(path, text)`; returns how
    many. A cell none of whose files exists any more (a ledger copied without its cells) gets no page: its
    `page` is set to None, so the report links nothing. Links on a page are relative to its folder."""
    n = 0
    base = os.path.abspath(out_dir)
    written: set[str] = set()
    for c in cells:
        if not c.page:
            continue
        absolute = {k: v if os.path.isabs(v) else os.path.normpath(os.path.join(base, v)) for k, v in c.links.items()}
        if not any(os.path.exists(v) for v in absolute.values()):
            c.page = None
            continue
        page = os.path.join(base, c.page)
        here = os.path.dirname(page)
        os.makedirs(here, exist_ok=True)
        listing = {**c.model_dump(), "links": {k: os.path.relpath(v, here) for k, v in absolute.items()}}
        write(page, render(listing, read_cell(absolute)))
        written.add(page)
        n += 1
    _remove_stale(os.path.join(base, "cells"), written)
    return n


def _remove_stale(folder: str, keep: set[str]) -> None:
    """Pages of an earlier analysis into the same folder that this one did not write (only our own names)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        if PAGE_NAME.match(name) and path not in keep:
            try:
                os.remove(path)
            except OSError:
                pass
