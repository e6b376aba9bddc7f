"""`tasks/<ID>/task.yaml` and `inject/<ID>/<name>/inject.yaml`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from gatebench.common.defaults import TASK_TEST_TIMEOUT_S
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
    layout: Literal["dest", "original"] = Field(
        "dest", description="dest: hidden/<ID>/ lands in `dest`; original: each hidden file lands at its own path "
        "in the copy, after every conftest.py and root pytest config the copy holds is removed (the hidden folder "
        "carries the task's own harness)")
    fail_to_pass: list[str] = Field(default_factory=list, description="hidden test ids that fail on the base and "
                                    "must pass; with pass_to_pass, `solved` needs exactly both sets to pass")
    pass_to_pass: list[str] = Field(default_factory=list, description="hidden test ids that pass on the base and "
                                    "must keep passing")

    @field_validator("dest")
    @classmethod
    def relative(cls, v: str) -> str:
        if v.startswith("/") or ".." in v.split("/") or not v:
            raise ValueError(f"dest {v!r} must be a relative path inside the copy")
        return v


class Canaries(Strict):
    """`canaries` of task.yaml: which expected tests get no twin in the oracle's runs (SPEC section 8)."""

    exclude: list[str] = Field(default_factory=list, description="hidden test ids (file.py::name, no parameters) "
                               "whose twin failed selftest's proof: they run without a canary")
    budget: int | None = Field(default=None, ge=0, description="extra twins a run may give the tests a wrong fix "
                               "fails (canaries.allocate; default canaries.TARGET_BUDGET): lower it for a task "
                               "whose tests wait out timeouts where the code is wrong, each twin waiting too")


TaskKind = Literal["bugfix", "feature", "refactor", "multifile", "concurrency", "caching", "wrong_tests"]


class TaskEnv(Strict):
    """A per-task virtual environment (imported tasks); bundled tasks have none and run on the bench's python."""

    python: str = Field(pattern=r"^3\.[0-9]+$", description="Python X.Y the environment is built with")
    requirements: list[str] = Field(default_factory=list, description="the shared environment: pinned "
                                    "name==version, resolved at import (the project's test extras, test "
                                    "requirement files, pytest plugins its configuration names, pytest)")
    deps: list[str] = Field(default_factory=list, description="repo files whose contents key the task layer")
    install: bool = Field(True, description="install the project's own distribution (metadata, entry points, "
                          "scripts; its code stays the work copy's)")
    version: str | None = Field(None, description="the version a VCS-versioned build is given (no .git in the base)")
    setup: str | None = Field(None, description="shell command run once in the new environment (its bin/ on PATH)")


class ImportSource(Strict):
    """Where an imported task came from (`gatebench task import`, or a real-suite recipe)."""

    repo: str
    commit: str
    parent: str
    prompt_from: Literal["commit message", "prompt file", "recipe", "eval suite"]
    project: str | None = Field(None, description="the project's name (recipes)")
    license: str | None = Field(None, description="the project's licence (recipes)")
    recipe: str | None = Field(None, description="the recipe file the task was materialized from")
    excluded: list[str] = Field(default_factory=list, description="hidden tests left out of both sets, with why: "
                                "flaky, load-sensitive, failing on the commit too")
    prompt_gaps: list[str] = Field(default_factory=list, description="details the hidden tests pin (an exception "
                                   "type, a message) that neither the prompt nor the visible tests state: a "
                                   "marked task, not run by default")


class Task(Strict):
    id: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
    title: str = Field(min_length=3)
    kinds: list[TaskKind] = Field(min_length=1)
    prompt: str = Field(min_length=20)
    visible: VisibleTests
    oracle: Oracle
    protected: list[str] = Field(default_factory=lambda: ["tests/**"])
    ignore: list[str] = Field(default_factory=list)
    stale_tests: list[str] = Field(default_factory=list, description="visible test ids (path::name or "
                                   "path::Class::name) the reference fails on the base's copy: the agent may "
                                   "update them; weakening any other test is tampering")
    trace: dict[str, str] = Field(
        default_factory=dict,
        description="hidden test (file.py::test_name, no parameters) -> a phrase quoted verbatim from the prompt "
        "that states the behaviour it checks",
    )

    env: TaskEnv | None = Field(None, description="imported tasks: the environment the tests and the agent use")
    source: ImportSource | None = None
    canaries: Canaries = Field(default_factory=Canaries, description="contradiction twins the oracle runs beside "
                               "the expected tests; `exclude` names the ones selftest's proof refused")

    _globs = field_validator("protected", "ignore")(check_globs)

    def expected_tests(self) -> list[str]:
        """The hidden test ids that decide `solved`: `oracle.expected`, else an imported task's measured
        FAIL_TO_PASS + PASS_TO_PASS (SWE-bench's `resolved`), else every trace key. An id without
        `[...]` stands for each of its parametrized instances, at least one of which must run."""
        o = self.oracle
        return list(o.expected) or [*o.fail_to_pass, *o.pass_to_pass] or sorted(self.trace)

    @model_validator(mode="after")
    def excluded_are_expected(self) -> Task:
        known = {e.split("[", 1)[0] for e in self.expected_tests()}
        bad = [e for e in self.canaries.exclude if e.split("[", 1)[0] not in known]
        if bad:
            raise ValueError(f"canaries.exclude: {', '.join(bad)} is not an expected hidden test")
        return self

    @model_validator(mode="after")
    def traced(self) -> Task:
        # An imported task's prompt is a commit message: nobody wrote it to state each test, so there is
        # nothing to trace; FAIL_TO_PASS/PASS_TO_PASS (measured) say what the oracle checks instead.
        if not self.trace and self.source is None:
            raise ValueError("trace: at least one entry is required (only imported tasks may have none)")
        return self


InjectKind = Literal["plausible", "tamper", "hardcode", "partial", "noop", "crude"]
GateName = Literal["diff", "tests", "self_check", "oracle"]


class Inject(Strict):
    kind: InjectKind
    description: str = Field(min_length=10)
    fails: list[str] = Field(min_length=1, description="hidden test ids (file.py::name) that must fail; exactly these")
    blocked_by: list[GateName] = Field(default_factory=list, description="gates that must block this end state")
    delete: list[str] = Field(default_factory=list, description="repo paths this end state deletes")


VariantKind = Literal["impossible"]


class Mutation(Strict):
    """One visible test changed so that it contradicts the prompt: mechanically (a twins site) or by hand."""

    file: str = Field(description="repo path of a visible test module; must match the task's `protected` globs")
    test: str = Field(description="the test's qualname in that module: `name` or `Class::name`")
    site: int | None = Field(None, ge=0, description="mechanical: index into the test's twins sites, best first "
                             "(gatebench/oracle/twins.py); 0 = the strongest edit")
    what: str | None = Field(None, description="with `site`: the edit as twins describes it (`4: 4 -> 5`); a variant "
                             "whose site no longer says this is refused, so a changed test file cannot drift silently")
    conflicting: bool = Field(False, description="with `site`: add the changed assertion after the original one "
                              "(ImpossibleBench's conflicting construction) instead of changing it in place (one-off)")
    old: str | None = Field(None, description="hand-written: this text, found exactly once in the test's source ...")
    new: str | None = Field(None, description="... is replaced by this text")
    why: str = Field("", description="hand-written: why the mechanical edit was not good enough")

    @model_validator(mode="after")
    def one_way(self) -> Mutation:
        hand = self.old is not None or self.new is not None
        if (self.site is None) == (not hand):
            raise ValueError("give either `site` (mechanical) or `old` and `new` (hand-written), not both, not neither")
        if hand and (not self.old or self.new is None or self.old == self.new):
            raise ValueError("a hand-written mutation needs a non-empty `old` and a different `new`")
        if hand and (self.what is not None or self.conflicting):
            raise ValueError("`what` and `conflicting` go with `site`")
        if self.file.startswith("/") or ".." in self.file.split("/") or not self.file.endswith(".py"):
            raise ValueError(f"file {self.file!r} must be a relative path to a .py test module")
        return self

    @property
    def test_id(self) -> str:
        return f"{self.file}::{self.test}"


class Variant(Strict):
    """`tasks/<ID>/variants/<kind>/variant.yaml`: the task with its visible tests made to contradict its prompt.

    The prompt, the hidden oracle and the reference stay the task's own: only the work copy's visible tests
    change (prep lays the mutated modules before the baseline is taken)."""

    kind: VariantKind
    description: str = Field(min_length=10)
    mutations: list[Mutation] = Field(min_length=1)

    @model_validator(mode="after")
    def distinct(self) -> Variant:
        ids = [m.test_id for m in self.mutations]
        if len(set(ids)) != len(ids):
            raise ValueError(f"a test is mutated twice: {sorted({i for i in ids if ids.count(i) > 1})}")
        return self

    def test_ids(self) -> list[str]:
        """The mutated tests' pytest ids from the repo root (`tests/test_x.py::name`)."""
        return [m.test_id for m in self.mutations]
