"""Reviewer verdicts: robust parsing of what a reviewer printed, and the result record (stdlib only).

The expected answer is one JSON object:
    {"verdict": "pass"|"block", "findings": [{"file", "line", "severity", "claim", "evidence"}], "summary": "..."}
It may sit inside prose or a ```json fence. Whatever cannot be read as exactly one verdict -- empty,
prose only, a wrong field, no verdict, a cut-off object, two objects that disagree, too large, not
UTF-8 -- is an `error` with the reason: an unreadable review must never count as a pass.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import asdict, dataclass, field

MAX_OUTPUT_CHARS = 200_000
SEVERITIES = ("high", "medium", "low")
SEVERITY_ALIASES = {"critical": "high", "major": "high", "blocker": "high", "moderate": "medium",
                    "minor": "low", "info": "low", "nit": "low"}
KNOWN_KEYS = ("verdict", "findings", "summary", "cost_usd")
FINDING_KEYS = ("file", "line", "severity", "claim", "evidence")
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)
_LEADING_INT = re.compile(r"^\s*L?(\d+)")

VERDICT_FORMAT = """Answer with ONE JSON object and nothing after it:
{"verdict": "pass" or "block",
 "findings": [{"file": "path/in/repo.py", "line": 12, "severity": "high|medium|low",
               "claim": "what is wrong, in one sentence",
               "evidence": "the concrete input, scenario or line that shows it"}],
 "summary": "one or two sentences"}
Use "block" only for a real defect you can show; "pass" with an empty findings list otherwise."""


@dataclass
class ReviewResult:
    """One reviewer's answer at one stop. `verdict` is what it said; the panel applies the rules."""

    reviewer: str
    verdict: str  # pass | block | error
    findings: list[dict] = field(default_factory=list)
    summary: str = ""
    error: str | None = None  # why this is an error verdict
    no_evidence: bool = False  # a block without one concrete finding (require_evidence)
    backend: str = ""
    model: str | None = None
    cost_usd: float = 0.0
    usage: dict = field(default_factory=dict)
    turns: int | None = None
    seconds: float = 0.0
    ignored_keys: list[str] = field(default_factory=list)
    raw_tail: str = ""  # the end of the raw answer, for the log

    def to_dict(self) -> dict:
        return asdict(self)


class VerdictError(ValueError):
    """The output is not one readable verdict; the message is the reason recorded."""


def decode(data: bytes) -> str:
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as e:
        raise VerdictError(f"output is not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})")


def _objects(text: str) -> list[dict]:
    """Every top-level JSON object in `text`: the whole text, fenced blocks, or objects inside prose."""
    stripped = text.strip()
    try:
        whole = json.loads(stripped)
        return [whole] if isinstance(whole, dict) else []
    except ValueError:
        pass
    found: list[dict] = []
    fenced = [m.group(1) for m in _FENCE.finditer(text)]
    for body in fenced:
        try:
            obj = json.loads(body)
        except ValueError:
            continue
        if isinstance(obj, dict):
            found.append(obj)
    if found:
        return found
    dec = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            obj, end = dec.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            found.append(obj)
        i = text.find("{", end)
    return found


def _line(value: object, where: str) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise VerdictError(f"{where}.line: expected a line number, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and (m := _LEADING_INT.match(value)):
        return int(m.group(1))  # "12", "12-14", "L12"
    raise VerdictError(f"{where}.line: expected a line number, got {value!r}")


def _text(value: object, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise VerdictError(f"{where}: expected a string, got {type(value).__name__}")
    return value.strip()


def _finding(item: object, where: str) -> dict:
    if isinstance(item, str):
        raise VerdictError(f"{where}: expected an object with {', '.join(FINDING_KEYS)}, got a string")
    if not isinstance(item, dict):
        raise VerdictError(f"{where}: expected an object, got {type(item).__name__}")
    sev = _text(item.get("severity"), f"{where}.severity").lower() or "medium"
    sev = SEVERITY_ALIASES.get(sev, sev)
    if sev not in SEVERITIES:
        raise VerdictError(f"{where}.severity: expected one of {list(SEVERITIES)}, got {item.get('severity')!r}")
    return {
        "file": _text(item.get("file"), f"{where}.file"),
        "line": _line(item.get("line"), where),
        "severity": sev,
        "claim": _text(item.get("claim"), f"{where}.claim"),
        "evidence": _text(item.get("evidence"), f"{where}.evidence"),
    }


def concrete(finding: dict) -> bool:
    """A finding a person could check: it names a file, says what is wrong and shows it."""
    return bool(finding.get("file") and finding.get("claim") and finding.get("evidence"))


def _check_keys(obj: dict) -> list[str]:
    ignored = []
    for key in obj:
        if key in KNOWN_KEYS:
            continue
        near = difflib.get_close_matches(key.lower(), KNOWN_KEYS, n=1, cutoff=0.75)
        if near:  # a misspelt `findings` would silently drop the evidence of a block
            raise VerdictError(f"unknown field {key!r} (did you mean {near[0]!r}?)")
        ignored.append(key)
    return ignored


def parse(text: str) -> dict:
    """The verdict in a reviewer's text answer, normalised; raises VerdictError with the reason."""
    if text is None or not text.strip():
        raise VerdictError("empty output")
    if len(text) > MAX_OUTPUT_CHARS:
        raise VerdictError(f"output too large ({len(text)} characters, limit {MAX_OUTPUT_CHARS})")
    objs = _objects(text)
    verdicts = [o for o in objs if "verdict" in o]
    if not verdicts:
        if objs:
            keys = sorted({k for o in objs for k in o})[:10]
            raise VerdictError(f"JSON without a `verdict` field (keys: {', '.join(keys)})")
        if "{" in text:
            raise VerdictError("truncated or invalid JSON: no complete object in the output")
        raise VerdictError("no JSON verdict in the output (prose only)")
    said = {str(o.get("verdict")).strip().lower() for o in verdicts}
    if len(said) > 1:
        raise VerdictError(f"conflicting verdicts in one answer: {', '.join(sorted(said))}")
    obj = verdicts[-1]
    ignored = _check_keys(obj)
    verdict = str(obj["verdict"]).strip().lower()
    if verdict not in ("pass", "block"):
        raise VerdictError(f"field verdict: expected 'pass' or 'block', got {obj['verdict']!r}")
    raw_findings = obj.get("findings", [])
    if raw_findings is None:
        raw_findings = []
    if not isinstance(raw_findings, list):
        raise VerdictError(f"field findings: expected a list, got {type(raw_findings).__name__}")
    findings = [_finding(f, f"findings[{i}]") for i, f in enumerate(raw_findings)]
    cost = obj.get("cost_usd", 0.0)
    if not isinstance(cost, (int, float)) or isinstance(cost, bool) or cost < 0:
        raise VerdictError(f"field cost_usd: expected a non-negative number, got {cost!r}")
    return {
        "verdict": verdict,
        "findings": findings,
        "summary": _text(obj.get("summary"), "summary"),
        "cost_usd": float(cost),
        "ignored_keys": ignored,
    }


def from_text(reviewer: str, text: str, *, require_evidence: bool, **meta) -> ReviewResult:
    """A ReviewResult from a reviewer's text answer (errors included); `meta` fills cost, usage, ..."""
    tail = (text or "")[-1500:]
    try:
        v = parse(text)
    except VerdictError as e:
        return ReviewResult(reviewer, "error", error=str(e), raw_tail=tail, **meta)
    cost = meta.pop("cost_usd", 0.0) or v["cost_usd"]
    no_evidence = v["verdict"] == "block" and require_evidence and not any(concrete(f) for f in v["findings"])
    return ReviewResult(reviewer, v["verdict"], v["findings"], v["summary"], no_evidence=no_evidence,
                        cost_usd=cost, ignored_keys=v["ignored_keys"], raw_tail=tail, **meta)


def error(reviewer: str, why: str, raw: str = "", **meta) -> ReviewResult:
    return ReviewResult(reviewer, "error", error=why, raw_tail=raw[-1500:], **meta)
