"""Gates as classifiers of the hidden oracle, scored at every stop attempt.

Positive = the gate blocks; truth positive = the oracle fails at that stop. A verdict counts only
where the oracle ran at that stop; error and skipped verdicts are counted apart.
"""

from __future__ import annotations

from collections import defaultdict

from gatebench.analyze.load import Run
from gatebench.analyze.metrics import ratio
from gatebench.models.analysis import GateStats

ANY = "(any)"


WRONG_FIX_KINDS = {"plausible": "plausible", "partial": "plausible", "crude": "crude"}


def wrong_fix_kind(state: str | None) -> str | None:
    """"plausible" or "crude" for a sim stop on such an injection (its name starts with its kind), else None."""
    if not state or not state.startswith("inject:"):
        return None
    return WRONG_FIX_KINDS.get(state[7:].split("_", 1)[0])


class _Tally:
    __slots__ = ("by_fix", "errors", "fn", "fp", "kind", "no_oracle", "skipped", "tn", "tp")

    def __init__(self, kind: str):
        self.kind = kind
        self.tp = self.fp = self.fn = self.tn = self.errors = self.skipped = self.no_oracle = 0
        self.by_fix: dict[str, list[int]] = {"plausible": [0, 0], "crude": [0, 0]}  # [blocked, passed]

    def add_fix(self, fix: str | None, verdict: str, oracle: bool | None) -> None:
        if fix and oracle is False and verdict in ("block", "pass"):
            self.by_fix[fix][0 if verdict == "block" else 1] += 1

    def recall_of(self, fix: str, confidence: float):
        tp, fn = self.by_fix[fix]
        return ratio(tp, tp + fn, confidence) if tp + fn else None

    def add(self, verdict: str, oracle: bool | None) -> None:
        if verdict == "error":
            self.errors += 1
        elif verdict == "skipped":
            self.skipped += 1
        elif oracle is None:
            self.no_oracle += 1
        elif verdict == "block":
            if oracle:
                self.fp += 1
            else:
                self.tp += 1
        elif oracle:
            self.tn += 1
        else:
            self.fn += 1


def gate_stats(runs: list[Run], confidence: float) -> list[GateStats]:
    """One row per (config, gate), plus an '(any)' row per config with two or more gates."""
    tallies: dict[tuple[str, str], _Tally] = {}
    order: dict[str, list[str]] = defaultdict(list)
    multi: set[str] = set()
    for r in runs:
        for i, (oracle, _decision, gates) in enumerate(r.stops):
            if not gates:
                continue
            fix = wrong_fix_kind(r.stop_states[i] if i < len(r.stop_states) else None)
            if len(gates) > 1:
                multi.add(r.config)
            any_block = any_pass = False
            for name, kind, verdict in gates:
                key = (r.config, name)
                t = tallies.get(key)
                if t is None:
                    t = tallies[key] = _Tally(kind)
                    order[r.config].append(name)
                t.add(verdict, oracle)
                t.add_fix(fix, verdict, oracle)
                any_block = any_block or verdict == "block"
                any_pass = any_pass or verdict == "pass"
            key = (r.config, ANY)
            t = tallies.get(key)
            if t is None:
                t = tallies[key] = _Tally("any")
            # The stop as a whole: blocked if any gate blocked; passed if none blocked and one passed.
            t.add("block" if any_block else ("pass" if any_pass else "error"), oracle)
            t.add_fix(fix, "block" if any_block else ("pass" if any_pass else "error"), oracle)
    out = []
    pretool = pretool_stats(runs, confidence)
    for config in sorted(order | pretool.keys()):
        names = order[config] + ([ANY] if config in multi else [])
        for name in names:
            t = tallies[(config, name)]
            out.append(
                GateStats(
                    config=config,
                    gate=name,
                    kind=t.kind,
                    verdicts=t.tp + t.fp + t.fn + t.tn,
                    tp=t.tp, fp=t.fp, fn=t.fn, tn=t.tn,
                    errors=t.errors, skipped=t.skipped, no_oracle=t.no_oracle,
                    precision=ratio(t.tp, t.tp + t.fp, confidence),
                    recall=ratio(t.tp, t.tp + t.fn, confidence),
                    false_block_rate=ratio(t.fp, t.fp + t.tn, confidence),
                    recall_plausible=t.recall_of("plausible", confidence), recall_crude=t.recall_of("crude", confidence),
                )
            )
        if config in pretool:
            out.append(pretool[config])
    return out


def pretool_stats(runs: list[Run], confidence: float) -> dict[str, GateStats]:
    """One `pretool` row per config whose runs a PreToolUse hook (a plugin arm) denied tool calls in.

    A denial refuses an action while the agent works, not a delivered state: no oracle judges that moment,
    so denials are counted (as no_oracle verdicts, with the runs they fell in and their reasons) and never
    scored as TP/FP. What they bought shows in the arm's solve rate and Δ. A decision whose reason is the
    plugin failing (plugin_error: its validator erroring, timing out, answering unparseably) is no denial:
    counted apart, in `plugin_errors`, and flagged in the table.
    """
    from collections import Counter

    counts: dict[str, Counter] = defaultdict(Counter)
    errors: dict[str, Counter] = defaultdict(Counter)
    denied_runs: dict[str, int] = defaultdict(int)
    for r in runs:
        # a Stop-hook block that was the plugin failing counts with its PreToolUse errors (arms.stop_blocks)
        errors[r.config].update(f"(Stop) {why}" for why in r.plugin_stop_errors)
        if not r.pretool:
            continue
        real = [x[1] for x in r.pretool if not (len(x) > 2 and x[2])]
        denied_runs[r.config] += 1 if real else 0
        counts[r.config].update(real)
        errors[r.config].update(x[1] for x in r.pretool if len(x) > 2 and x[2])
    out = {}
    for config in sorted(counts.keys() | {c for c, v in errors.items() if v}):
        n, e = sum(counts[config].values()), sum(errors[config].values())
        out[config] = GateStats(
            config=config, gate="PreToolUse", kind="pretool", verdicts=0, tp=0, fp=0, fn=0, tn=0, errors=e,
            skipped=0, no_oracle=n, precision=ratio(0, 0, confidence), recall=ratio(0, 0, confidence),
            false_block_rate=ratio(0, 0, confidence), denials=n, denied_runs=denied_runs[config], plugin_errors=e,
            reasons=[f"{c}x {why}" for why, c in counts[config].most_common(3)],
            error_reasons=[f"{c}x {why[:160]}" for why, c in errors[config].most_common(3)])
    return out
