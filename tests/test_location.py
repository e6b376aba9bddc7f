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
# Python through the real CLI, a sim matrix's fork server.
REPRESENTATIVE = ["tests/test_prep.py", "tests/test_seal_hostile.py::test_an_honest_agent_still_solves_in_a_sealed_cell",
                  "tests/test_matrix.py::test_at_the_cost_ceiling_no_new_cell_starts"]


@pytest.mark.cli
@pytest.mark.slow
@pytest.mark.parametrize("where", sorted(clone_bases()))
def test_the_suite_passes_from_a_clone_wherever_ci_puts_it(where, tmp_path):
    """A fresh clone of this checkout (its last commit) in another folder, with its own venv (this one's packages
    through a .pth, its own gatebench first on the path) and the CLI linked in as scripts/setup would install it:
    a representative part of the suite passes there as it does here."""
    require_claude()
    base = clone_bases()[where]
    clone = Path(tempfile.mkdtemp(prefix="gatebench-clone-", dir=base)).resolve()
    try:
        subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{ROOT}", str(clone / "src")], check=True,
                       capture_output=True)
        src = clone / "src"
        (src / ".tools").symlink_to((ROOT / ".tools").resolve())
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(src / ".venv")], check=True)
        site = next((src / ".venv" / "lib").glob("python*/site-packages"))
        import pydantic

        (site / "this_checkouts_packages.pth").write_text(str(Path(pydantic.__file__).resolve().parent.parent) + "\n")
        env = {k: v for k, v in os.environ.items() if k not in ("GATEBENCH_HOME", "GATEBENCH_ENV_CACHE")}
        env["PYTHONPATH"] = str(src)  # the clone's gatebench, in every process the tests start, whatever its cwd
        r = subprocess.run([str(src / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-x", "-p", "no:randomly",
                            *REPRESENTATIVE], cwd=src, env=env, capture_output=True, text=True, timeout=900)
        assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
        assert " passed" in r.stdout and "skipped" not in r.stdout.splitlines()[-1], r.stdout[-1000:]
        assert "gatebench-clone-" in subprocess.run(
            [str(src / ".venv" / "bin" / "python"), "-c", "import gatebench; print(gatebench.__file__)"],
            cwd="/", env=env, capture_output=True, text=True).stdout
    finally:
        shutil.rmtree(clone, ignore_errors=True)
