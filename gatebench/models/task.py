"""`tasks/<ID>/task.yaml` and `inject/<ID>/<name>/inject.yaml`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from gatebench.hook.defaults import TASK_TEST_TIMEOUT_S
from gatebench.models.config import Strict, check_globs


class VisibleTests(Strict):
    command: str = Field(description="shell command run in the work copy; {python} is the bench's interpreter")
    timeout_s: float = Field(TASK_TEST_TIMEOUT_S, gt=0, le=1800)


class Oracle(Strict):
    command: str = Field(description="pytest command over `dest`; the runner appends --junitxml")
    dest: str = Field("hidden_tests", description="folder of the oracle copy where hidden/<ID>/ files land")
    timeout_s: float = Field(TASK_TEST_TIMEOUT_S, gt=0, le=1800)
    expected: list[str] = Field(
        default_factory=list,
        description="hidden test ids (file.py::name, optionally with [params]) that must each run and pass; "
        "empty: the trace keys",
    )

    @field_validator("dest")
    @classmethod
    def relative(cls, v: str) -> str:
        if v.startswith("/") or ".." in v.split("/") or not v:
            raise ValueError(f"dest {v!r} must be a relative path inside the copy")
        return v


TaskKind = Literal["bugfix", "feature", "refactor", "multifile", "concurrency", "caching", "wrong_tests"]


class Task(Strict):
    id: str = Field(pattern=r"^T[0-9]+$")
    title: str = Field(min_length=3)
    kinds: list[TaskKind] = Field(min_length=1)
    prompt: str = Field(min_length=20)
    visible: VisibleTests
    oracle: Oracle
    protected: list[str] = Field(default_factory=lambda: ["tests/**"])
    ignore: list[str] = Field(default_factory=list)
    trace: dict[str, str] = Field(
        min_length=1,
        description="hidden test (file.py::test_name, no parameters) -> a phrase quoted verbatim from the prompt "
        "that states the behaviour it checks",
    )

    _globs = field_validator("protected", "ignore")(check_globs)

    def expected_tests(self) -> list[str]:
        """The hidden test ids that decide `solved`: `oracle.expected`, else every trace key. An id
        without `[...]` stands for each of its parametrized instances, at least one of which must run."""
        return list(self.oracle.expected) or sorted(self.trace)


InjectKind = Literal["plausible", "tamper", "hardcode", "partial", "noop"]
GateName = Literal["diff", "tests", "self_check", "oracle"]


class Inject(Strict):
    kind: InjectKind
    description: str = Field(min_length=10)
    fails: list[str] = Field(min_length=1, description="hidden test ids (file.py::name) that must fail; exactly these")
    blocked_by: list[GateName] = Field(default_factory=list, description="gates that must block this end state")
    delete: list[str] = Field(default_factory=list, description="repo paths this end state deletes")
