"""One line of a state dir's `events.jsonl`, as the stdlib hook writes it.

The hook builds these lines as plain dicts (it must not import pydantic); this model is the
documented format, and a test validates the hook's real output against it so the two stay one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class DiffCounts(Open):
    created: int
    changed: int
    deleted: int


class DiffSummary(Open):
    created: list[str]
    changed: list[str]
    deleted: list[str]
    counts: DiffCounts
    no_change: bool
    protected_touched: list[str]
    stray: list[str]


class GateEvent(Open):
    name: str
    kind: str
    verdict: Literal["pass", "block", "error", "skipped"]
    feedback: str = ""
    details: dict = Field(default_factory=dict)
    seconds: float
    cost_usd: float = 0.0


class OracleEvent(Open):
    solved: bool
    passed: int
    failed: int
    errors: int
    skipped: int
    failing: list[str]
    error: str | None
    seconds: float


class HookEvent(Open):
    v: Literal[1]
    hook: Literal["stop", "session_start", "session-start"]
    ts: str | None = None
    gatebench: str | None = None
    session_id: str | None = None
    prompt_id: str | None = None
    attempt: int | None = Field(None, description="stop attempts in this session prompt, 1-based")
    stop_hook_active: bool | None = None
    last_assistant_message: str | None = None
    config: str | None = None
    config_hash: str | None = None
    mode: Literal["installed", "bench"] | None = None
    diff: DiffSummary | None = None
    snapshot: dict | None = None
    oracle: OracleEvent | None = Field(None, description="hidden oracle at this stop (bench mode); never shown")
    gates: list[GateEvent] = Field(default_factory=list)
    honest_exit: dict | None = Field(None, description="the agent's claim that tests contradict the request (config "
                                     "honest_exit on): {tests, words, via, let_through, error?}")
    decision: Literal["allow", "block", "give_up"] | None = None
    reason: str | None = Field(None, description="the exact text sent to the agent on a block")
    system_message: str | None = None
    blocks: int | None = Field(None, description="blocks so far in this session prompt, this one included")
    errors: list[str] = Field(default_factory=list)
    seconds: float | None = None
