"""A panel of reviewers: run them in parallel under one time budget, vote, and write the feedback.

Stdlib only (the review gate calls it inside the hook; `gatebench review` calls it by hand, so both
go through exactly the same path).

Vote rules over the panel's n reviewers, where a block without concrete evidence (require_evidence)
counts as `on_no_evidence` says:
  any       block if at least one reviewer blocks
  majority  block if more than n/2 block
  all       block if all n block
An `error` reviewer never decides silently: the panel's verdict is what the rule gives whether the
errored reviewers would have passed or blocked; if that differs, the panel verdict is `error`.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from gatebench.common import defaults
from gatebench.common.text import trim
from gatebench.review.backends import ReviewJob, get_backend, reviewer_env
from gatebench.review.prompt import ReviewInputs, build_prompt
from gatebench.review.sandbox import read_only_copy, remove_copy
from gatebench.review.verdict import ReviewResult, error

SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}


@dataclass
class PanelOutcome:
    verdict: str  # pass | block | error
    results: list[ReviewResult]
    effective: dict[str, str]  # reviewer -> pass | block | error after the evidence rule
    findings: list[dict]  # de-duplicated findings of the blocking reviewers
    feedback: str
    error: str | None = None
    seconds: float = 0.0
    details: dict = field(default_factory=dict)

    @property
    def cost_usd(self) -> float:
        return sum(r.cost_usd for r in self.results)


def effective(r: ReviewResult, on_no_evidence: str) -> str:
    if r.verdict == "block" and r.no_evidence:
        return "block" if on_no_evidence == "block" else "pass"
    return r.verdict


def _rule(blocks: int, n: int, vote: str) -> bool:
    if vote == "any":
        return blocks >= 1
    if vote == "majority":
        return blocks * 2 > n
    if vote == "all":
        return n > 0 and blocks == n
    raise ValueError(f"unknown vote rule {vote!r}")


def tally(verdicts: list[str], vote: str) -> str:
    """The panel verdict from each reviewer's effective verdict (see the module doc)."""
    n = len(verdicts)
    blocks = verdicts.count("block")
    errors = verdicts.count("error")
    if n == 0:
        return "error"
    if errors == n:
        return "error"
    low, high = _rule(blocks, n, vote), _rule(blocks + errors, n, vote)
    if low == high:
        return "block" if low else "pass"
    return "error"


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()[:80]


def dedupe(results: list[ReviewResult], eff: Mapping[str, str]) -> list[dict]:
    """Findings of the reviewers that count as blocking, merged when file, line and claim agree."""
    merged: dict[tuple, dict] = {}
    for r in results:
        if eff.get(r.reviewer) != "block":
            continue
        for f in r.findings:
            key = (f.get("file"), f.get("line"), _norm(f.get("claim", "")))
            if key in merged:
                if r.reviewer not in merged[key]["reviewers"]:
                    merged[key]["reviewers"].append(r.reviewer)
                if len(f.get("evidence", "")) > len(merged[key].get("evidence", "")):
                    merged[key]["evidence"] = f["evidence"]
            else:
                merged[key] = {**f, "reviewers": [r.reviewer]}
    return sorted(merged.values(),
                  key=lambda f: (SEVERITY_ORDER.get(f["severity"], 1), -len(f["reviewers"]), f["file"] or ""))


def finding_line(f: dict) -> str:
    where = f["file"] or "(no file)"
    if f.get("line"):
        where += f":{f['line']}"
    line = f"- [{f['severity']}] {where}: {f['claim'] or '(no claim)'}"
    if f.get("evidence"):
        line += f" Evidence: {f['evidence']}"
    return line + f" ({', '.join(f['reviewers'])})"


def build_feedback(results: list[ReviewResult], eff: Mapping[str, str], findings: list[dict], limit: int) -> str:
    """What the agent reads: the findings first, most severe first, within `limit` characters."""
    blockers = [r for r in results if eff.get(r.reviewer) == "block"]
    if not blockers:
        return ""
    head = f"Reviewer{'s' if len(blockers) > 1 else ''} {', '.join(r.reviewer for r in blockers)} found problems:\n"
    lines: list[str] = []
    used = len(head)
    for i, f in enumerate(findings):
        ln = trim(finding_line(f), max(limit // 3, 200))
        if used + len(ln) + 60 > limit:
            lines.append(f"[... {len(findings) - i} more finding(s) not shown]")
            break
        lines.append(ln)
        used += len(ln) + 1
    for r in blockers:
        if r.no_evidence:
            lines.append(f"{r.reviewer} objects without a concrete finding: {r.summary or '(no summary)'}")
        elif r.summary and used + len(r.summary) + 40 < limit:
            lines.append(f"{r.reviewer}: {r.summary}")
            used += len(r.summary) + 40
    return trim(head + "\n".join(lines), limit)


def run_panel(
    defs: Mapping[str, dict],
    inputs: ReviewInputs,
    *,
    repo: str,
    paths: list[str],
    vote: str,
    budget_s: float,
    on_no_evidence: str,
    python: str,
    base_env: Mapping[str, str] | None = None,
    log_dir: str | None = None,
    feedback_chars: int = defaults.REASON_CHARS,
    backends: Mapping[str, Callable[[ReviewJob], ReviewResult]] | None = None,
) -> PanelOutcome:
    """Run every reviewer in `defs` (name -> ReviewerDef as plain data) in parallel, then vote.

    Each reviewer gets min(its own timeout, the panel budget); all share one read-only copy of the
    `paths` of `repo`, which is removed afterwards.
    """
    t0 = time.monotonic()
    env = reviewer_env(os.environ if base_env is None else base_env)
    workdir = read_only_copy(repo, paths, deadline=t0 + budget_s)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    jobs = []
    for key, spec in defs.items():
        name = spec.get("name") or key  # a config may name a reviewer by its file path
        log = os.path.join(log_dir, f"{stamp}-{os.getpid()}-{name}.out") if log_dir else None
        prompt = build_prompt(name, spec["prompt"], inputs, int(spec.get("diff_chars", defaults.REVIEWER_DIFF_CHARS)))
        timeout = max(min(float(spec.get("timeout_s", defaults.REVIEWER_TIMEOUT_S)), budget_s), 0.1)
        jobs.append(ReviewJob(name, spec, prompt, inputs, workdir, timeout, env, python, log))

    def one(job: ReviewJob) -> ReviewResult:
        kind = job.spec.get("backend", "claude")
        fn = get_backend(kind) if backends is None else backends.get(kind)
        if fn is None:
            return error(job.name, f"unknown backend {job.spec.get('backend')!r}")
        try:
            return fn(job)
        except Exception as e:  # a backend bug is this reviewer's error, not the whole panel's crash
            return error(job.name, f"backend crashed: {type(e).__name__}: {e}")

    try:
        with ThreadPoolExecutor(max_workers=max(len(jobs), 1)) as pool:
            results = list(pool.map(one, jobs))
    finally:
        remove_copy(workdir)
    eff = {r.reviewer: effective(r, on_no_evidence) for r in results}
    verdict = tally(list(eff.values()), vote)
    findings = dedupe(results, eff)
    feedback = build_feedback(results, eff, findings, feedback_chars) if verdict == "block" else ""
    errors = [f"{r.reviewer}: {r.error}" for r in results if r.verdict == "error"]
    why = None
    if verdict == "error":
        why = "; ".join(errors) if errors else "no reviewer gave a verdict"
        if len(errors) < len(results):
            why = f"the vote ({vote}) depends on reviewers that failed: {why}"
    outcome = PanelOutcome(verdict, results, eff, findings, feedback, why, round(time.monotonic() - t0, 3))
    outcome.details = {
        "vote": vote,
        "reviewers": [{**r.to_dict(), "effective": eff[r.reviewer]} for r in results],
        "findings": findings,
        "cost_usd": outcome.cost_usd,
    }
    if why:
        outcome.details["error"] = why
    return outcome
