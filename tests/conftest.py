from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_harness import claude_bin  # noqa: F401  (fixture for real-CLI tests)

ROOT = Path(__file__).resolve().parent.parent


def outside_tmp_and_home(base: Path) -> bool:
    import os
    import tempfile

    b = base.resolve()
    return not any(b == r or r in b.parents for r in (Path(tempfile.gettempdir()).resolve(), Path("/var/tmp"),
                                                      Path(os.path.expanduser("~")).resolve()))


def elsewhere() -> Path | None:
    """A writable folder neither under the temp dir nor under HOME: the checkout's own (git-ignored) .cache when
    the checkout is such a place, else one of the usual system folders (as root); None when there is none."""
    import os

    if outside_tmp_and_home(ROOT):
        (ROOT / ".cache").mkdir(exist_ok=True)
    for base in (ROOT / ".cache", Path("/var/lib"), Path("/opt"), Path("/srv")):
        if base.is_dir() and os.access(base, os.W_OK) and outside_tmp_and_home(base):
            return base
    return None

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


@pytest.fixture(autouse=True)
def user_state_home(tmp_path: Path, monkeypatch) -> Path:
    """Installed-mode state lives in a per-user folder (XDG_STATE_HOME): keep every test's in its tmp."""
    home = tmp_path / "xdg-state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


def state_of(repo: Path) -> Path:
    """The installed-mode state dir of `repo` (outside it, under XDG_STATE_HOME)."""
    from gatebench.hook.state import default_state_dir

    return Path(default_state_dir(str(repo)))


@pytest.fixture(scope="session", autouse=True)
def _seal_cache_in_tmp(tmp_path_factory, request):
    """`run` and `matrix` cache the seal probe per machine under XDG_CACHE_HOME: keep it out of the user's HOME.
    Under xdist the workers of one run share it (the parent of their basetemps is that run's own), so the probe
    runs once per run, not once per worker; its cache file is written atomically."""
    import os

    old = os.environ.get("XDG_CACHE_HOME")
    if hasattr(request.config, "workerinput"):  # an xdist worker (its env var would leak into nested pytest runs)
        shared = tmp_path_factory.getbasetemp().parent / "xdg-cache"
        shared.mkdir(exist_ok=True)
        os.environ["XDG_CACHE_HOME"] = str(shared)
    else:
        os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if old is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = old


@pytest.fixture
def calc_repo(tmp_path: Path) -> Path:
    """A tiny repo whose visible test fails until calc.add is fixed."""
    repo = tmp_path / "repo"
    write_tree(repo, {"calc.py": BUGGY, "tests/test_calc.py": TEST, "README.md": "calc\n"})
    return repo


def gatebench_cli(*args: str, check: bool = True, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "gatebench", *args], capture_output=True, text=True, **kw)
    if check and r.returncode != 0:
        raise AssertionError(f"gatebench {' '.join(args)} -> {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


def hook_input(repo: Path, session: str = "s1", prompt: str = "p1", **extra) -> str:
    data = {"session_id": session, "cwd": str(repo), "prompt_id": prompt, "hook_event_name": "Stop",
            "stop_hook_active": False, "last_assistant_message": "Done."}
    data.update(extra)
    return json.dumps(data)


def run_hook(state: Path, stdin: str, verb: str = "stop", env: dict | None = None) -> tuple[dict | None, dict | None]:
    """Run the hook as Claude Code does (a cold process); return (stdout JSON, last event line)."""
    r = subprocess.run([sys.executable, "-m", "gatebench.hook", verb, "--state", str(state)], input=stdin,
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, f"hook exited {r.returncode}: {r.stderr}"
    assert "Traceback" not in r.stderr, r.stderr
    out = json.loads(r.stdout) if r.stdout.strip() else None
    events = state / "events.jsonl"
    last = json.loads(events.read_text().splitlines()[-1]) if events.exists() else None
    return out, last


@pytest.fixture
def installed(calc_repo: Path):
    """calc_repo with `gatebench install --config tests`; returns (repo, state dir)."""
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    return calc_repo, state_of(calc_repo)


def alive(pid: int) -> bool:
    """Running, as opposed to gone or a zombie left for an init that does not reap (waits up to 3 s: a kill
    may still be landing)."""
    for _ in range(30):
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return False
        except FileNotFoundError:
            return False
        time.sleep(0.1)
    return True


# Under xdist's `--dist loadfile` (scripts/test) a module runs whole on one worker, and with --no-loadscope-reorder
# modules are handed out in collection order, so the longest ones go first and the last to start are short (longest
# first: the workers end close together). By each module's busy seconds in a fresh-clone CI run at load 12-16
# (2026-12-02, 8717 s over 4 workers; the time per worker this file prints); the modules not named keep their order.
SLOW_FIRST = ("test_installed_semver.py", "test_location.py", "test_task_import.py", "test_selftest.py",
              "test_matrix.py", "test_task_import_env.py", "test_task_import_pypi.py", "test_analyze_calibration.py",
              "test_plugin_eval_cli.py", "test_oracle_seal_cli.py", "test_canaries_cli.py", "test_ray_executor.py",
              "test_hook_faults.py", "test_faults_matrix.py", "test_task_import_vcs.py", "test_install.py",
              "test_hook_flow.py", "test_test_edits_cli.py", "test_import_rules.py", "test_impossible_cli.py",
              "test_seal_hostile.py", "test_analyze_provenance.py", "test_workers.py", "test_audit.py",
              "test_installed_npm.py", "test_render.py", "test_command_gate.py", "test_world.py", "test_seal_probe.py",
              "test_real_cli_hook.py", "test_eval_tasks.py", "test_analyze_browser.py", "test_seal_placement.py")


def pytest_collection_modifyitems(session, config, items) -> None:
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


# Per-worker time under xdist, printed at the end of a run with workers (scripts/test's CI log): each worker's busy
# seconds and when its last test ended show the long pole. GATEBENCH_TEST_TIMES=FILE also writes one JSON line per
# test phase (nodeid, phase, worker, start, stop) for a closer look.
_WORKER_TIMES: list[dict] = []


def pytest_runtest_logreport(report) -> None:
    node = getattr(report, "node", None)  # set by xdist on the controller's copy of a worker's report
    if node is None:
        return
    _WORKER_TIMES.append({"nodeid": report.nodeid, "when": report.when, "worker": node.gateway.id,
                          "start": report.start, "stop": report.stop})


def _worker_summary(rows: list[dict]) -> list[str]:
    t0 = min(r["start"] for r in rows)
    lines = []
    for w in sorted({r["worker"] for r in rows}):
        mine = [r for r in rows if r["worker"] == w]
        last = max(mine, key=lambda r: r["stop"])
        busy = sum(r["stop"] - r["start"] for r in mine)
        files = len({r["nodeid"].split("::")[0] for r in mine})
        lines.append(f"{w}: {files} files, busy {busy:.0f} s, ended at {last['stop'] - t0:.0f} s "
                     f"(last: {last['nodeid'].split('::')[0]})")
    return lines


def pytest_terminal_summary(terminalreporter) -> None:
    if not _WORKER_TIMES:
        return
    import os

    terminalreporter.write_sep("=", "time per xdist worker")
    for line in _worker_summary(_WORKER_TIMES):
        terminalreporter.write_line(line)
    if os.environ.get("GATEBENCH_TEST_TIMES"):
        Path(os.environ["GATEBENCH_TEST_TIMES"]).write_text("".join(json.dumps(r) + "\n" for r in _WORKER_TIMES))
