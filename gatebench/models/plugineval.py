"""File formats of `claude plugin eval` suites that gatebench exports, runs and reads (SPEC.md section 18).

- `ExportManifest`: `<out>/.gatebench/export.json`, what `gatebench export plugin-eval` wrote and from what.
- `CaseTemplate`: `<out>/.gatebench/cases/<config>/<task>.json`, one case's private half: the resolved hook
  config the scaffold instantiates for each run, and the verdict tokens its graders look for.
- `PrivateRun`: `<out>/.gatebench/runs/<config>/<key>/run.json`, one run as gatebench's harness saw it.
- `Aggregate`: Claude Code's own `aggregate-result.json` (`schemaVersion: 1`, seen on 2.1.332), only the
  fields gatebench reads; everything else is kept and ignored (`extra="allow"`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RUN_VERSION = 1
# In the run's working directory, under .claude/: the agent's Bash sandbox keeps the work dir's .claude/ read-only
# and the file tools may not write there in the child's dontAsk mode (both seen on 2.1.332), while the harness
# (a hook, outside the sandbox) can. Also in the snapshot's default ignore (.claude/gatebench/**).
VERDICT_FILE = ".vscode/gatebench-verdict"
SOLVED_GRADER = "gatebench-solved"
VERDICT_GRADER = "gatebench-verdict"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ExportedConfig(Strict):
    config_hash: str
    plugin: str = Field(description="the plugin folder under the export, named like the config")
    plugin_name: str = Field(description="plugin.json `name` (gatebench-<config>, kebab-case)")


class ExportedTask(Strict):
    task_hash: str = Field(description="content hash of tasks/<ID> and hidden/<ID> at export")
    title: str = ""


class ExportManifest(Strict):
    schema_: Literal["gatebench.plugin-eval-export/1"] = Field("gatebench.plugin-eval-export/1", alias="schema")
    gatebench: str
    git_commit: str | None = None
    git_dirty: bool | None = None
    created_at: str
    checkout: str = Field(description="the gatebench checkout whose hook and interpreter the suite runs")
    python: str = Field(description="the interpreter the harness, the hook and the oracle run with")
    cli_version: str = Field(description="the Claude Code version gatebench pins (the suite's CLI should match)")
    runs: int
    max_turns: int
    timeout_s: int
    configs: dict[str, ExportedConfig]
    tasks: dict[str, ExportedTask]

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class CaseTemplate(Strict):
    schema_: Literal["gatebench.plugin-eval-case/1"] = Field("gatebench.plugin-eval-case/1", alias="schema")
    config: str
    task: str
    resolved: dict = Field(description="a gatebench.resolved/1 document; the scaffold fills in `repo` and `state_dir`")
    solved_token: str = Field(description="secret: the solved line carries it, the solved grader matches it")
    verdict_token: str = Field(description="secret: every verdict carries it, the verdict grader matches it")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class PrivateGate(Open):
    name: str
    kind: str = ""
    verdict: Literal["pass", "block", "error", "skipped"]


class PrivateStop(Open):
    attempt: int = Field(ge=1)
    decision: Literal["allow", "block", "give_up"]
    oracle_solved: bool | None = None
    gates: list[PrivateGate] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)


class PrivateVerdict(Open):
    stop: int = Field(description="the stop attempt whose decision let the agent stop")
    solved: bool
    why: str = ""
    oracle: dict | None = None
    written: bool = Field(description="the verdict file was written into the run's working directory")


class PrivateRun(Open):
    v: Literal[1] = RUN_VERSION  # type: ignore[assignment]
    config: str
    task: str
    cwd: str = Field(description="the run's working directory, made by claude plugin eval")
    scaffolded_at: str
    session_id: str | None = None
    api_base_url: str | None = Field(None, description="ANTHROPIC_BASE_URL the hook saw (which API played the agent)")
    model: str | None = Field(None, description="the model the session's assistant messages name (its transcript)")
    stops: list[PrivateStop] = Field(default_factory=list)
    verdict: PrivateVerdict | None = None
    leaks: list[str] = Field(default_factory=list, description="tool calls naming a private folder: `<Tool>#<n>: "
                             "<folder>` (the export's private half, the bench home's tasks/hidden/reference/inject/runs)")
    errors: list[str] = Field(default_factory=list)


class SimRun(Open):
    """`<out>/.gatebench/sim/<eval root name>.json`: what the offline sim agent played in one run (its truth)."""

    cwd: str
    task: str
    seed: int
    policy: str
    first_state: str
    states: list[str] = Field(default_factory=list)
    final_state: str | None = None
    actions: list[str] = Field(default_factory=list)


# ------------------------------------------------------------------- Claude Code's aggregate-result.json


class AggGrader(Open):
    name: str
    passed: bool
    weight: float = 1.0
    explanation: str = ""
    scored: bool | None = None


class AggRun(Open):
    score: float
    passed: bool
    turns: int = 0
    costUsd: float = 0.0
    judgeCostUsd: float = 0.0
    durationSeconds: float | None = None
    startedAt: str | None = None
    error: str | None = None
    tracePath: str = ""
    graders: list[AggGrader] = Field(default_factory=list)


class AggArms(Open):
    with_: list[AggRun] = Field(alias="with")
    without: list[AggRun] | None = None


class AggCaseGrader(Open):
    name: str
    type: str
    weight: float = 1.0


class AggCase(Open):
    name: str
    dir: str = ""
    model: str | None = None
    runsPerCase: int | None = Field(None, description="the case's `runs`, NOT the runs made (--runs does not change it)")
    graders: list[AggCaseGrader] = Field(default_factory=list)
    arms: AggArms


class AggPlugin(Open):
    name: str
    version: str | None = None
    path: str = ""
    problem: str | None = None


class AggSuite(Open):
    root: str
    ablation: Literal["none", "with-without"]
    modelOverride: str | None = None
    plugins: list[AggPlugin] = Field(default_factory=list)


class Aggregate(Open):
    schemaVersion: Literal[1]
    claudeVersion: str
    startedAt: str
    partial: bool = False
    partialReason: str | None = None
    suite: AggSuite
    cases: list[AggCase]
