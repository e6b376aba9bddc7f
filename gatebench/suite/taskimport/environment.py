"""Step 1 of the import: an interpreter the project admits, its environment resolved, built and tried."""

from __future__ import annotations

from pathlib import Path

from gatebench.errors import UsageError
from gatebench.models.task import TaskEnv
from gatebench.suite.pythons import choose, this_version
from gatebench.suite.taskenv import EnvInfo, dep_files, ensure_env, resolve
from gatebench.suite.taskimport.files import write_file
from gatebench.suite.taskimport.git import described_version
from gatebench.suite.taskimport.runs import FIX_OPTIONS, diagnose, oracle_run
from gatebench.suite.testdeps import pkg_info_version, python_versions, vcs_versioned


def environment(repo: Path, parent: str, ptree: Path, ctree: Path, hidden: Path, command: str, *, python: str | None,
                setup: str | None, extra: list[str], timeout_s: float, warnings: list[str],
                log) -> tuple[TaskEnv, EnvInfo, dict]:
    """Step 1: the first admitted interpreter whose environment collects the commit's hidden tests."""
    versions = admitted(ptree, python)
    version = None
    if vcs_versioned(ptree) and not pkg_info_version(ptree):
        version = described_version(repo, parent) or "0.0.0"
        log(f"the project takes its version from git: its builds get {version}")
    tried: list[str] = []
    for v in versions:
        last = bool(python) or v == versions[-1]  # no other interpreter to try after this one
        try:
            res = resolve(ptree, v, version=version, extra=extra, log=log)
        except UsageError as e:  # e.g. code that no longer imports on this interpreter, run by its setup.py
            tried.append(f"python {v}: {str(e).splitlines()[0]}")
            log(f"python {v}: the environment cannot be resolved: {str(e).splitlines()[0]}")
            if last:
                raise UsageError(f"{e}\ntried: {'; '.join(tried)}") from None
            continue
        lay_generated(res.generated, ptree, ctree)
        if res.dropped:
            warnings.append(f"the test requirement files could not be resolved with the rest, left out: "
                            f"{', '.join(res.dropped[:8])}")
        spec = TaskEnv(python=v, requirements=res.requirements, deps=dep_files(ptree), version=version, setup=setup)
        env = ensure_env(ptree, spec)
        run = oracle_run(ctree, hidden, command, env.python, timeout_s)
        if run["tests"] and any(o == "passed" for o in run["tests"].values()):
            if tried:
                warnings.append(f"python {v} chosen: {'; '.join(tried)}")
            return spec, env, run
        why = run["error"] or f"{sum(1 for o in run['tests'].values() if o == 'error')} of {len(run['tests'])} error"
        out = diagnose(ctree, command, env.python, timeout_s, hidden)
        tried.append(f"python {v}: the commit's hidden tests do not run ({why})")
        log(f"python {v}: the hidden tests do not run on the commit: {why}")
        if last:
            raise UsageError(f"the hidden tests ({command.split('--rootdir=. ', 1)[1]}) do not run on the commit in "
                             f"python {v} ({why}); tried: {'; '.join(tried)}; pytest said:\n{out}\nfix: {FIX_OPTIONS}")
    raise AssertionError("unreachable")


def admitted(ptree: Path, python: str | None) -> list[str]:
    """`--python`, else the interpreters installed here that the project admits, in the order they are tried."""
    classifiers, requires = python_versions(ptree)
    versions = [python] if python else choose(classifiers, requires, this_version())
    if not versions:
        from gatebench.suite.pythons import available

        raise UsageError(f"the project admits Python {requires or '?'} (classifiers: {', '.join(classifiers) or 'none'}),"
                         f" and no such interpreter is here (found: {', '.join(available()) or 'none'}); "
                         "fix: --python X.Y with one installed")
    return versions


def lay_generated(generated: dict[str, bytes], ptree: Path, ctree: Path) -> None:
    """The files the project's build writes into its tree (a setuptools-scm _version.py): part of the base as
    built, laid into both trees where they lack them."""
    for rel, data in generated.items():
        for tree in (ptree, ctree):
            if not (tree / rel).exists():
                write_file(tree, rel, data)
