"""Gates: one small Protocol, one registry (stdlib only).

A gate reads a GateContext (the repo, the diff against the baseline, the task, the time left) and
returns a Verdict. Gates never raise on the agent's mistakes: a failing test is a `block`, while a
gate that cannot do its job (missing command, crash, timeout of its own machinery) is an `error`,
which the decision rule turns into allow or block on purpose (`on_error`).
"""

from __future__ import annotations

import time

TYPE_CHECKING = False  # importing typing costs ~10 ms at every stop; only type checkers need it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from gatebench.oracle.control import Controls
    from gatebench.oracle.harness import Baseline
    from gatebench.tree.snapshot import Diff

    class Gate(Protocol):
        """A gate is a module with `run(spec, ctx) -> Verdict`; `spec` is its entry in the config."""

        def __call__(self, spec: dict, ctx: GateContext) -> Verdict: ...


VERDICTS = ("pass", "block", "error", "skipped")


class Verdict:
    """A gate's answer. `feedback` is what the agent reads if it blocks; `details` go to the log only."""

    __slots__ = ("cost_usd", "details", "feedback", "seconds", "verdict")

    def __init__(self, verdict: str, feedback: str = "", details: dict | None = None, seconds: float = 0.0,
                 cost_usd: float = 0.0):
        assert verdict in VERDICTS, verdict
        self.verdict = verdict
        self.feedback = feedback
        self.details = details if details is not None else {}
        self.seconds = seconds
        self.cost_usd = cost_usd

    def __repr__(self) -> str:
        return f"Verdict({self.verdict!r}, {self.feedback[:40]!r})"


class GateContext:
    """What every gate may read: the repo, the diff against the baseline, the task, the time left."""

    def __init__(self, *, repo: str, state_dir: str, blob_dir: str, baseline: dict, now: dict, diff: Diff,
                 protected_touched: list[str], stray: list[str], resolved: dict, session: dict, attempt: int,
                 last_message: str, deadline: float, oracle: dict | None = None,
                 transcript_path: str | None = None, hook_stdin: str = "", honest_claim: dict | None = None,
                 harness: Baseline | None = None, weakened: list[dict] | None = None,
                 controls: Controls | None = None):
        self.repo = repo
        self.state_dir = state_dir
        self.blob_dir = blob_dir
        self.baseline = baseline
        self.now = now
        self.diff = diff
        self.protected_touched = protected_touched
        self.weakened = weakened or []  # bench mode: weakenings of protected test modules (testguard/benchtests.py)
        self.stray = stray
        self.resolved = resolved  # the resolved config JSON (ResolvedConfig)
        self.session = session  # this session prompt's mutable state; gates may keep memory in it
        self.attempt = attempt
        self.last_message = last_message
        self.deadline = deadline  # time.monotonic() by which the whole hook must be done
        self.oracle = oracle  # this stop's hidden-oracle result, bench mode only
        self.transcript_path = transcript_path  # Claude Code's session transcript (it lags the hook)
        self.hook_stdin = hook_stdin  # the Stop input exactly as Claude Code sent it (command gates pass it on)
        self.honest_claim = honest_claim  # honest exit on: the agent's claim that tests contradict the request
        self.harness = harness  # bench mode: the task's baseline harness, built once per stop (oracle and tests gate)
        self.controls = controls  # bench mode: the stop's control runs on the task's trusted trees (oracle/control.py)
        self.results: dict[str, tuple[str, Verdict]] = {}  # gate name -> (kind, verdict), earlier gates of this stop

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    @property
    def python(self) -> str:
        return self.resolved.get("python") or "python3"

    @property
    def task(self) -> dict | None:
        return self.resolved.get("task")


# kind -> module with `run(spec, ctx) -> Verdict`. Imported only when a config uses the gate, so a
# stop with a cheap config never pays for subprocess, tempfile or a reviewer backend.
GATES: dict[str, str] = {
    "diff": "gatebench.hook.gates.diff",
    "tests": "gatebench.hook.gates.tests",
    "self_check": "gatebench.hook.gates.self_check",
    "oracle": "gatebench.hook.gates.oracle",
    "review": "gatebench.review.gate",
    "command": "gatebench.hook.gates.command",
}


def get_gate(kind: str) -> Callable[[dict, GateContext], Verdict] | None:
    mod = GATES.get(kind)
    if not mod:
        return None
    import importlib  # here, not at the top: a stop with no gate never loads one (importlib pulls in warnings)

    return importlib.import_module(mod).run
