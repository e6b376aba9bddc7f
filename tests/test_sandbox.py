"""Agent code run by gatebench (the oracle, the tests gate) sits in bubblewrap: no network, no writes
outside its copy, no bench home, HOME or state. Each check runs the same probe unsandboxed first, so it
proves the probe can see what the sandbox hides."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pytest
from conftest import hook_input, run_hook, write_tree

from gatebench.cell.prep import prep
from gatebench.oracle import sandbox
from gatebench.oracle.oracle import run_oracle
from gatebench.paths import project_root
from gatebench.suite.tasks import apply_state, load_task

CMD = "{python} -m pytest -q -p no:cacheprovider hidden_tests"


def outcome_probe(tmp_path: Path, calc_repo: Path, checks: dict[str, str], mode: str) -> dict[str, str]:
    """Each check is a statement run as one hidden test; returns name -> outcome (`passed`: it was allowed)."""
    hidden = tmp_path / f"hidden-{mode}"
    src = ["import os, socket\n"]
    for name, expr in checks.items():
        src.append(f"def test_{name}():\n    {expr}\n")
    write_tree(hidden, {"test_probe.py": "\n".join(src)})
    r = run_oracle(str(calc_repo), str(hidden), CMD, sandbox_mode=mode)
    assert r["sandboxed"] is (mode != "off"), r
    return {t.split("::test_", 1)[1]: v for t, v in r["tests"].items()}


@pytest.fixture
def listener():
    """A TCP server on the host's loopback: reachable from an unsandboxed process."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    stop = threading.Event()

    def serve():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                srv.accept()[0].close()
            except OSError:
                pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield srv.getsockname()[1]
    stop.set()
    t.join()
    srv.close()


def test_sandbox_blocks_network_writes_outside_and_private_reads(tmp_path: Path, calc_repo: Path, listener: int):
    outside = tmp_path / "outside"
    outside.mkdir()
    home_file = next(p for p in Path.home().iterdir() if p.is_file())
    hidden_file = next((project_root() / "hidden" / "T1").glob("*.py"))
    checks = {
        "network": f"socket.create_connection(('127.0.0.1', {listener}), timeout=2).close()",
        "write_outside": f"open({str(outside / 'x.txt')!r}, 'w').write('x')",
        "read_hidden": f"open({str(hidden_file)!r}).read()",
        "read_reference": f"os.listdir({str(project_root() / 'reference')!r})",
        "read_home": f"open({str(home_file)!r}, 'rb').read(1)",
        "write_usr": "open('/usr/gatebench-probe', 'w')",
        "write_copy": "open('inside.txt', 'w').write('x')",
    }
    # Unsandboxed (as root) everything but nothing is blocked: the probes can tell the difference.
    free = outcome_probe(tmp_path / "a", calc_repo, {k: v for k, v in checks.items() if k != "write_usr"}, "off")
    assert set(free.values()) == {"passed"}, free
    os.remove(outside / "x.txt")
    boxed = outcome_probe(tmp_path / "b", calc_repo, checks, "required")
    assert boxed == {"network": "failed", "write_outside": "failed", "read_hidden": "failed", "read_reference": "failed",
                     "read_home": "failed", "write_usr": "failed", "write_copy": "passed"}, boxed
    assert not (outside / "x.txt").exists()


def test_environment_is_gatebenchs(tmp_path: Path, calc_repo: Path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "evil"))
    monkeypatch.setenv("PYTEST_ADDOPTS", "-k nothing")
    monkeypatch.setenv("PYTEST_PLUGINS", "evil")
    monkeypatch.setenv("MY_SECRET", "x")
    checks = {name: f"assert {name!r} not in os.environ" for name in
              ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "MY_SECRET")}
    for mode in ("required", "auto", "off"):
        got = outcome_probe(tmp_path / mode, calc_repo, checks, mode)
        assert set(got.values()) == {"passed"}, (mode, got)


def test_private_dirs_under_a_mounted_root_are_covered(tmp_path: Path):
    venv = tmp_path / "bench" / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    secret = venv / "hidden"
    secret.mkdir()
    argv = sandbox.wrap(["true"], writable=[str(tmp_path / "copy")], cwd=str(tmp_path), python=str(venv / "bin" / "python"),
                        hide=[str(secret), str(tmp_path / "suite" / "tasks")])
    assert ["--ro-bind", str(venv), str(venv)] == argv[argv.index(str(venv)) - 1: argv.index(str(venv)) + 2]
    assert ["--tmpfs", str(secret)] == argv[argv.index(str(secret)) - 1: argv.index(str(secret)) + 1]
    assert str(tmp_path / "suite" / "tasks") not in argv  # never mounted at all: nothing to cover
    assert {"--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"} <= set(argv)


def test_required_sandbox_without_bwrap_runs_nothing_and_says_why(tmp_path: Path, calc_repo: Path, monkeypatch):
    monkeypatch.setattr(sandbox, "_available", {"why": "bwrap (bubblewrap) is not installed"})
    hidden = tmp_path / "h"
    write_tree(hidden, {"test_h.py": "def test_x():\n    open('/tmp/gatebench-must-not-run', 'w')\n"})
    r = run_oracle(str(calc_repo), str(hidden), CMD)
    assert r["solved"] is False and r["sandboxed"] is False and "sandbox required" in r["error"] and r["tests"] == {}
    auto = run_oracle(str(calc_repo), str(hidden), CMD, sandbox_mode="auto")
    assert auto["sandboxed"] is False and auto["tests"] == {"test_h.py::test_x": "passed"}
    os.remove("/tmp/gatebench-must-not-run")


def test_tests_gate_in_bench_mode_runs_sandboxed_under_the_baseline_harness(tmp_path: Path):
    cell = tmp_path / "c"
    prep("T1", "tests", cell)
    repo = cell / "repo"
    apply_state(load_task("T1"), "base", repo)
    # The visible tests fail on the base; a conftest that turns failures into passes must not help.
    (repo / "conftest.py").write_text("import pytest\n\n@pytest.hookimpl(hookwrapper=True)\n"
                                      "def pytest_runtest_makereport(item, call):\n"
                                      "    rep = (yield).get_result()\n    rep.outcome = 'passed'\n")
    _out, ev = run_hook(cell / "state", hook_input(repo))
    gate = next(g for g in ev["gates"] if g["kind"] == "tests")
    assert gate["verdict"] == "block" and gate["details"]["sandboxed"] is True
    assert [a["path"] for a in gate["details"]["harness"]] == ["conftest.py"]
    apply_state(load_task("T1"), "reference", repo)
    (repo / "conftest.py").unlink()
    _out, ev = run_hook(cell / "state", hook_input(repo, prompt="p2"))
    gate = next(g for g in ev["gates"] if g["kind"] == "tests")
    assert gate["verdict"] == "pass" and gate["details"]["harness"] == [], json.dumps(gate)[:500]
