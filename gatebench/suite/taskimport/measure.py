"""Step 2 of the import: FAIL_TO_PASS and PASS_TO_PASS measured, and the canary proof of each."""

from __future__ import annotations

from pathlib import Path

from gatebench.errors import UsageError
from gatebench.suite.taskimport.files import changed_tests
from gatebench.suite.taskimport.runs import FIX_OPTIONS, cpu_load, diagnose, oracle_run


def measure(ptree: Path, ctree: Path, hidden: Path, command: str, python: str, timeout_s: float, first: dict | None,
            excluded: list[str], sha: str, modules: list[str], log) -> tuple[list[str], list[str], list[str]]:
    """Step 2: parent twice, commit twice plus once under CPU load (the environment step's run is one)."""
    parent_runs = [oracle_run(ptree, hidden, command, python, timeout_s) for _ in range(2)]
    commit_runs = [first or oracle_run(ctree, hidden, command, python, timeout_s),
                   oracle_run(ctree, hidden, command, python, timeout_s)]
    with cpu_load(python):
        commit_runs.append(oracle_run(ctree, hidden, command, python, timeout_s))
    for name, r in (("parent", parent_runs[0]), ("commit", commit_runs[0])):
        if r["error"] and not r["tests"]:
            out = diagnose(ptree if name == "parent" else ctree, command, python, timeout_s, hidden)
            raise UsageError(f"the hidden tests could not run on the {name}: {r['error']}; pytest said:\n{out}\n"
                             f"fix: {FIX_OPTIONS}")
    f2p, p2p, flaky = measure_sets([r["tests"] for r in parent_runs], [r["tests"] for r in commit_runs], excluded)
    if not f2p:
        touched = changed_tests(ptree, ctree, modules)
        shown = []
        for t in touched[:12]:
            seen = [sorted({v for k, v in r["tests"].items() if k == t or k.startswith(t + "[")}) or ["not run"]
                    for r in (parent_runs[0], commit_runs[0])]
            shown.append(f"{t} (parent: {'/'.join(seen[0])}, commit: {'/'.join(seen[1])})")
        errors = sum(1 for v in parent_runs[0]["tests"].values() if v == "error")
        why = (f"; on the parent {errors} of {len(parent_runs[0]['tests'])} hidden tests error (they may not import "
               "there)" if errors else "")
        hint = (f"fix: {FIX_OPTIONS}" if errors or flaky else
                "a task needs a commit whose tests fail before it: pick the commit that fixed the behaviour")
        raise UsageError(f"commit {sha[:12]}: nothing goes from failing to passing (its tests already pass on the "
                         f"parent, or fail on the commit too); the tests it added or changed: "
                         f"{'; '.join(shown) or 'none ran'}{why}"
                         + (f"; left out as varying: {'; '.join(flaky[:5])}" if flaky else "") + f"\n{hint}")
    return f2p, p2p, flaky


def measure_sets(parent_runs: list[dict[str, str]], commit_runs: list[dict[str, str]],
                 excluded: list[str] = ()) -> tuple[list[str], list[str], list[str]]:  # type: ignore[assignment]
    """(FAIL_TO_PASS, PASS_TO_PASS, left out with why) from per-test outcomes. A test counts only if it passed in
    every commit run and its parent outcome never varied; one that passed in some commit runs only is flaky
    (or load-sensitive: the last commit run is made under CPU load) and left out, as is one that passed on
    the parent in some runs only."""
    ids = set().union(*commit_runs)
    ex = {e.split(" ", 1)[0] for e in excluded}
    f2p, p2p, out = [], [], []
    for t in sorted(ids):
        commit = [r.get(t) for r in commit_runs]
        parent = [r.get(t) for r in parent_runs]
        if any(t == e or t.startswith(e + "[") for e in ex):
            continue
        if all(c == "passed" for c in commit):
            if all(p == "passed" for p in parent):
                p2p.append(t)
            elif all(p != "passed" for p in parent):
                f2p.append(t)
            else:
                out.append(f"{t} (flaky on the parent: {', '.join(map(str, parent))})")
        elif any(c == "passed" for c in commit):
            load = " (fails under load)" if commit[-1] != "passed" and all(c == "passed" for c in commit[:-1]) else ""
            out.append(f"{t} (flaky on the commit{load}: {', '.join(map(str, commit))})")
    return f2p, p2p, out


def prove_canaries(ctree: Path, ptree: Path, hidden: Path, command: str, python: str, timeout_s: float,
                   f2p: list[str], p2p: list[str], warnings: list[str], exclude: list[str] | None = None) -> list[str]:
    """The expected tests whose canary fails the proof (suite/canaries.py) on the commit (the reference, three
    runs) and the parent (the base): the task's `canaries.exclude`. The injections are proven by selftest.
    `exclude`: tests given no twin here either (a recipe's canaries_exclude: a twin that breaks its module's
    collection fails every test of it, and the proof would leave them all out)."""
    from gatebench.suite import canaries as proof

    kw = {"fail_to_pass": f2p, "pass_to_pass": p2p}
    ex = {"exclude": list(exclude)} if exclude else {}
    ref = [oracle_run(ctree, hidden, command, python, timeout_s, canaries={**o, **ex}, **kw) for o in proof.PROOF_RUNS]
    base = oracle_run(ptree, hidden, command, python, timeout_s, canaries={**proof.OTHER_RUN, **ex}, **kw)
    p = proof.prove(ref, {"the parent": base}, [])
    warnings += [f"canary proof: {m}" for m in p.problems]
    return sorted(p.failures)
