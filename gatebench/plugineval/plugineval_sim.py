"""The sim agent for `claude plugin eval`: gatebench's scripted agent behind a fake Messages API that serves
every run of an exported suite (SPEC.md section 18, "Offline").

`claude plugin eval` starts one `claude` child per run in a fresh directory; the server only sees requests.
Each new working directory is a new session (`gatebench.sim.sessions.SessionBrains`): its task is the one
whose prompt the session's first request carries, its seed `seed_for(task, n)` for the n-th session of that
task this server has seen (run n of every config plays the same first attempt, as in the matrix). What the
agent played is saved per run to `<suite>/.gatebench/sim/<eval root>.json` (gatebench.models.plugineval.SimRun),
where `gatebench analyze` finds it: the report then says the agent was simulated.

`python -m gatebench.plugineval.plugineval_sim --tasks T1,T2 --suite OUT [--policy P] [--port-file F]` serves until
SIGTERM (scripts/plugin_eval_demo starts one per `claude plugin eval` invocation).
"""

from __future__ import annotations

import argparse
import json
import shlex
import signal
import sys
import threading
from pathlib import Path

from gatebench.cell.prep import seed_for
from gatebench.cell.workers.sim import end_states, load_policy, read_files
from gatebench.common.util import write_atomic
from gatebench.models.cell import CellMeta
from gatebench.models.sim import SimPolicy
from gatebench.sim.agent import AgentBrain
from gatebench.sim.brain import Brain, first_user_text
from gatebench.sim.server import FakeMessagesApi
from gatebench.sim.sessions import SessionBrains
from gatebench.suite.tasks import TaskFiles, load_task


def task_spec(tf: TaskFiles, policy: SimPolicy, python: str) -> dict:
    """The agent's spec for one task, without the session's cwd and seed (gatebench.sim.agent.AgentBrain)."""
    meta = CellMeta(task=tf.id, config="-", created_at="-", task_hash="-", config_hash="-",
                    hidden_dir=str(tf.hidden), reference_dir=str(tf.reference), inject_dir=str(tf.inject))
    states = end_states(meta)
    base_files = read_files(tf.repo)
    touched = {p for s in states.values() for p in (*s["files"], *s["delete"])}
    command = tf.task.visible.command
    return {"policy": policy.model_dump(mode="json"), "states": states,
            "base": {p: base_files.get(p) for p in sorted(touched)},
            "test_command": command.replace("{python}", shlex.quote(python)) if command else None,
            "leak_path": None}  # the hidden tests live in the suite's private folder: a cheater finds nothing


class EvalSim:
    """The SessionBrains factory and recorder for one suite's runs."""

    def __init__(self, tasks: list[str], policy: str, suite: Path | None, python: str = sys.executable, seed: int = 0):
        self.policy = load_policy(policy)
        self.tfs = [load_task(t) for t in tasks]
        self.specs = {tf.id: task_spec(tf, self.policy, python) for tf in self.tfs}
        self.prompts = {tf.id: tf.task.prompt.strip() for tf in self.tfs}
        self.record_dir = suite / ".gatebench" / "sim" if suite else None
        self.seed = seed
        self.count: dict[str, int] = {}
        self.sessions: dict[str, tuple[str, int]] = {}  # cwd -> (task, seed)

    def task_of(self, request: dict) -> str | None:
        text = first_user_text(request)
        hits = [t for t, p in self.prompts.items() if p and p in text]
        return max(hits, key=lambda t: len(self.prompts[t])) if hits else None

    def make(self, request: dict, cwd: str) -> Brain | None:
        task = self.task_of(request)
        if task is None:
            return None
        n = self.count.get(task, 0)
        self.count[task] = n + 1
        seed = seed_for(task, n, self.seed)
        self.sessions[cwd] = (task, seed)
        return AgentBrain({**self.specs[task], "seed": seed, "cwd": cwd})

    def after(self, cwd: str, brain: Brain) -> None:
        if self.record_dir is None or not isinstance(brain, AgentBrain):
            return
        task, _seed = self.sessions[cwd]
        truth = brain.truth()
        root = Path(cwd).parent.parent  # claude plugin eval: <eval root>/home/cwd (seen on 2.1.332)
        self.record_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(self.record_dir / f"{root.name}.json", json.dumps({
            "cwd": cwd, "task": task, "policy": self.policy.name, **{k: truth[k] for k in
                                                                      ("seed", "first_state", "states", "final_state", "actions")}
        }, indent=1) + "\n")

    def brain(self) -> SessionBrains:
        return SessionBrains(self.make, self.after)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gatebench.plugineval.plugineval_sim",
                                description="gatebench's sim agent as a fake Messages API for claude plugin eval")
    p.add_argument("--tasks", required=True, help="task ids, comma-separated")
    p.add_argument("--suite", type=Path, help="the exported suite (OUT): the sim's truth goes to OUT/.gatebench/sim/")
    p.add_argument("--policy", default="default", help="sim policy in configs/sim/ (default: default)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--port-file", type=Path, help="write the port here once listening")
    p.add_argument("--log", type=Path, help="append one JSON line per request here")
    args = p.parse_args(argv)
    from gatebench.errors import UsageError

    try:
        sim = EvalSim([t for t in args.tasks.split(",") if t], args.policy, args.suite, seed=args.seed)
    except UsageError as e:
        print(f"gatebench: error: {e}", file=sys.stderr)
        return 2
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    with FakeMessagesApi(sim.brain(), log_path=args.log) as api:
        if args.port_file:
            write_atomic(args.port_file, f"{api.port}\n")
        print(f"plugin-eval sim: listening on {api.base_url}", flush=True)
        stop.wait()
    if args.port_file:
        args.port_file.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
