"""`gatebench task check`: an imported task's base fails, its reference passes, in each run."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from gatebench.oracle.oracle import run_oracle


def check_task(tf, runs: int = 2) -> dict:
    """`gatebench task check`: the base fails every FAIL_TO_PASS test, the reference passes both sets in each
    of `runs` runs (flake check), and how long the oracle takes. Returns plain data; `problems` empty = ok."""
    from gatebench.suite.taskenv import task_env
    from gatebench.suite.tasks import apply_state, copy_tree

    o = tf.task.oracle
    env = task_env(tf)
    python = env.python if env else sys.executable
    kw = {"layout": o.layout, "fail_to_pass": o.fail_to_pass, "pass_to_pass": o.pass_to_pass}
    problems: list[str] = []
    base = run_oracle(str(tf.repo), str(tf.hidden), o.command, o.dest, o.timeout_s, python, **kw)
    still = sorted(t for t in o.fail_to_pass if base["tests"].get(t) == "passed")
    if base["solved"]:
        problems.append("the base passes the oracle")
    if still:
        problems.append(f"FAIL_TO_PASS tests pass on the base: {', '.join(still)}")
    ref_runs = []
    with tempfile.TemporaryDirectory(prefix=f"gatebench-check-{tf.id}-") as tmp:
        tree = Path(tmp) / "repo"
        copy_tree(tf.repo, tree)
        apply_state(tf, "reference", tree)
        for n in range(runs):
            r = run_oracle(str(tree), str(tf.hidden), o.command, o.dest, o.timeout_s, python, **kw)
            ref_runs.append(r)
            if not r["solved"]:
                problems.append(f"reference run {n + 1}: not solved: failing {r['failing'][:10]} {r['error'] or ''}")
    outcomes = [{t: r["tests"].get(t) for t in (*o.fail_to_pass, *o.pass_to_pass)} for r in ref_runs]
    if any(x != outcomes[0] for x in outcomes[1:]):
        problems.append("the reference gave different outcomes across runs (flaky)")
    marks = list(tf.task.source.prompt_gaps) if tf.task.source else []
    prompt = prompt_flags(tf) if tf.task.source else []
    problems += [f"prompt: {f}" for f in prompt]
    return {
        "task": tf.id, "fail_to_pass": len(o.fail_to_pass), "pass_to_pass": len(o.pass_to_pass),
        "base": {"solved": base["solved"], "failing": len(base["failing"]), "error": base["error"],
                 "seconds": base["seconds"]},
        "reference": [{"solved": r["solved"], "failing": r["failing"], "error": r["error"], "seconds": r["seconds"]}
                      for r in ref_runs],
        "oracle_seconds": max([base["seconds"], *(r["seconds"] for r in ref_runs)]),
        "env": None if env is None else {"key": env.key, "python": env.python, "built": env.built},
        "problems": problems, "marked": marks, "prompt_flags": prompt,
    }


def _texts(root: Path, paths) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8", errors="replace") for p in paths if p.is_file()}


def prompt_flags(tf) -> list[str]:
    """The prompt checks of an imported task (suite/promptcheck.py: flags), read from its laid files: the base
    repo, the reference, the hidden test modules."""
    from gatebench.suite.promptcheck import flags
    from gatebench.suite.taskimport.files import is_test_module
    from gatebench.tree.globs import GlobSet

    o = tf.task.oracle
    base = _texts(tf.repo, (p for p in tf.repo.rglob("*.py") if ".git" not in p.parts))
    reference = _texts(tf.reference, (p for p in tf.reference.rglob("*.py")))
    hidden = {k: v for k, v in _texts(tf.hidden, tf.hidden.rglob("*.py")).items() if is_test_module(k)}
    tests = GlobSet(tf.task.protected)
    visible = {k: v for k, v in base.items() if tests.match(k) and is_test_module(k)}
    return flags(tf.task.prompt, [*o.fail_to_pass, *o.pass_to_pass], hidden, base, reference, visible)
