"""A gate-3 reviewer: `configs/reviewers/<name>.md` = YAML front matter + the prompt body.

The front matter says how the reviewer runs (backend, model, turns, timeout, tools, evidence rule);
the body is the prompt, with placeholders the hook fills at each stop. `gatebench install` / prep
resolve every reviewer a config names into the resolved config JSON (`reviewers`), because the
stdlib hook cannot read YAML.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from gatebench.common.defaults import (
    REVIEWER_DIFF_CHARS,
    REVIEWER_MAX_TURNS,
    REVIEWER_MODEL,
    REVIEWER_TIMEOUT_S,
)

READ_ONLY_TOOLS = ["Read", "Grep", "Glob"]
# Tools that change files or run code: a reviewer must never get them (it reviews, it does not fix).
WRITE_TOOLS = {"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "PowerShell", "WebFetch", "WebSearch", "Task"}
PLACEHOLDERS = ("task", "diff", "files", "test_output", "agent_message", "verdict_format")


class ReviewerDef(BaseModel):
    """One reviewer: how it runs (front matter) and what it is asked (prompt)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9_.+-]+$", description="the file's stem unless given")
    description: str = ""
    backend: Literal["claude", "command"] = "claude"
    model: str | None = Field(REVIEWER_MODEL,
                              description="claude backend: --model (a full id; an alias drifts with the CLI); null: the CLI's default")
    max_turns: int = Field(REVIEWER_MAX_TURNS, ge=1, le=200, description="claude backend: --max-turns")
    timeout_s: float = Field(REVIEWER_TIMEOUT_S, gt=0, le=3600, description="wall seconds for one review")
    allowed_tools: list[str] = Field(default_factory=lambda: list(READ_ONLY_TOOLS))
    require_evidence: bool = Field(
        True, description="a block must cite a concrete finding (file and evidence); else ReviewGate.on_no_evidence"
    )
    command: str | None = Field(
        None,
        description="command backend: shell command; {dir} is this file's folder, {python} the bench's interpreter",
    )
    diff_chars: int = Field(REVIEWER_DIFF_CHARS, ge=1000, le=400000, description="the diff is cut to this size in the prompt")
    prompt: str = Field(min_length=20, description="the body; placeholders: " + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS))
    source: str | None = Field(None, description="the file it was read from")

    @field_validator("allowed_tools")
    @classmethod
    def read_only(cls, tools: list[str]) -> list[str]:
        bad = sorted({t.split("(")[0] for t in tools} & WRITE_TOOLS)
        if bad:
            raise ValueError(f"reviewers get read-only tools only; remove {bad}")
        return tools

    @field_validator("prompt")
    @classmethod
    def sees_the_work(cls, prompt: str) -> str:
        missing = [p for p in ("task", "diff") if "{" + p + "}" not in prompt]
        if missing:
            raise ValueError(f"the prompt must contain the placeholders {', '.join('{' + p + '}' for p in missing)}")
        return prompt

    @model_validator(mode="after")
    def backend_needs(self) -> ReviewerDef:
        if self.backend == "command" and not (self.command and self.command.strip()):
            raise ValueError("backend 'command' needs a `command`")
        return self
