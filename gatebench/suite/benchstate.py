"""Give a work copy of a task its bench-mode hook state: resolved config and baseline snapshot.

Shared by `gatebench prep` and `gatebench selftest`, so the self-test judges end states through
exactly the state, gates and hook the bench runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gatebench.installer.configs import resolve
from gatebench.installer.statedir import write_state
from gatebench.models.config import GateConfig, OracleBinding, ResolvedConfig, TaskBinding
from gatebench.suite.tasks import TaskFiles
from gatebench.suite.testedits import agent_prompt, free_tests


def oracle_binding(tf: TaskFiles) -> OracleBinding:
    """The hidden oracle of a task, from the bench home alone (the hook's binding and finalize's)."""
    t = tf.task
    return OracleBinding(hidden_dir=str(tf.hidden.resolve()), command=t.oracle.command, dest=t.oracle.dest,
                         timeout_s=t.oracle.timeout_s, baseline_dir=str(tf.repo.resolve()),
                         reference_dir=str(tf.reference.resolve()) if tf.reference.is_dir() else None,
                         expected=t.expected_tests(), layout=t.oracle.layout,
                         fail_to_pass=t.oracle.fail_to_pass, pass_to_pass=t.oracle.pass_to_pass,
                         canaries={"exclude": list(t.canaries.exclude),
                                   **({} if t.canaries.budget is None else {"budget": t.canaries.budget})})


def bench_resolved(cfg: GateConfig, tf: TaskFiles, repo: Path, state: Path, python: str | None = None) -> ResolvedConfig:
    t = tf.task
    from gatebench.suite.taskenv import task_env

    env = task_env(tf)
    if env is not None:  # the visible tests and the oracle run in the task's own environment
        python = env.python
    return resolve(
        cfg,
        mode="bench",
        repo=repo,
        state_dir=state,
        task=TaskBinding(id=t.id, prompt=agent_prompt(t.prompt), test_command=t.visible.command,
                         test_timeout_s=t.visible.timeout_s),
        oracle=oracle_binding(tf),
        task_protected=t.protected,
        task_ignore=t.ignore,
        python=python or sys.executable,
        free_tests=free_tests(tf),
    )


def write_bench_state(cfg: GateConfig, tf: TaskFiles, repo: Path, state: Path) -> ResolvedConfig:
    """Write state/config.json and take the baseline of repo as it is now."""
    resolved = bench_resolved(cfg, tf, repo, state)
    write_state(resolved, repo, state, strict=True)
    return resolved
