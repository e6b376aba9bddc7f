"""`gatebench export plugin-eval`: the bench's tasks and gate configs as `claude plugin eval` suites (SPEC.md §18).

One Claude Code plugin per gate config, side by side under the output folder, and one private folder next
to them that the agent's sandbox cannot reach (claude plugin eval denies every run the plugin's parent
folder, and re-allows only the plugin itself):

    OUT/README.md                       the commands to run
    OUT/<config>/.claude-plugin/plugin.json
    OUT/<config>/hooks/hooks.json       Stop: the harness, which runs gatebench's hook (the config's gates,
                                        the hidden oracle) and writes the verdict file at the final stop
    OUT/<config>/evals/<task>/case.yaml prompt, caps, scaffold, graders on the verdict file
    OUT/<config>/evals/<task>/scaffold.sh
    OUT/.gatebench/export.json          ExportManifest
    OUT/.gatebench/bin/harness          sh launcher: this checkout's interpreter and eval_harness.py
    OUT/.gatebench/tasks/<task>/{repo,hidden}/   copies of the task's base repo and hidden tests
    OUT/.gatebench/cases/<config>/<task>.json    CaseTemplate: resolved hook config, verdict tokens
    OUT/.gatebench/runs/<config>/<key>/          one per run, made by the scaffold (state, tmp, run.json)

The export is built in a hidden sibling folder and renamed into place: a failure leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import sys
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml

from gatebench import __version__
from gatebench.cell.versions import git_state
from gatebench.claude_version import CLAUDE_CODE_VERSION
from gatebench.common.defaults import SETTINGS_TIMEOUT_MARGIN_S
from gatebench.errors import UsageError
from gatebench.installer.configs import load_config
from gatebench.models.config import GateConfig
from gatebench.models.plugineval import (
    SOLVED_GRADER,
    VERDICT_FILE,
    VERDICT_GRADER,
    CaseTemplate,
    ExportedConfig,
    ExportedTask,
    ExportManifest,
)
from gatebench.paths import project_root
from gatebench.suite.benchstate import bench_resolved
from gatebench.suite.tasks import TaskFiles, copy_tree, load_task, tree_hash

PRIVATE = ".gatebench"
HARNESS = Path(__file__).resolve().parent / "eval_harness.py"
ALLOWED_TOOLS = ["Read", "Write", "Edit", "Bash", "Glob", "Grep"]
GATED_TOOLS = ["Bash", "Write", "Edit"]  # claude plugin eval withholds these unless --allow-tools grants them
VERDICT_WEIGHT = 0.01  # "a verdict was written": tells a judged unsolved run from one never judged, barely moves the score
LIMITS = {"runs": (1, 50), "max_turns": (1, 200), "timeout_s": (1, 3600)}  # what case.yaml accepts (CLI 2.1.332)


@dataclass(frozen=True)
class ExportSpec:
    tasks: list[str]
    configs: list[str]
    out: Path
    runs: int = 3
    max_turns: int = 40
    timeout_s: int = 900
    force: bool = False
    python: str = ""
    allow_readable_home: bool = False  # export although exposure() says the agent could read the bench home


def plugin_name(config: str) -> str:
    """plugin.json's `name`: kebab-case (`tests+adv` -> `gatebench-tests-adv`)."""
    return "gatebench-" + (re.sub(r"[^a-z0-9]+", "-", config.lower()).strip("-") or "config")


def eval_command(plugin_dir: Path) -> str:
    """The `claude plugin eval` command a plugin author types for one exported config."""
    return (f"claude plugin eval {shlex.quote(str(plugin_dir))} --scaffold --trust-plugin --ablation none "
            f"--allow-tools {' '.join(GATED_TOOLS)} --no-publish")


# ------------------------------------------------------------------------------------------- checks


def check(spec: ExportSpec) -> tuple[list[TaskFiles], dict[str, GateConfig]]:
    """Every input, before anything is written. Raises UsageError naming what is wrong."""
    for name, (lo, hi) in LIMITS.items():
        v = getattr(spec, name)
        if not lo <= v <= hi:
            raise UsageError(f"--{name.replace('_', '-')} {v}: claude plugin eval accepts {lo}..{hi}")
    if not spec.tasks or not spec.configs:
        raise UsageError("nothing to export: give --tasks and --configs")
    dup = sorted({x for x in spec.tasks if spec.tasks.count(x) > 1} | {x for x in spec.configs
                                                                       if spec.configs.count(x) > 1})
    if dup:
        raise UsageError(f"named twice: {', '.join(dup)}")
    tfs = [load_task(t) for t in spec.tasks]
    for tf in tfs:
        if not tf.hidden.is_dir():
            raise UsageError(f"task {tf.id}: hidden tests {tf.hidden} not found")
    cfgs = {}
    for c in spec.configs:
        cfg = load_config(c)
        if cfg.name != Path(c).stem:
            raise UsageError(f"config {c}: its name {cfg.name!r} differs from the file name; plugins are named by it")
        cfgs[cfg.name] = cfg
    names: dict[str, str] = {}
    for c in cfgs:
        other = names.setdefault(plugin_name(c), c)
        if other != c:
            raise UsageError(f"configs {other} and {c} would get the same plugin name {plugin_name(c)}")
    out = spec.out
    if out.exists() and not spec.force:
        raise UsageError(f"{out} already exists; pass --force to replace it")
    if out.exists() and not (out / PRIVATE / "export.json").is_file():
        raise UsageError(f"{out} exists and is not an earlier export (no {PRIVATE}/export.json): not replacing it")
    return tfs, cfgs


# ------------------------------------------------------------------------------------------- writing


def launcher(python: str) -> str:
    return ("#!/bin/sh\n# generated by gatebench export plugin-eval: gatebench's eval harness with the interpreter\n"
            "# and checkout it was exported from (SPEC.md section 18). The Stop hook runs it with -S: stdlib only.\n"
            'here=$(cd "$(dirname "$0")/.." && pwd)\nverb=$1; shift\n'
            'case "$verb" in scaffold) site= ;; *) site=-S ;; esac\n'
            f'exec {shlex.quote(python)} $site {shlex.quote(str(HARNESS))} "$verb" "$here" "$@"\n')


def case_template(cfg: GateConfig, tf: TaskFiles, private: Path, python: str) -> CaseTemplate:
    """The hook's resolved config for every run of (config, task), with the run's paths left to the scaffold."""
    placeholder = Path("/gatebench-plugin-eval/run")
    resolved = bench_resolved(cfg, tf, placeholder / "repo", placeholder / "state", python)
    oracle = resolved.oracle.model_copy(update={  # type: ignore[union-attr]
        "hidden_dir": str(private / "tasks" / tf.id / "hidden"),
        "baseline_dir": str(private / "tasks" / tf.id / "repo")})
    resolved = resolved.model_copy(update={
        "oracle": oracle, "ignore": [*resolved.ignore, VERDICT_FILE], "private": [str(private)]})
    return CaseTemplate(config=cfg.name, task=tf.id, resolved=json.loads(resolved.model_dump_json(by_alias=True)),
                        solved_token=secrets.token_hex(16), verdict_token=secrets.token_hex(16))


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (the prompt) as literal blocks, as a person would write case.yaml."""

    def ignore_aliases(self, data: object) -> bool:
        return True


_Dumper.add_representer(str, lambda d, s: d.represent_scalar(
    "tag:yaml.org,2002:str", s, style="|" if "\n" in s and not any(line != line.rstrip() for line in s.splitlines())
    else None))


def case_yaml(tf: TaskFiles, tpl: CaseTemplate, spec: ExportSpec) -> str:
    t = tf.task
    target = {"source": "file", "path": VERDICT_FILE}
    doc = {
        "schema_version": "1.0",
        "name": t.id,
        "description": t.title or f"gatebench task {t.id}",
        "tags": ["gatebench", *t.kinds],
        "context": {"scaffold_script": "scaffold.sh"},
        "execution": {"prompt": t.prompt, "max_turns": spec.max_turns, "timeout_seconds": spec.timeout_s,
                      "allowed_tools": ALLOWED_TOOLS},
        "runs": spec.runs,
        "graders": [
            {"type": "regex", "name": SOLVED_GRADER, "target": target,
             "pattern": f"^solved: true {tpl.solved_token}$", "flags": "m", "weight": 1},
            {"type": "regex", "name": VERDICT_GRADER, "target": target,
             "pattern": f"^verdict: {tpl.verdict_token}$", "flags": "m", "weight": VERDICT_WEIGHT},
        ],
    }
    head = (f"# generated by gatebench export plugin-eval ({__version__}): task {t.id} under gate config {tpl.config}.\n"
            "# The graders read the verdict file gatebench's harness writes after the agent's final stop; the\n"
            "# tokens are secret (this folder is hidden from the agent). SPEC.md section 18.\n")
    return head + yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def scaffold_sh(config: str, task: str) -> str:
    return ("#!/bin/sh\n# generated by gatebench export plugin-eval: lay task " + task + "'s work copy into this run's\n"
            "# directory and make its private state (claude plugin eval runs this only with --scaffold).\n"
            f'exec "$(dirname "$0")/../../../{PRIVATE}/bin/harness" scaffold {shlex.quote(config)} {shlex.quote(task)}\n')


def hooks_json(cfg: GateConfig, tfs: list[TaskFiles]) -> dict:
    oracle_s = max(t.task.oracle.timeout_s for t in tfs)
    timeout = int(cfg.budget.hook_seconds + oracle_s + SETTINGS_TIMEOUT_MARGIN_S)
    command = f'"${{CLAUDE_PLUGIN_ROOT}}/../{PRIVATE}/bin/harness" stop {shlex.quote(cfg.name)}'
    return {"description": f"gatebench gate config {cfg.name} and its oracle harness (generated)",
            "hooks": {"Stop": [{"hooks": [{"type": "command", "command": command, "timeout": timeout}]}]}}


def write_plugin(root: Path, cfg: GateConfig, tfs: list[TaskFiles], templates: dict[str, CaseTemplate],
                 spec: ExportSpec) -> None:
    (root / ".claude-plugin").mkdir(parents=True)
    manifest = {"name": plugin_name(cfg.name), "version": __version__,
                "description": f"gatebench gate config {cfg.name}: {cfg.description or 'no description'}; "
                               "scored by gatebench's hidden oracle"}
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest, indent=1) + "\n")
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks_json(cfg, tfs), indent=1) + "\n")
    for tf in tfs:
        case = root / "evals" / tf.id
        case.mkdir(parents=True)
        (case / "case.yaml").write_text(case_yaml(tf, templates[tf.id], spec))
        (case / "scaffold.sh").write_text(scaffold_sh(cfg.name, tf.id))
        (case / "scaffold.sh").chmod(0o755)


def readme(spec: ExportSpec, out: Path) -> str:
    lines = [f"# gatebench plugin-eval suites ({__version__})", "",
             f"Tasks {', '.join(spec.tasks)}; gate configs {', '.join(spec.configs)}; {spec.runs} run(s) per case.",
             "One Claude Code plugin per config. Run each (scaffold scripts lay out the task's repo; the",
             "Stop hook runs the gate and gatebench's hidden oracle, then writes the verdict):", "", "```sh"]
    lines += [eval_command(out / c) for c in spec.configs]
    lines += ["```", "", "Then compare them (per-config intervals, paired Δ and McNemar by case and run):", "",
              "```sh", f"gatebench analyze {shlex.quote(str(out))}", "```", "",
              "The private folder .gatebench/ holds the hidden tests, the verdict tokens and every run's gate log;",
              "it must stay next to the plugins (it is the plugins' parent folder the agent cannot read).", ""]
    return "\n".join(lines)


def exposure(home: Path, env: dict[str, str] | None = None) -> str | None:
    """A warning when the bench home lies where claude plugin eval lets the agent read.

    The run's sandbox hides $HOME, the temp dir and the plugin's parent folder (seen on 2.1.332), and
    nothing else of the disk: a bench home elsewhere (its hidden/ and reference/ folders) is readable by an
    agent that searches for it. The suite itself never names it where the agent can read.
    """
    import tempfile

    env = dict(os.environ if env is None else env)
    hidden_roots = [Path(env.get("HOME") or Path.home()), Path(tempfile.gettempdir()), Path("/tmp"), Path("/var/tmp")]
    real = home.resolve()
    if any(real == r.resolve() or r.resolve() in real.parents for r in hidden_roots):
        return None
    return (f"the bench home {real} is outside what claude plugin eval hides from the agent ($HOME, the temp dir): "
            "an agent that searches the disk can read its hidden/ and reference/ folders. The exported suite copies "
            "what it needs into its private folder and never names the bench home; keep the checkout under $HOME "
            "to close that way too")


def export(spec: ExportSpec) -> tuple[ExportManifest, list[str]]:
    """Write the suites to spec.out (atomically); returns (manifest, warnings). Bad input: UsageError, nothing
    written."""
    tfs, cfgs = check(spec)
    warnings = [w for w in [exposure(project_root())] if w]
    if warnings and not spec.allow_readable_home:
        raise UsageError(f"{warnings[0]}. Pass --allow-readable-home to export anyway (SPEC.md section 18)")
    python = spec.python or sys.executable
    out = spec.out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.export-{os.getpid()}-{uuid.uuid4().hex[:6]}"
    private_final = out / PRIVATE  # paths inside the templates name the final place
    try:
        private = tmp / PRIVATE
        (private / "bin").mkdir(parents=True)
        (private / "bin" / "harness").write_text(launcher(python))
        (private / "bin" / "harness").chmod(0o755)
        for tf in tfs:
            copy_tree(tf.repo, private / "tasks" / tf.id / "repo")
            copy_tree(tf.hidden, private / "tasks" / tf.id / "hidden")
        configs = {}
        for name, cfg in cfgs.items():
            templates = {tf.id: case_template(cfg, tf, private_final, python) for tf in tfs}
            (private / "cases" / name).mkdir(parents=True)
            for tid, tpl in templates.items():
                (private / "cases" / name / f"{tid}.json").write_text(tpl.model_dump_json(by_alias=True, indent=1))
            write_plugin(tmp / name, cfg, tfs, templates, spec)
            configs[name] = ExportedConfig(config_hash=next(iter(templates.values())).resolved["config_hash"],
                                           plugin=name, plugin_name=plugin_name(name))
        (private / "runs").mkdir()
        commit, dirty = git_state(project_root())
        manifest = ExportManifest(
            gatebench=__version__, git_commit=commit, git_dirty=dirty,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"), checkout=str(project_root()), python=python,
            cli_version=CLAUDE_CODE_VERSION, runs=spec.runs, max_turns=spec.max_turns, timeout_s=spec.timeout_s,
            configs=configs,
            tasks={tf.id: ExportedTask(task_hash=tree_hash(tf.dir, tf.hidden), title=tf.task.title or "") for tf in tfs})
        (private / "export.json").write_text(manifest.model_dump_json(by_alias=True, indent=1) + "\n")
        (tmp / "README.md").write_text(readme(spec, out))
        if out.exists():
            trash = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:6]}"
            out.rename(trash)
            shutil.rmtree(trash, ignore_errors=True)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest, warnings
