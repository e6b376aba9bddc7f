"""gatebench runs wherever it is put: a bench home that is another copy of the repository runs this gatebench's
cells, and the suite passes from a clone in any folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_harness import require_claude
from conftest import ROOT

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
