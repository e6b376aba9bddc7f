"""The git path of the snapshot (gatebench/tree/gitsnap.py): what it sees, and what it never touches."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXED, gatebench_cli, hook_input, run_hook, state_of
from gitsnap_helpers import git, git_commit_all

from gatebench.common.defaults import DEFAULT_IGNORE
from gatebench.tree import gitsnap, snapshot
from gatebench.tree.globs import GlobSet

IGNORE = GlobSet(DEFAULT_IGNORE)


def baseline(repo: Path, state: Path, ignore: GlobSet = IGNORE) -> str:
    snapshot.take_baseline(str(repo), ignore, str(state / "baseline"), None, str(state / "blobs"))
    return str(state / "baseline" / "manifest.json")


def compare(repo: Path, state: Path, ignore: GlobSet = IGNORE) -> snapshot.Snap:
    return snapshot.compare(str(repo), ignore, str(state / "baseline" / "manifest.json"), str(state / "blobs"))


@pytest.fixture
def work(tmp_path: Path) -> tuple[Path, Path]:
    repo, state = tmp_path / "repo", tmp_path / "state"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "a.py").write_text("A = 1\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    git_commit_all(repo)
    state.mkdir()
    return repo, state


def test_git_work_tree_takes_the_git_path_and_diffs(work):
    repo, state = work
    path = baseline(repo, state)
    assert gitsnap.baseline_tree(path) is not None
    assert set(json.loads(Path(path).read_text())) == {"src/a.py", "tests/test_a.py"}
    (repo / "src" / "a.py").write_text("A = 2\n")
    (repo / "tests" / "test_a.py").unlink()
    (repo / "src" / "b.py").write_text("B = 1\n")
    s = compare(repo, state)
    assert s.via == "git"
    assert (s.diff.created, s.diff.changed, s.diff.deleted) == (["src/b.py"], ["src/a.py"], ["tests/test_a.py"])
    assert s.now["src/b.py"][1] == 6 and "tests/test_a.py" in s.baseline and "tests/test_a.py" not in s.now
    # the baseline's bytes come back from the private store, whatever the work tree holds now
    assert snapshot.read_blob(str(state / "blobs"), s.baseline["tests/test_a.py"][0]) == \
        b"def test_a():\n    assert True\n"
    (repo / "src" / "a.py").write_text("A = 1\n")
    (repo / "src" / "b.py").unlink()
    (repo / "tests" / "test_a.py").write_text("def test_a():\n    assert True\n")
    back = compare(repo, state)
    assert back.diff.empty and back.tree_hash() == gitsnap.baseline_tree(path)


def test_same_size_edit_in_the_same_mtime_tick_is_seen(work):
    """git's racy-clean rule: an entry as new as the index is re-read, so this edit cannot hide."""
    repo, state = work
    p = repo / "src" / "a.py"
    baseline(repo, state)
    st = p.stat()
    first = compare(repo, state).tree_hash()
    p.write_text("A = 9\n")  # same size
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # same mtime
    s = compare(repo, state)
    assert s.diff.changed == ["src/a.py"] and s.tree_hash() != first


def test_stat_only_change_costs_no_rehash_after_it_is_seen(work):
    repo, state = work
    old = time.time() - 60
    for p in (repo / "src" / "a.py", repo / "tests" / "test_a.py"):
        os.utime(p, (old, old))
    baseline(repo, state)
    compare(repo, state)
    assert compare(repo, state).hashed == 0  # warm: git's index trusted every file's stat
    (repo / "src" / "a.py").write_text("A = 3\n")
    s = compare(repo, state)
    assert s.hashed == 1 and s.diff.changed == ["src/a.py"]


def test_gitignore_hides_nothing(work):
    """An agent can write an ignore rule as easily as a test: a self-ignoring .gitignore hides no conftest.py."""
    repo, state = work
    baseline(repo, state)
    (repo / "tests" / ".gitignore").write_text("*\n")
    (repo / "tests" / "conftest.py").write_text("import pytest\n")
    (repo / ".gitignore").write_text("*.pth\nsitecustomize.py\npytest.py\n")
    (repo / "evil.pth").write_text("import os\n")
    (repo / "sitecustomize.py").write_text("X = 1\n")
    (repo / "pytest.py").write_text("X = 1\n")
    s = compare(repo, state)
    assert s.diff.created == [".gitignore", "evil.pth", "pytest.py", "sitecustomize.py", "tests/.gitignore",
                              "tests/conftest.py"]


def test_nested_repository_hides_nothing(work):
    """git lists a folder with its own .git as one entry; the gate still sees the files inside."""
    repo, state = work
    baseline(repo, state)
    inner = repo / "tests" / "helpers"
    inner.mkdir()
    (inner / "conftest.py").write_text("import pytest\n")
    git_commit_all(inner)
    s = compare(repo, state)
    assert s.diff.created == ["tests/helpers/conftest.py"]
    (inner / "more.py").write_text("M = 1\n")
    assert compare(repo, state).diff.created == ["tests/helpers/conftest.py", "tests/helpers/more.py"]


def test_gitattributes_cannot_filter_what_is_stored(work):
    """Blobs are the file's bytes: no eol conversion, no $Id$ collapse, whatever .gitattributes says."""
    repo, state = work
    baseline(repo, state)
    (repo / ".gitattributes").write_text("* text eol=crlf ident\n")
    raw = b"line\r\nx = '$Id: anything $'\r\n"
    (repo / "src" / "c.py").write_bytes(raw)
    s = compare(repo, state)
    assert snapshot.read_blob(str(state / "blobs"), s.now["src/c.py"][0]) == raw
    (repo / "src" / "c.py").write_bytes(raw.replace(b"anything", b"other"))
    assert compare(repo, state).diff.created == [".gitattributes", "src/c.py"]
    assert compare(repo, state).now["src/c.py"][0] != s.now["src/c.py"][0]


def test_fifo_device_odd_names_and_symlinks(work):
    repo, state = work
    baseline(repo, state)
    os.mkfifo(repo / "new.fifo")
    (repo / "src" / "a.py").unlink()
    os.mkfifo(repo / "src" / "a.py")  # a tracked file replaced by a FIFO: gone, as for the walker
    os.close(os.open(os.path.join(os.fsencode(repo), b"bad-\xff.txt"), os.O_CREAT | os.O_WRONLY))
    (repo / "new\nline.txt").write_text("x")
    (repo / "a*b.txt").write_text("x")  # a pathspec would match more than this file
    (repo / "[s]rc").write_text("x")
    os.symlink("loop-b", repo / "loop-a")
    os.symlink("loop-a", repo / "loop-b")
    os.symlink(".", repo / "self-dir")
    s = compare(repo, state)
    assert not s.errors, s.errors
    assert s.diff.deleted == ["src/a.py"]
    assert s.diff.created == sorted(["bad-\udcff.txt", "new\nline.txt", "loop-a", "loop-b", "self-dir", "a*b.txt",
                                     "[s]rc"])
    assert snapshot.read_blob(str(state / "blobs"), s.now["self-dir"][0]) == b"."


def test_same_files_as_the_walker(work):
    """Both paths see the same set of paths under the same ignore globs (the oracle copies what the walker sees)."""
    repo, state = work
    ignore = GlobSet([*DEFAULT_IGNORE, "data/**", "*.log", "build", "docs/*.tmp"])
    for rel in ["data/x.csv", "data/sub/y.csv", "a.log", "sub/b.log", "build/out.txt", "sub/build", "docs/a.tmp",
                "docs/deep/a.tmp", "pkg/__pycache__/m.cpython-311.pyc", "m.pyc", ".pytest_cache/v/x",
                ".claude/gatebench/config.json", ".claude/settings.json", "!bang.txt", "#hash.txt", "sp ace.txt"]:
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(rel)
    baseline(repo, state, ignore)
    s = compare(repo, state, ignore)
    assert set(s.now) == set(snapshot.walk(str(repo), ignore).manifest)
    assert "build/out.txt" in s.now and "sub/build" not in s.now and "docs/deep/a.tmp" in s.now


def test_user_repo_left_byte_for_byte(tmp_path):
    """Staged changes, a stash and a detached HEAD: after install and a session of stops, .git is as it was."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "tests" / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    git_commit_all(repo)
    (repo / "calc.py").write_text("def add(a, b):\n    return 0\n")
    git(repo, "stash", "-q")
    (repo / "notes.txt").write_text("n\n")
    git(repo, "commit", "-qam", "second", "--allow-empty")
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    (repo / "staged.txt").write_text("staged\n")
    git(repo, "add", "staged.txt")
    (repo / "calc.py").write_text("def add(a, b):\n    return a * b\n")  # unstaged change
    gatebench_cli("install", str(repo), "--config", "none")
    state = state_of(repo)

    def picture() -> dict:
        dotgit = repo / ".git"
        files = {str(p.relative_to(repo)): hashlib.sha256(p.read_bytes()).hexdigest()
                 for p in sorted(repo.rglob("*")) if p.is_file() and ".claude/gatebench" not in str(p)}
        env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")  # `git status` would otherwise refresh the index

        def look(*args: str) -> str:
            return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True).stdout

        return {"files": files, "status": look("status", "--porcelain=v2", "--branch"),
                "stash": look("stash", "list"), "refs": look("show-ref"),
                "head": (dotgit / "HEAD").read_bytes(), "mtimes": {str(p): p.stat().st_mtime_ns
                                                                   for p in dotgit.rglob("*") if p.is_file()}}

    before = picture()
    run_hook(state, hook_input(repo), verb="session-start")
    (repo / "calc.py").write_text(FIXED)
    for _ in range(2):
        _out, ev = run_hook(state, hook_input(repo))
        assert ev["snapshot"]["via"] == "git" and ev["diff"]["changed"] == ["calc.py"], ev
    (repo / "calc.py").write_text("def add(a, b):\n    return a * b\n")
    after = picture()
    assert after == before


def installed(tmp_path: Path) -> tuple[Path, Path]:
    """A git repo with the gate installed (config none): (repo, state dir)."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    git_commit_all(repo)
    gatebench_cli("install", str(repo), "--config", "none")
    return repo, state_of(repo)


def test_a_stale_index_lock_is_removed_at_once_with_a_note_in_the_event(tmp_path):
    """A git killed with its hook (Claude Code's timeout) leaves index.lock: the next stop removes it (no git of
    gatebench's runs there: the private dir's lock is free), says so in the event, and judges as usual."""
    repo, state = installed(tmp_path)
    run_hook(state, hook_input(repo), verb="session-start")
    lock = state / "git" / "index.lock"
    lock.write_text("")  # fresh: its age says nothing
    (repo / "calc.py").write_text(FIXED)
    _out, ev = run_hook(state, hook_input(repo))
    assert ev["diff"]["changed"] == ["calc.py"] and not lock.exists(), ev
    assert any(e.startswith("recovered: removed a stale index.lock") for e in ev["errors"]), ev["errors"]
    _out, ev = run_hook(state, hook_input(repo))
    assert not any("recovered" in e for e in ev["errors"]), ev["errors"]  # nothing was left the second time


def many_files(repo: Path, n: int) -> None:
    for i in range(n):
        d = repo / "data" / f"d{i // 500}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.txt").write_text(f"{i}\n")


def test_a_git_killed_at_the_deadline_leaves_nothing_that_breaks_the_next_call(work):
    repo, state = work
    baseline(repo, state)
    many_files(repo, 3000)
    git_dir = state / "git"
    with pytest.raises(snapshot.OutOfTime):
        gitsnap.current(str(repo), str(git_dir), IGNORE.match, deadline=time.monotonic())
    assert not gitsnap._live, "a git of the snapshot was left running"
    assert not list(git_dir.glob("*.lock*")) or [p.name for p in git_dir.glob("*.lock*")] == [gitsnap.LOCK]
    assert not list(git_dir.glob("tmp-*")), list(git_dir.glob("tmp-*"))
    s = compare(repo, state)  # no deadline: every new file goes in
    assert len(s.diff.created) == 3000 and not [e for e in s.errors if "recovered" in e], s.errors


def test_a_stale_lock_removed_by_a_stop_that_then_runs_out_of_time_is_still_in_its_event(tmp_path):
    """Issue 21's cell, small: the stop removes the stale index.lock, then its snapshot passes the deadline; the
    event names both the recovery and the OutOfTime, and the stop is decided by on_error."""
    repo, state = installed(tmp_path)
    cfg = json.loads((state / "config.json").read_text())
    cfg["config"].setdefault("budget", {})["hook_seconds"] = 0.05
    (state / "config.json").write_text(json.dumps(cfg))
    run_hook(state, hook_input(repo), verb="session-start")
    many_files(repo, 3000)
    (state / "git" / "index.lock").write_text("")
    _out, ev = run_hook(state, hook_input(repo))
    assert not (state / "git" / "index.lock").exists()
    assert any(e.startswith("recovered: removed a stale index.lock") for e in ev["errors"]), ev["errors"]
    assert any("OutOfTime" in e for e in ev["errors"]) and ev["decision"] == "allow", ev


def test_an_index_lock_of_a_git_still_running_is_waited_for_never_removed(work):
    """Another snapshot's git holds the private dir's lock (inherited from its hook, which may be dead): its
    index.lock is live, so this snapshot waits until its deadline instead of breaking it."""
    repo, state = work
    baseline(repo, state)
    git_dir = state / "git"
    lock = git_dir / "index.lock"
    lock.write_text("")
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(30)",
                               str(git_dir / gitsnap.LOCK)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(snapshot.OutOfTime, match="waiting for another snapshot's git"):
            gitsnap.current(str(repo), str(git_dir), IGNORE.match, deadline=time.monotonic() + 0.3)
        assert lock.exists()
    finally:
        holder.kill()
        holder.wait()
    (repo / "src" / "a.py").write_text("A = 5\n")
    s = compare(repo, state)
    assert s.diff.changed == ["src/a.py"] and not lock.exists() and "recovered" in s.errors[0], s.errors


def test_gits_a_snapshot_starts_hold_its_lock_while_they_run(work):
    """The lock is held by the gits themselves (inherited), so a hook killed while its git runs leaves the lock
    held until that git ends: what makes an index.lock found with the lock free certainly stale."""
    repo, state = work
    baseline(repo, state)
    git_dir = state / "git"
    fd = gitsnap._hold(str(git_dir))
    try:
        env = gitsnap._env(str(git_dir), str(repo))
        pid, _stem = gitsnap._spawn(["-c", "alias.wait=!sleep 30", "wait"], env, str(repo), None, "probe")  # runs on
    finally:
        os.close(fd)
    try:
        probe = subprocess.run([sys.executable, "-c", "import fcntl, sys; f = open(sys.argv[1], 'a'); "
                                "fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)", str(git_dir / gitsnap.LOCK)],
                               capture_output=True, text=True)
        assert "BlockingIOError" in probe.stderr  # the running git holds it, though this process let go
    finally:
        from gatebench.cell.workers.launch import descendants

        for child in descendants(pid):  # the alias's shell and its sleep
            try:
                os.kill(child, 9)
            except ProcessLookupError:  # listed, then gone (killing the shell may end its sleep first)
                pass
        gitsnap._kill_live()


@pytest.mark.parametrize("obj", [{"a": [1, 2.5, None, True, "x"], "é": "caf\udcff\u2603", "n": -0.0},
                                 [], "plain", {"nested": {"deep": [{"k": 1e300}]}}])
def test_jsonfast_writes_and_reads_what_json_does(obj):
    from gatebench.common import jsonfast

    assert jsonfast.dumps(obj) == json.dumps(obj)
    assert jsonfast.dumps(obj, compact=True) == json.dumps(obj, separators=(",", ":"))
    assert jsonfast.loads(" \n" + json.dumps(obj) + "\n") == json.loads(json.dumps(obj))


def test_jsonfast_refuses_what_json_refuses():
    from gatebench.common import jsonfast

    # as the hook runs: a fresh `python -S`, `json` not imported by anyone
    root = str(Path(__file__).resolve().parent.parent)
    code = (f"import sys; sys.path.insert(0, {root!r}); from gatebench.common import jsonfast\n"
            "for bad in ('{not json', '[1,', '{\"a\": 1} x', ''):\n"
            "    try: jsonfast.loads(bad)\n"
            "    except ValueError as e: print(type(e).__name__)\n")
    r = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True)
    assert r.stdout.split() == ["JSONDecodeError"] * 4, r.stderr
    for bad in ("", "{not json", '{"a": 1} x', "[1,"):
        with pytest.raises(ValueError):
            jsonfast.loads(bad)
    with pytest.raises(TypeError):
        jsonfast.dumps({"x": object()})
    assert jsonfast.dumps({"x": b"b"}, default=str) == json.dumps({"x": b"b"}, default=str)
