"""gatebench runs wherever it is put: a bench home that is another copy of the repository runs this gatebench's
cells, and the suite passes from a clone in any folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from cli_harness import require_claude
from conftest import ROOT, elsewhere

SKIP = shutil.ignore_patterns("__pycache__", "*.pyc")


def second_copy(dest: Path) -> Path:
    """A bench home that is a copy of this repository (its own gatebench/ included), holding task T1. Its
    package says when anything imports it."""
    shutil.copytree(ROOT / "gatebench", dest / "gatebench", ignore=SKIP)
    shutil.copytree(ROOT / "configs", dest / "configs")
    for d in ("tasks", "hidden", "reference", "inject"):
        shutil.copytree(ROOT / d / "T1", dest / d / "T1", ignore=SKIP)
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")
    mark = dest / "imported-the-copy"
    with open(dest / "gatebench" / "__init__.py", "a") as f:
        f.write(f"\nopen({str(mark)!r}, 'a').write(__file__ + '\\n')\n")
    return mark


@pytest.mark.cli
@pytest.mark.slow
def test_a_bench_home_that_is_a_second_copy_of_the_repository_runs_a_sealed_matrix_on_this_gatebench(tmp_path):
    """gatebench installed from one checkout, the bench home another copy of the repository, the matrix started
    from that copy (as a user who pip-installs gatebench and clones the repository for its tasks): every cell's
    child runs the matrix's own gatebench, and the seal check finds the guard prep wrote."""
    require_claude()
    home = tmp_path / "second-copy"
    mark = second_copy(home)
    env = {**os.environ, "GATEBENCH_HOME": str(home)}
    # As the installed `gatebench` script starts: this checkout's package on the path, the cwd not.
    installed = (f"import sys; sys.path[0] = {str(ROOT)!r}; from gatebench.cli import main; "
                 "sys.argv[0] = 'gatebench'; sys.exit(main())")
    r = subprocess.run([sys.executable, "-c", installed, "matrix", "--worker", "sim", "--configs", "none,tests",
                        "--tasks", "T1", "--run-id", "two", "--retries", "0"], cwd=home, env=env,
                       capture_output=True, text=True, timeout=600)
    ledger = home / "runs" / "two" / "results.jsonl"
    recs = [json.loads(x) for x in ledger.read_text().splitlines()] if ledger.exists() else []
    assert r.returncode == 0, (r.stderr[-3000:], [(x["cell_id"], x["status"], x.get("error")) for x in recs])
    assert len(recs) == 2 and {x["status"] for x in recs} == {"ok"} and all(x["sealed"] for x in recs), recs
    assert not mark.exists(), f"a cell process imported the bench home's copy: {mark.read_text()}"


def clone_bases() -> dict[str, Path]:
    """Where CI may put the clone: under the temp dir, and somewhere that is neither it nor HOME."""
    other = elsewhere()
    return {"tmp": Path(tempfile.gettempdir()), **({"elsewhere": other} if other else {})}


# A small part of the suite that touches what a location changes: paths from the checkout (tasks, configs, the
# bench home), its venv inside a bench home the seal hides, a sealed agent running the tests with that venv's
# Python through the real CLI (the oracle too), a task environment in the checkout's cache.
REPRESENTATIVE = ["tests/test_prep.py", "tests/test_seal_hostile.py::test_an_honest_agent_still_solves_in_a_sealed_cell",
                  "tests/test_task_import_env.py::test_the_agents_own_python_in_a_prepared_cell_is_the_task_environment"]


def venv_with(dest: Path, wanted: list[str]) -> None:
    """A venv at `dest` holding the distributions `wanted` and what they require, copied file by file from this
    one's site-packages (what pip would install from the same wheels; no network, a second or so)."""
    from importlib import metadata

    from packaging.requirements import Requirement

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True)
    site = next((dest / "lib").glob("python*/site-packages"))
    todo, done = list(wanted), set()
    while todo:
        name = todo.pop()
        dist = metadata.distribution(name)
        key = dist.metadata["Name"].lower()
        if key in done:
            continue
        done.add(key)
        for f in dist.files or []:
            path = Path(str(dist.locate_file(f)))
            if path.is_file() and not str(f).startswith(".."):
                (site / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, site / f)
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)


def cached_envs(dest: Path) -> None:
    """The task environments this checkout's cache holds, as the clone's cache would after a first build: copied
    in, their fingerprints taken where they now are (a venv runs from a copy: `python -m` needs no script). The
    resolvers too (bare venvs the import runs `python -m pip` from, with no ready mark)."""
    from gatebench.suite.taskenv import env_python, fingerprint, intact

    src = ROOT / ".cache" / "envs"
    for d in sorted(src.iterdir()) if src.is_dir() else []:
        if d.is_dir() and d.name.startswith("resolver-py") and env_python(d).is_file():
            shutil.copytree(d, dest / d.name, symlinks=True)
        elif d.is_dir() and intact(d):
            shutil.copytree(d, dest / d.name, symlinks=True)
            ready = json.loads((dest / d.name / "ready.json").read_text())
            (dest / d.name / "ready.json").write_text(json.dumps({**ready, "fingerprint": fingerprint(dest / d.name)}))


@pytest.fixture(scope="module")
def warm_env_cache(tmp_path_factory) -> None:
    """The task environment REPRESENTATIVE's import builds, built first in this checkout's cache, so that each clone
    gets it by cached_envs rather than building it (and its resolver) itself: in a fresh CI clone this module starts
    before tests/test_task_import.py has built it (the first clone took 371 s, the second 197 s, 2026-12-02). The
    same import, stopped right after its environment step (both FAIL_TO_PASS tests left out: exit 2)."""
    from test_task_import import ENV_CACHE, make_history

    tmp = tmp_path_factory.mktemp("warm-env")
    repo, c = make_history(tmp / "shop")
    shutil.copytree(ROOT / "configs", tmp / "bench" / "configs")
    env = {**os.environ, "GATEBENCH_HOME": str(tmp / "bench"), "GATEBENCH_ENV_CACHE": str(ENV_CACHE)}
    subprocess.run([sys.executable, "-m", "gatebench", "task", "import", str(repo), c["fix"], "--id", "warm",
                    "--exclude", "tests/test_discount.py::test_discount_rounds_half_up",
                    "tests/test_discount.py::test_percent_above_100_is_clamped"], cwd=ROOT, env=env,
                   capture_output=True, text=True, timeout=900)


def run_from_a_clone(base: Path, rev: str = "HEAD") -> subprocess.CompletedProcess:
    """Clone this checkout's `rev` under `base`, give it its own venv, task environment cache and the CLI, and
    run REPRESENTATIVE there with its own gatebench."""
    clone = Path(tempfile.mkdtemp(prefix="gatebench-clone-", dir=base)).resolve()
    try:
        src = clone / "src"
        subprocess.run(["git", "clone", "-q", "--no-checkout", f"file://{ROOT}", str(src)], check=True,
                       capture_output=True)
        subprocess.run(["git", "-C", str(src), "checkout", "-q", rev], check=True, capture_output=True)
        (src / ".tools").symlink_to((ROOT / ".tools").resolve())
        venv_with(src / ".venv", ["pydantic", "pyyaml", "filelock", "pytest"])
        cached_envs(src / ".cache" / "envs")
        env = {k: v for k, v in os.environ.items() if k not in ("GATEBENCH_HOME", "GATEBENCH_ENV_CACHE")}
        env["PYTHONPATH"] = str(src)  # the clone's gatebench, in every process the tests start, whatever its cwd
        py = str(src / ".venv" / "bin" / "python")
        r = subprocess.run([py, "-m", "pytest", "-q", "-x", "-p", "no:randomly", *REPRESENTATIVE], cwd=src, env=env,
                           capture_output=True, text=True, timeout=900)
        which = subprocess.run([py, "-c", "import gatebench; print(gatebench.__file__)"], cwd="/", env=env,
                               capture_output=True, text=True).stdout
        r.stdout += f"\ngatebench from {which}"
        return r
    finally:
        shutil.rmtree(clone, ignore_errors=True)


@pytest.mark.cli
@pytest.mark.slow
@pytest.mark.parametrize("where", sorted(clone_bases()))
def test_the_suite_passes_from_a_clone_wherever_ci_puts_it(where, warm_env_cache):
    """A fresh clone of this checkout (its last commit) in another folder, with its own venv inside it (the
    packages the tests need, its own gatebench first on the path), its own task environment cache and the CLI
    linked in as scripts/setup would install it: a representative part of the suite passes there as it does
    here (under /tmp a task environment once vanished from the sealed agent's PATH)."""
    require_claude()
    r = run_from_a_clone(clone_bases()[where])
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    summary = next(line for line in reversed(r.stdout.splitlines()) if " passed" in line)
    assert "skipped" not in summary and "gatebench-clone-" in r.stdout.splitlines()[-1], r.stdout[-1000:]
