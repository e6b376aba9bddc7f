"""Gate configuration (`configs/<name>.yaml`) and the resolved JSON the hook reads."""

from __future__ import annotations

import fnmatch
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from gatebench.common.defaults import (
    BLOCKS,
    CLAUDE_BLOCK_CAP,
    DEFAULT_IGNORE,
    DEFAULT_PROTECTED,
    DEFAULT_SELF_CHECK,
    DEFAULT_STRAY,
    HOOK_SECONDS,
    REASON_CHARS,
    REASON_CHARS_MAX,
    REVIEW_TIMEOUT_S,
    TESTS_FEEDBACK_CHARS,
    TESTS_TIMEOUT_S,
)
from gatebench.models.reviewer import ReviewerDef


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def check_globs(globs: list[str]) -> list[str]:
    for g in globs:
        if not g or g.strip() != g:
            raise ValueError(f"bad glob {g!r}: empty or padded with spaces")
        if g.startswith("/"):
            raise ValueError(f"bad glob {g!r}: globs are relative to the repo root")
        if g.count("[") != g.count("]"):
            raise ValueError(f"bad glob {g!r}: unbalanced brackets")
        try:
            fnmatch.translate(g)
        except Exception as e:  # pragma: no cover - translate rarely raises
            raise ValueError(f"bad glob {g!r}: {e}") from e
    return globs


class DiffGate(Strict):
    kind: Literal["diff"]
    name: str = "diff"
    block_noop: bool = Field(True, description="block a stop when nothing in the repo changed")
    block_protected: bool = Field(True, description="block a stop when protected paths were touched")
    block_stray: bool = Field(False, description="block a stop when stray files (*.orig, *.rej, ~) exist")


class TestsGate(Strict):
    kind: Literal["tests"]
    name: str = "tests"
    command: str | None = Field(
        None, description="shell command; {python} is this interpreter. None: the task's visible test command"
    )
    timeout_s: float = Field(TESTS_TIMEOUT_S, gt=0, le=3600)
    pristine: bool = Field(True, description="run protected files (tests) as they were in the snapshot")
    feedback_chars: int = Field(TESTS_FEEDBACK_CHARS, ge=200, le=REASON_CHARS_MAX)


class SelfCheckGate(Strict):
    kind: Literal["self_check"]
    name: str = "self_check"
    text: str = DEFAULT_SELF_CHECK


class ReviewGate(Strict):
    kind: Literal["review"]
    name: str = "review"
    reviewers: list[str] = Field(min_length=1)
    vote: Literal["any", "majority", "all"] = "any"
    timeout_s: float = Field(REVIEW_TIMEOUT_S, gt=0, le=3600)
    on_no_evidence: Literal["block", "pass"] = Field(
        "pass", description="what a block with no concrete finding counts as, for reviewers with require_evidence"
    )


class CommandGate(Strict):
    """Any Claude Code Stop hook command, run unchanged and read by Claude Code's rules (section 6)."""

    kind: Literal["command"]
    name: str = "command"
    command: str = Field(min_length=1, description="the hook's shell command, as in settings.json; "
                         "{python} = the bench's interpreter, {gatebench} = this checkout")
    timeout_s: float = Field(60, gt=0, le=3600)
    max_output_chars: int = Field(10000, ge=100, le=1_000_000,
                                  description="stdout or stderr longer than this is an error (Claude Code caps hook output)")

    @field_validator("command")
    @classmethod
    def not_blank(cls, command: str) -> str:
        if not command.strip():
            raise ValueError("the command is blank")
        return command


class OracleGate(Strict):
    kind: Literal["oracle"]
    name: str = "oracle"


Gate = Annotated[DiffGate | TestsGate | SelfCheckGate | ReviewGate | CommandGate | OracleGate,
                 Field(discriminator="kind")]


class Budget(Strict):
    blocks: int = Field(BLOCKS, ge=0, lt=CLAUDE_BLOCK_CAP, description="blocks per session prompt before give_up")
    hook_seconds: float = Field(HOOK_SECONDS, gt=0, le=3600, description="wall budget for one stop attempt, all gates")


class GateConfig(Strict):
    """A gate configuration: which gates run, in order, with what budgets."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.+-]+$")
    description: str = ""
    gates: list[Gate] = Field(default_factory=list)
    budget: Budget = Field(default_factory=Budget)
    on_error: Literal["open", "closed"] = Field("open", description="a gate error allows (open) or blocks (closed)")
    short_circuit: bool = Field(True, description="skip later gates once one blocks")
    protected: list[str] = Field(default_factory=lambda: list(DEFAULT_PROTECTED))
    ignore: list[str] = Field(default_factory=list, description="globs the snapshot never looks at")
    stray: list[str] = Field(default_factory=lambda: list(DEFAULT_STRAY))
    reason_chars: int = Field(REASON_CHARS, ge=200, le=REASON_CHARS_MAX)
    honest_exit: bool = Field(False, description="the honest exit: block reasons say how to report a test that "
                              "contradicts the request (a `CONTRADICTING TEST:` line in the last message, or the note "
                              "file CONTRADICTING_TESTS.md), and a stop that does so is allowed, the claim logged and "
                              "the user told which test (hook/honest.py)")

    _globs = field_validator("protected", "ignore", "stray")(check_globs)

    @field_validator("gates")
    @classmethod
    def unique_names(cls, gates: list) -> list:
        names = [g.name for g in gates]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"gate names must be unique; repeated: {sorted(dup)}")
        return gates


class TaskBinding(Strict):
    """What the hook needs of a bench task."""

    id: str
    prompt: str
    test_command: str
    test_timeout_s: float


class OracleBinding(Strict):
    hidden_dir: str
    command: str
    dest: str
    timeout_s: float
    baseline_dir: str | None = Field(None, description="the task's pristine repo: its test harness is the oracle's")
    reference_dir: str | None = Field(None, description="the task's reference, laid over `baseline_dir`: the "
                                      "trusted tree a control run proves an oracle error on (SPEC section 8)")
    expected: list[str] = Field(default_factory=list, description="hidden test ids that decide `solved`")
    sandbox: Literal["required", "auto", "off"] = Field(
        "required", description="run the hidden tests in bubblewrap; `required` refuses to run without it")
    layout: Literal["dest", "original"] = "dest"
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    canaries: dict = Field(default_factory=lambda: {"exclude": []}, description="the oracle's canaries "
                           "(oracle/canaries.py: lay): `exclude`, the task's expected tests that run without a twin")


class ResolvedConfig(Strict):
    """`<state>/config.json`: everything the stdlib hook reads, validated once by the runner."""

    schema_: Literal["gatebench.resolved/1"] = Field("gatebench.resolved/1", alias="schema")
    mode: Literal["installed", "bench"]
    repo: str
    state_dir: str
    python: str
    config: GateConfig
    config_hash: str
    task: TaskBinding | None = None
    oracle: OracleBinding | None = None
    protected: list[str] = Field(default_factory=lambda: list(DEFAULT_PROTECTED))
    ignore: list[str] = Field(default_factory=lambda: list(DEFAULT_IGNORE))
    reviewers: dict[str, ReviewerDef] = Field(
        default_factory=dict, description="every reviewer a review gate names, resolved from configs/reviewers/"
    )
    private: list[str] = Field(
        default_factory=list, description="bench mode: more folders a block reason never names (shown as <private>)"
    )
    free_tests: list[str] = Field(
        default_factory=list, description="bench mode: visible test ids (path::name) the agent may rewrite: the fix "
        "makes them stale (the task's `stale_tests`, and the tests the fix changed in a file the oracle lays over)")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
