"""The oracle reads per-test outcomes from JUnit XML and never writes inside the work copy."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from conftest import FIXED, write_tree

from gatebench.oracle.oracle import run_oracle
from gatebench.oracle.oracle import test_id as junit_id

CMD = "{python} -m pytest -q -p no:cacheprovider hidden_tests"


def tree_state(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            p = Path(dirpath) / n
            rel = str(p.relative_to(root))
            out[rel] = "dir" if p.is_dir() else hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def hidden(tmp_path: Path, body: str) -> Path:
    d = tmp_path / "hidden"
    write_tree(d, {"test_h.py": "from calc import add\n\n" + body})
    return d


def test_outcomes_per_test(calc_repo, tmp_path):
    h = hidden(tmp_path, "def test_ok():\n    assert add(0, 0) == 0\n\n"
                         "def test_add():\n    assert add(2, 3) == 5\n\n"
                         "import pytest\n@pytest.mark.parametrize('a', [1, 2])\n"
                         "def test_p(a):\n    assert add(a, 0) == a\n")
    r = run_oracle(str(calc_repo), str(h), CMD)
    assert r["solved"] is False and r["error"] is None
    assert r["tests"] == {"test_h.py::test_ok": "passed", "test_h.py::test_add": "failed",
                          "test_h.py::test_p[1]": "passed", "test_h.py::test_p[2]": "passed"}
    (calc_repo / "calc.py").write_text(FIXED)
    assert run_oracle(str(calc_repo), str(h), CMD)["solved"] is True


def test_work_copy_byte_identical_even_on_crash_and_timeout(calc_repo, tmp_path):
    before = tree_state(calc_repo)
    writes = ("import os\nopen('written_by_test.txt', 'w').write('x')\nos.makedirs('newdir', exist_ok=True)\n"
              "def test_w():\n    open('calc.py', 'a').write('# tampered\\n')\n    assert False\n")
    r = run_oracle(str(calc_repo), str(hidden(tmp_path / "a", writes)), CMD)
    assert r["solved"] is False
    crash = "import os\ndef test_crash():\n    os._exit(3)\n"
    r = run_oracle(str(calc_repo), str(hidden(tmp_path / "b", crash)), CMD)
    assert r["solved"] is False and r["error"]
    hang = "import time\ndef test_hang():\n    time.sleep(60)\n"
    r = run_oracle(str(calc_repo), str(hidden(tmp_path / "c", hang)), CMD, timeout_s=1.5)
    assert r["solved"] is False and "timed out" in r["error"]
    assert tree_state(calc_repo) == before  # no __pycache__, no .pytest_cache, nothing


def test_test_id_from_junit_names():
    assert junit_id("hidden_tests.test_x", "test_a[1-2]", "hidden_tests") == "test_x.py::test_a[1-2]"
    assert junit_id("hidden_tests.sub.test_x.TestK", "test_a", "hidden_tests") == "sub/test_x.py::TestK::test_a"
