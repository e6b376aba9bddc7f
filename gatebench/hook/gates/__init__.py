"""Gates: one small Protocol, one registry (stdlib only).

A gate reads a GateContext (the repo, the diff against the baseline, the task, the time left) and
returns a Verdict. Gates never raise on the agent's mistakes: a failing test is a `block`, while a
gate that cannot do its job (missing command, crash, timeout of its own machinery) is an `error`,
which the decision rule turns into allow or block on purpose (`on_error`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from gatebench.hook.snapshot import Diff, Manifest

VerdictKind = Literal["pass", "block", "error", "skipped"]


@dataclass
class Verdict:
    verdict: VerdictKind
    feedback: str = ""  # what the agent reads if this gate blocks
    details: dict = field(default_factory=dict)  # for the event log only
    seconds: float = 0.0
    cost_usd: float = 0.0


@dataclass
class GateContext:
    repo: str
    state_dir: str
    blob_dir: str
    baseline: Manifest
    now: Manifest
    diff: Diff
    protected_touched: list[str]
    stray: list[str]
    resolved: dict  # the resolved config JSON (see ResolvedConfig)
    session: dict  # this session's mutable state (attempts, blocks, gates' own memory)
    attempt: int
    last_message: str
    deadline: float  # time.monotonic() by which the whole hook must be done
    oracle: dict | None = None  # this stop's hidden-oracle result, bench mode only

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    @property
    def python(self) -> str:
        return self.resolved.get("python") or "python3"

    @property
    def task(self) -> dict | None:
        return self.resolved.get("task")


class Gate(Protocol):
    def __call__(self, spec: dict, ctx: GateContext) -> Verdict: ...


def _registry() -> dict[str, Callable[[dict, GateContext], Verdict]]:
    from gatebench.hook.gates import diff, oracle, self_check, tests

    return {
        "diff": diff.run,
        "tests": tests.run,
        "self_check": self_check.run,
        "oracle": oracle.run,
    }


GATES = _registry()
