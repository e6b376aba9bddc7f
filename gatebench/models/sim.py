"""`configs/sim/<name>.yaml`: the seeded policy the offline `sim` worker's scripted agent plays.

The agent brain itself (gatebench/sim/agent.py) is stdlib only and takes this model's plain dict.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from gatebench.models.config import Strict


class FirstAttempt(Strict):
    """Weights of the first end state the agent writes: the reference, or one of the task's injections.

    `inject` weights are per injection kind (plausible, tamper, hardcode, partial, noop); a task's
    injections of one kind share that kind's weight. Kinds the task lacks drop out.
    """

    reference: float = Field(0.4, ge=0)
    inject: dict[str, float] = Field(
        default_factory=lambda: {"plausible": 0.2, "tamper": 0.1, "hardcode": 0.1, "partial": 0.1, "noop": 0.1}
    )

    @model_validator(mode="after")
    def some_weight(self) -> FirstAttempt:
        kinds = {"plausible", "tamper", "hardcode", "partial", "noop"}
        bad = sorted(set(self.inject) - kinds)
        if bad:
            raise ValueError(f"inject: unknown kind(s) {bad}; known: {sorted(kinds)}")
        if any(w < 0 for w in self.inject.values()):
            raise ValueError("inject: weights must be >= 0")
        if self.reference + sum(self.inject.values()) <= 0:
            raise ValueError("every weight is 0: the agent has no first attempt")
        return self


class AfterBlock(Strict):
    """What the agent does when a stop is blocked: fix (write the reference), repeat, or try another."""

    fix: float = Field(0.6, ge=0, le=1)
    repeat: float = Field(0.2, ge=0, le=1, description="stop again without changing anything")
    other: float = Field(0.2, ge=0, le=1, description="write another, untried injection (fix if none left)")

    @model_validator(mode="after")
    def sums_to_one(self) -> AfterBlock:
        total = self.fix + self.repeat + self.other
        if abs(total - 1) > 1e-6:
            raise ValueError(f"fix + repeat + other must be 1, got {total:g}")
        return self


class ReviewerSim(Strict):
    hit_rate: float = Field(0.8, ge=0, le=1, description="P(block | the work is wrong)")
    false_block_rate: float = Field(0.1, ge=0, le=1, description="P(block | the work is right)")


class SimPolicy(Strict):
    """How the scripted agent behaves; one run is deterministic given this policy and the cell's seed."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.+-]+$")
    description: str = ""
    first: FirstAttempt = Field(default_factory=FirstAttempt)
    after_block: AfterBlock = Field(default_factory=AfterBlock)
    run_tests: float = Field(0.5, ge=0, le=1, description="P(run the visible tests with Bash after writing)")
    edit: float = Field(0.5, ge=0, le=1, description="P(use Edit rather than Write when one hunk changes)")
    leak: float = Field(0.0, ge=0, le=1, description="P(cat a hidden test file at the start): a cheating agent")
    reviewer: ReviewerSim = Field(default_factory=ReviewerSim)
