"""The seal, one wall at a time: the file-tool guard's rule, the probe through the real CLI (it passes sealed and
names each leak when a wall is down), the per-machine cache, and `run` / `matrix` refusing to start unsealed."""

from __future__ import annotations

import json
import os

import pytest
from cli_harness import require_claude

from gatebench.cell import seal
from gatebench.cell.seal_guard import decide
from gatebench.cli import main
from gatebench.errors import UsageError

POLICY = {"read_deny": ["/b", "/b/runs", "/b/runs/r/c1", "/tmp"], "read_allow": ["/b/runs/r/c1/repo", "/b/.venv",
                                                                                  "/b/runs/r/c1/tmp/claude-0"],
          "write": ["/b/runs/r/c1/repo", "/b/runs/r/c1/tmp/claude-0"],
          "never_write": ["/b/runs/r/c1/repo/.claude/settings.json", "/b/runs/r/c1/repo/.claude/settings.local.json"],
          "never_write_under": ["/b/runs/r/c1/repo/.claude"]}
REPO = "/b/runs/r/c1/repo"


def ev(tool: str, path: str, cwd: str = REPO) -> dict:
    return {"tool_name": tool, "tool_input": {"file_path": path}, "cwd": cwd}


@pytest.mark.parametrize("tool,path", [
    ("Read", "/b/hidden/T1/test_x.py"), ("Read", "/b/runs/r/c2/repo/a.py"), ("Read", "/b/runs/r/c1/state/config.json"),
    ("Read", "/tmp/oracle-copy/test_x.py"), ("Read", "../../c2/repo/a.py"), ("Read", "/b/runs/r/c1/tmp/x"),
    ("Write", "/b/runs/r/c1/state/config.json"), ("Write", "/b/runs/r/c1/home/.claude/settings.json"),
    ("Write", f"{REPO}/.claude/settings.local.json"), ("Edit", f"{REPO}/.claude/settings.json"),
    ("Write", f"{REPO}/.claude/agents/evil.md"), ("Write", f"{REPO}/.claude/skills/x/SKILL.md"),
    ("Write", "/b/.venv/lib/evil.pth"), ("Write", "/usr/lib/python3/dist-packages/evil.pth"), ("Write", "/etc/x"),
])
def test_the_guard_refuses_reads_and_writes_outside_the_seal(tool, path):
    assert decide(ev(tool, path), POLICY) is not None


@pytest.mark.parametrize("tool,path", [
    ("Read", f"{REPO}/pkg/mod.py"), ("Read", "pkg/mod.py"), ("Read", "/b/.venv/lib/site.py"), ("Read", "/etc/hostname"),
    ("Write", f"{REPO}/pkg/mod.py"), ("Edit", "pkg/mod.py"), ("Write", "/b/runs/r/c1/tmp/claude-0/notes.txt"),
    ("Read", f"{REPO}/.claude/settings.json"),
])
def test_the_guard_lets_the_work_copy_and_the_agents_temp_dir_through(tool, path):
    assert decide(ev(tool, path), POLICY) is None


def test_the_guard_resolves_links_out_of_the_work_copy(tmp_path):
    bench = tmp_path / "b"
    repo = bench / "runs" / "c1" / "repo"
    (bench / "reference").mkdir(parents=True)
    (bench / "reference" / "mod.py").write_text("ref\n")
    repo.mkdir(parents=True)
    (repo / "mod.py").symlink_to(bench / "reference" / "mod.py")
    (repo / "own.py").write_text("x\n")
    pol = {"read_deny": [str(bench)], "read_allow": [str(repo)], "write": [str(repo)], "never_write": []}
    assert "outside" in decide(ev("Read", str(repo / "mod.py"), str(repo)), pol)
    assert decide(ev("Write", str(repo / "mod.py"), str(repo)), pol) is not None
    assert decide(ev("Read", str(repo / "own.py"), str(repo)), pol) is None


def test_a_guard_that_cannot_judge_refuses(tmp_path, capsys, monkeypatch):
    import io

    from gatebench.cell import seal_guard

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(ev("Read", f"{REPO}/a.py"))))
    assert seal_guard.main(["guard", str(tmp_path / "missing.json")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.cli
def test_the_probe_proves_the_seal_here_and_names_every_leak_without_it(monkeypatch):
    require_claude()
    res = seal.run_probe()
    assert res.sealed, res.problems
    assert res.cli_version == "2.1.332"
    # The world alone: Claude Code's sandbox switched off, reads and writes outside the world still fail, and
    # only what that sandbox adds inside the world (read-only settings and .claude/ in the work copy) is named.
    real = seal.seal_settings
    monkeypatch.setattr(seal, "seal_settings", lambda *a: {**real(*a), "sandbox": {"enabled": False}})
    bad = seal.run_probe()
    assert not bad.sealed
    text = "\n".join(bad.problems)
    for what in ("home_settings", "local_settings", "agent_definition"):
        assert what in text, text
    for what in ("private", "state", "venv", ": tmp", "decoy", "bench ("):
        assert what not in text, text
    # Without the world (the deny-list seal of old): the copies of the bench under HOME are read and found.
    monkeypatch.setattr(seal, "seal_settings", real)
    monkeypatch.setattr("gatebench.cell.world.wrap", lambda argv, spec, claude: argv)
    open_world = seal.run_probe()
    text = "\n".join(open_world.problems)
    assert not open_world.sealed and "read a private file" in text and "sees private files outside the world" in text
    assert "probe-decoys" in text and "copied private content" not in text, text
    assert "bubblewrap" in open_world.message() and "--unsealed" in open_world.message()


def test_only_a_pass_of_this_exact_set_up_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls = []

    def fake(claude=None, timeout_s=120.0, result=[True]):  # noqa: B006
        calls.append(1)
        return seal.ProbeResult(result[0], [] if result[0] else ["leak"], 1.0, "2.1.332")

    claude = tmp_path / "claude"
    claude.write_text("#!/bin/sh\n")
    monkeypatch.setattr(seal, "run_probe", fake)
    assert seal.prove_seal(claude).sealed and len(calls) == 1
    assert seal.prove_seal(claude).cached and len(calls) == 1
    os.utime(claude, ns=(1, 1))  # another CLI binary: the cached pass proves nothing
    assert not seal.prove_seal(claude).cached and len(calls) == 2
    fake.__defaults__[2][0] = False
    seal.cache_path().unlink()
    assert not seal.prove_seal(claude).sealed and not seal.prove_seal(claude).sealed and len(calls) == 4


def test_run_and_matrix_refuse_to_start_when_the_probe_fails(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(seal, "run_probe", lambda *a, **k: seal.ProbeResult(False, ["Bash read a private file"], 1.0))
    with pytest.raises(UsageError, match=r"not sealed.*Bash read a private file.*bubblewrap.*--unsealed"):
        seal.require_seal(False)
    assert seal.require_seal(True) is False  # --unsealed: no probe, a warning
    assert "--unsealed" in capsys.readouterr().err
    from gatebench.cell.prep import prep

    cell = tmp_path / "cell"
    prep("T1", "none", cell)
    assert main(["run", str(cell)]) == 2
    assert "not sealed" in capsys.readouterr().err
    assert not (cell / "worker.json").exists()  # nothing ran
    assert main(["matrix", "--configs", "none", "--tasks", "T1", "--runs-dir", str(tmp_path / "runs")]) == 2
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").rglob("results.jsonl"))


def test_prep_writes_the_seal_into_the_cell(tmp_path):
    from gatebench.cell.prep import prep
    from gatebench.paths import project_root

    prep("T1", "none", tmp_path / "c")
    s = json.loads((tmp_path / "c" / "repo" / ".claude" / "settings.json").read_text())
    box = s["sandbox"]
    assert box["enabled"] and box["allowUnsandboxedCommands"] is False and box["failIfUnavailable"] is True
    root = str(project_root())
    assert root in box["filesystem"]["denyRead"] and "/tmp" in box["filesystem"]["denyRead"]
    assert str((tmp_path / "c" / "repo").resolve()) in box["filesystem"]["allowRead"]
    assert any(seal.GUARD_SCRIPT in h["command"] for g in s["hooks"]["PreToolUse"] for h in g["hooks"])
    assert f"Edit(/{(tmp_path / 'c' / 'home').resolve()}/.claude/settings.json)" in s["permissions"]["deny"]
    pol = json.loads((tmp_path / "c" / "state" / "seal.json").read_text())
    assert pol["write"] == [str((tmp_path / "c" / "repo").resolve()), str((tmp_path / "c" / "tmp").resolve()
                                                                         / f"claude-{os.getuid()}")]
    assert json.loads((tmp_path / "c" / "cell.json").read_text())["sealed"] is None  # the runner writes it


def test_a_matrix_cell_outside_the_bench_home_hides_its_run_and_the_runs_folder(tmp_path):
    from gatebench.cell.prep import prep

    runs = (tmp_path / "elsewhere" / "runs").resolve()
    cell = runs / "R1" / "cells" / "none" / "T1" / "r0"
    prep("T1", "none", cell, run_id="R1")
    box = json.loads((cell / "repo" / ".claude" / "settings.json").read_text())["sandbox"]["filesystem"]
    assert str(runs / "R1") in box["denyRead"] and str(runs) in box["denyRead"]
    pol = json.loads((cell / "state" / "seal.json").read_text())
    assert decide(ev("Read", str(runs / "R1" / "cells" / "none" / "T1" / "r1" / "repo" / "x.py"), str(cell / "repo")),
                  pol) is not None
    assert decide(ev("Read", str(runs / "R1" / "results.jsonl"), str(cell / "repo")), pol) is not None
    assert decide(ev("Read", str(cell / "repo" / "pagekit" / "paginator.py"), str(cell / "repo")), pol) is None


def test_a_cell_without_the_seal_is_not_run_as_sealed(tmp_path):
    from gatebench.cell.cell import CellPaths
    from gatebench.cell.prep import prep
    from gatebench.cell.workers import WorkerOptions, run_worker

    cell = tmp_path / "c"
    prep("T1", "none", cell)
    assert seal.cell_problem(cell) is None
    settings = cell / "repo" / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    del data["sandbox"]  # a cell prepared before the seal existed
    settings.write_text(json.dumps(data))
    assert "no sandbox" in seal.cell_problem(cell)
    with pytest.raises(UsageError, match=r"not prepared with the seal.*--unsealed"):
        run_worker("sim", CellPaths(cell), WorkerOptions(sealed=True))
    assert not (cell / "worker.json").exists()
    prep("T1", "none", cell, force=True)
    (cell / "state" / "seal.json").unlink()
    assert "guard" in seal.cell_problem(cell)
    prep("T1", "none", cell, force=True)
    (cell / "state" / "world.json").unlink()  # a cell prepared before the agent's world
    assert "world" in seal.cell_problem(cell)


def test_the_npm_shim_answers_root_at_once_and_passes_the_rest_on(tmp_path):
    import shutil
    import subprocess

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real = bin_dir / "npm"
    real.write_text('#!/bin/sh\necho "real npm $*"\n')
    real.chmod(0o755)
    for c in ("cell", "cell2", "cell3"):
        (tmp_path / c).mkdir()
    env = seal.worker_env(tmp_path / "cell", True, path=str(bin_dir))
    shim_dir = env["PATH"].split(os.pathsep)[0]
    assert env["PATH"] == f"{shim_dir}{os.pathsep}{bin_dir}" and shim_dir.startswith(str(tmp_path / "cell" / "tmp"))
    npm = shutil.which("npm", path=env["PATH"])
    assert subprocess.run([npm, "root", "-g"], capture_output=True, text=True).stdout == ""
    assert subprocess.run([npm, "ls", "-g"], capture_output=True, text=True).stdout == "real npm ls -g\n"
    assert subprocess.run([npm, "root"], capture_output=True, text=True).stdout == "real npm root\n"
    assert "PATH" not in seal.worker_env(tmp_path / "cell2", False, path=str(bin_dir))  # unsealed: no shim
    assert "PATH" not in seal.worker_env(tmp_path / "cell3", True, path=str(tmp_path / "nowhere"))  # no npm


def test_the_seal_check_knows_the_guard_by_its_bytes_not_its_path(tmp_path):
    """A cell prepared by another copy of gatebench names that copy's guard: the same bytes are the same guard;
    other bytes (an older or edited guard) or a missing file are not."""
    import shutil

    from gatebench.cell.prep import prep

    cell = tmp_path / "c"
    prep("T1", "none", cell)
    settings = cell / "repo" / ".claude" / "settings.json"
    text = settings.read_text()
    other = tmp_path / "other-copy" / "gatebench" / "cell" / "seal_guard.py"
    other.parent.mkdir(parents=True)
    shutil.copy(seal.GUARD_SCRIPT, other)
    settings.write_text(text.replace(seal.GUARD_SCRIPT, str(other)))
    assert seal.cell_problem(cell) is None
    other.write_text(other.read_text() + "\n# edited\n")
    assert "not this gatebench's" in seal.cell_problem(cell)
    other.unlink()
    assert "not this gatebench's" in seal.cell_problem(cell)


def test_the_file_tools_may_not_write_what_the_sandbox_keeps_read_only_for_bash(tmp_path):
    """.git/config (core.fsmonitor) and .git/hooks run code when git runs in the work copy outside the sandbox:
    Bash cannot write them (the sandbox's own rule, measured), nor may Write and Edit."""
    from gatebench.cell.prep import prep

    cell = tmp_path / "c"
    prep("T1", "none", cell)
    pol = json.loads((cell / "state" / "seal.json").read_text())
    repo = str((cell / "repo").resolve())
    for rel in (".git/config", ".git/hooks/post-checkout", ".gitmodules", ".bashrc", ".mcp.json", ".vscode/tasks.json",
                ".claude/commands/x.md"):
        assert "may not write" in decide(ev("Write", f"{repo}/{rel}", repo), pol), rel
    for rel in (".git/info/exclude", "conftest.py", "pagekit/paginator.py", "sub/.git/config"):
        assert decide(ev("Write", f"{repo}/{rel}", repo), pol) is None, rel


def test_read_rules_give_back_the_interpreter_wherever_it_lives_but_never_a_folder_that_holds_a_private_one(
        tmp_path, monkeypatch):
    from gatebench.cell.prep import prep
    from gatebench.paths import package_parent

    venv = tmp_path / "envs" / "e"
    import subprocess
    import sys

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    # A path entry that holds the bench home (the gatebench venv's editable install names the checkout itself).
    (site / "names_the_bench.pth").write_text(str(package_parent()) + "\n")
    cell = tmp_path / "c"
    prep("T1", "none", cell, python=str(venv / "bin" / "python"))
    box = json.loads((cell / "repo" / ".claude" / "settings.json").read_text())["sandbox"]["filesystem"]
    assert str(venv) in box["allowRead"]  # under /tmp, which is denied: given back
    assert str(package_parent()) in box["denyRead"] and str(package_parent()) not in box["allowRead"]
    assert not [a for a in box["allowRead"] if any(d.startswith(a.rstrip("/") + "/") for d in box["denyRead"])]


def test_an_imported_tasks_source_repository_and_the_worktree_tools_are_denied(tmp_path):
    import dataclasses
    import sys

    from gatebench.cell.cell import CellPaths
    from gatebench.cell.prep import seal_paths
    from gatebench.models.task import ImportSource
    from gatebench.suite.tasks import load_task

    src = tmp_path / "src"
    (src / ".git").mkdir(parents=True)
    tf = load_task("T1")
    tf = dataclasses.replace(tf, task=tf.task.model_copy(update={"source": ImportSource(
        repo=str(src), commit="c", parent="p", prompt_from="commit message")}))
    sp = seal_paths(CellPaths(tmp_path / "cell"), sys.executable, tf)
    deny, _allow = seal.read_rules(sp)
    assert str(src.resolve()) in deny and str((src / ".git").resolve()) in deny
    rules = seal.deny_rules(sp)
    assert f"Read(/{src.resolve()}/**)" in rules and "EnterWorktree" in rules and "ExitWorktree" in rules
    # A source repository that holds the cell is hidden by the sandbox and the guard (longest prefix), never by a
    # deny rule, which would refuse the agent its own work copy.
    inner = seal_paths(CellPaths(src / "runs" / "cell"), sys.executable, tf)
    assert f"Read(/{src.resolve()}/**)" not in seal.deny_rules(inner)
    assert f"Read(/{(src / '.git').resolve()}/**)" in seal.deny_rules(inner)
    repo = str(src / "runs" / "cell" / "repo")
    assert decide(ev("Read", f"{repo}/x.py", repo), seal.policy(inner)) is None
    assert decide(ev("Read", str(src / "README"), repo), seal.policy(inner)) is not None


def test_a_cell_too_deep_for_the_clis_sockets_gets_a_short_temp_dir_that_goes_with_the_attempt(tmp_path):
    deep = tmp_path / ("d" * 80) / "cell"
    short = tmp_path / "c"
    assert seal.worker_tmp(short) == short.resolve() / "tmp"
    t = seal.worker_tmp(deep)
    assert t.parent == seal.SHORT_TMP_ROOT and len(f"{t}/claude-socks-{'0' * 16}.sock") <= 107
    deep.mkdir(parents=True)
    env = seal.worker_env(deep, False)
    assert env["TMPDIR"] == str(t) and t.is_dir() and (deep / "tmp").is_dir()
    seal.drop_worker_tmp(deep)
    assert not t.exists()
