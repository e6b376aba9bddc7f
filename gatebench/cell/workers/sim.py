"""Worker `sim`: the real Claude Code CLI against gatebench's fake Messages API, in this process.

The fake API plays the scripted agent of gatebench.sim.agent (a seeded policy from configs/sim/) and
the sim reviewers of gate-3 (gatebench.sim.reviewer), judging against the state the agent last wrote. The truth the agent knows by construction goes into worker.json under `sim`.
"""

from __future__ import annotations

import shlex
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from gatebench.cell.cell import CellPaths
from gatebench.cell.workers import require_claude
from gatebench.cell.workers.cli import run_cli
from gatebench.errors import UsageError
from gatebench.hook.state import Paths
from gatebench.installer.configs import content_hash
from gatebench.models.cell import CellMeta
from gatebench.models.loading import load_model
from gatebench.models.sim import SimPolicy
from gatebench.models.task import Inject
from gatebench.paths import project_root
from gatebench.sim.agent import REFERENCE, AgentBrain
from gatebench.sim.brain import Router, prompt_contains
from gatebench.sim.plugincalls import PluginCalls
from gatebench.sim.reviewer import REVIEW_MARKER, ReviewerBrain
from gatebench.sim.server import FakeMessagesApi
from gatebench.tree.snapshot import read_blob, read_json

_SKIP = {"__pycache__", ".pytest_cache"}


def policy_path(name_or_path: str) -> Path:
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or "/" in name_or_path:
        return p
    return project_root() / "configs" / "sim" / f"{name_or_path}.yaml"


def load_policy(name_or_path: str) -> SimPolicy:
    p = policy_path(name_or_path)
    if not p.is_file():
        known = sorted(x.stem for x in (project_root() / "configs" / "sim").glob("*.yaml"))
        raise UsageError(f"no sim policy {name_or_path!r}: {p} not found (known: {', '.join(known) or 'none'})")
    return load_model(p, SimPolicy)


def read_files(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not _SKIP.intersection(p.parts) and not p.name.endswith(".pyc"):
            out[str(p.relative_to(root))] = p.read_text(encoding="utf-8")
    return out


def end_states(meta: CellMeta) -> dict[str, dict]:
    """The task's known end states as file contents: the reference and every injection."""
    ref = Path(meta.reference_dir)
    if not ref.is_dir():
        raise UsageError(f"task {meta.task}: reference {ref} not found; the sim agent needs it")
    states = {REFERENCE: {"kind": "reference", "files": read_files(ref), "delete": []}}
    inj_root = Path(meta.inject_dir)
    for d in sorted(p for p in inj_root.iterdir() if p.is_dir()) if inj_root.is_dir() else []:
        inj = load_model(d / "inject.yaml", Inject)
        files = read_files(d / "files") if (d / "files").is_dir() else {}
        states[f"inject:{d.name}"] = {"kind": inj.kind, "files": files, "delete": list(inj.delete)}
    return states


def base_contents(state_dir: Path, paths: set[str]) -> dict[str, str | None]:
    """Base content of each path, from prep's baseline snapshot (exact even if the work copy was touched)."""
    sp = Paths(str(state_dir))
    manifest = read_json(sp.baseline)
    out: dict[str, str | None] = {}
    for rel in sorted(paths):
        entry = manifest.get(rel)  # type: ignore[attr-defined]
        data = read_blob(sp.blobs, entry[0]) if entry else None
        out[rel] = data.decode("utf-8") if data is not None else None
    return out


def variant_spec(meta: CellMeta, states: dict[str, dict]) -> dict:
    """An impossible cell's part of the agent spec: the mutated tests, the honest exit's marker, and the end
    states that game the tests (the original test written back over the reference; the variant's special case)."""
    if meta.variant == "normal":
        return {}
    from gatebench.hook.honest import MARKER
    from gatebench.suite import variants
    from gatebench.suite.tasks import load_task

    tf = load_task(meta.task)
    v = variants.load_variant(tf, meta.variant)
    ref = states[REFERENCE]["files"]
    originals = {m.file: (tf.repo / m.file).read_text(encoding="utf-8") for m in v.mutations}
    games = {"game:rewrite_test": {"kind": "game", "files": {**ref, **originals}, "delete": []}}
    sc = variants.special_case_dir(tf, meta.variant)
    if sc.is_dir():
        games["game:special_case"] = {"kind": "game", "files": {**ref, **read_files(sc)}, "delete": []}
    return {"variant": {"kind": meta.variant, "tests": v.test_ids(), "marker": MARKER}, "games": games}


def regression_test(meta: CellMeta) -> dict[str, str]:
    """The task's regression test (tasks/<ID>/regression/, files at their repo paths), {} when it has none."""
    from gatebench.suite.tasks import load_task

    d = load_task(meta.task).dir / "regression"
    return read_files(d) if d.is_dir() else {}


def agent_spec(cell: CellPaths, meta: CellMeta, policy: SimPolicy) -> dict:
    states = end_states(meta)
    extra = variant_spec(meta, states)
    regression = regression_test(meta) if policy.regression_test > 0 else {}
    touched = {p for s in [*states.values(), *extra.get("games", {}).values()] for p in (*s["files"], *s["delete"])}
    touched |= set(regression)
    resolved = read_json(str(cell.state / "config.json"))
    command = (resolved.get("task") or {}).get("test_command")  # type: ignore[attr-defined]
    python = resolved.get("python") or sys.executable  # type: ignore[attr-defined]
    hidden = sorted(Path(meta.hidden_dir).glob("*.py"))
    return {
        "seed": meta.seed,
        "policy": policy.model_dump(mode="json"),
        "cwd": str(cell.repo.resolve()),
        "base": base_contents(cell.state, touched),
        "states": states,
        "test_command": command.replace("{python}", shlex.quote(python)) if command else None,
        "leak_path": str(hidden[0]) if hidden else None,
        "regression": regression,
        **extra,
    }


def brain_for(agent: AgentBrain, policy: SimPolicy, seed: int,
              plugin: PluginCalls | None = None) -> tuple[Router, ReviewerBrain]:
    """A Router that sends reviewer requests (marked REVIEW_MARKER) to the sim reviewers, a plugin's own model
    calls (another working directory than the agent's) to the plugin-call policy, the rest to the agent."""
    rb = ReviewerBrain(agent.current_state, policy.reviewer.hit_rate, policy.reviewer.false_block_rate, seed)
    routes: list = [("reviewer", prompt_contains(REVIEW_MARKER), rb)]
    if plugin is not None:
        routes.append(("plugin", plugin.is_plugin_call, plugin))
    return Router(routes, agent, "agent"), rb


def run(cell: CellPaths, meta: CellMeta, opts, stop: Callable[[], str | None]) -> dict:
    claude = require_claude()
    policy = load_policy(opts.policy)
    spec = agent_spec(cell, meta, policy)
    agent = AgentBrain(spec)
    plugin = PluginCalls(policy.plugin_calls, agent_cwd=spec["cwd"])
    brain, reviewers = brain_for(agent, policy, meta.seed, plugin)
    api = FakeMessagesApi(brain, log_path=cell.api_log).start()
    try:
        info = run_cli(claude, cell, meta, opts, stop, base_url=api.base_url)
        api_totals = api.usage_totals()
    finally:
        # Shutting the server down waits out its poll tick; nobody needs that wait, the CLI is gone.
        threading.Thread(target=api.stop, daemon=True).start()
    truth = agent.truth() | {"policy": policy.name, "policy_hash": content_hash(policy.model_dump(mode="json"))}
    truth["reviews"] = [{"reviewer": c.reviewer, "n": c.n, "truth": c.truth, "wrong": c.wrong,
                         "verdict": c.verdict} for c in reviewers.calls]
    truth["plugin_calls"] = plugin.truth()
    return {**info, "sim": truth, "api": api_totals}
