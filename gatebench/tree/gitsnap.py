"""Snapshots of a work tree through git, for repos that are git repos (stdlib only; git as a subprocess).

git keeps the stat cache this needs, in C: a private git dir in the gate's state (`state/git`: its own
index, object store, config and info/attributes) with the repo as its work tree. A snapshot is a git
tree object written from that index; the user's `.git` (index, refs, stash, HEAD, config, objects,
hooks) is never read or written, so nothing the agent can write there (an fsmonitor, a filter, an
assume-unchanged bit) decides what the gate sees.

One stop = `git ls-files -o` (new files, under the gate's own ignore globs only) and `git add -u`
(changed and deleted files; git's racy-clean rule re-reads a file edited in the index's mtime tick)
run side by side, `git update-index --add` for the new files, and `git write-tree` only when the
index file changed. `.gitignore` files do not count (SPEC.md section 5): an ignore rule is written
by the agent as easily as a test is, so it hides nothing; this is also what the walker sees.

Locks: a snapshot holds `gatebench.lock` (flock) in the private git dir, and every git it starts inherits it,
so the lock is free only once no git of gatebench's runs there. A git lock file (`index.lock`) found while
holding it was left by a git that died (killed at the stop's deadline, or with its hook by Claude Code): it
is removed, with a note in `errors`. A git past the deadline is killed, and so is every other git the
snapshot started; their lock files go at once.
"""

from __future__ import annotations

import os
import stat
import time

from gatebench.common import jsonfast
from gatebench.common.util import write_atomic

SIDECAR = ".git"  # <baseline manifest>.git holds the baseline's tree id: the git path took it
RECORD = "gatebench-last.json"  # index stat -> tree, and the last diff: what a stop can skip
EXCLUDE = "gatebench-exclude"
# Highest precedence over any in-tree .gitattributes: a blob is the file's bytes, never a filter's output.
ATTRIBUTES = "* -text -eol -crlf -ident -filter -working-tree-encoding\n"
CONFIG = """[core]
\trepositoryformatversion = 0
\tbare = false
\tfilemode = true
\tsymlinks = true
\tignorecase = false
\tautocrlf = false
\tsafecrlf = false
\tfsmonitor = false
\tuntrackedCache = false
\tsplitIndex = false
\ttrustctime = true
\tcheckStat = default
\tpreloadIndex = true
\tlogAllRefUpdates = false
[index]
\tthreads = true
[gc]
\tauto = 0
"""
LOCK = "gatebench.lock"  # flock of whoever runs git in the private git dir (see the module doc)
LOCK_WAIT_S = 60.0  # without a deadline (finalize, review), how long another snapshot's gits are waited for
_NOT_REGULAR = b": can only add regular files, symbolic links or git-directories"


class GitError(Exception):
    """git failed in a way the snapshot cannot work around (named command and its stderr)."""


def git_dir_for(blob_dir: str) -> str:
    """The private git dir sits beside the walker's blob store: one state dir, one place for contents."""
    return os.path.join(os.path.dirname(blob_dir), "git")


def usable(root: str) -> bool:
    """Take the git path for `root`: a git work tree, with git installed."""
    if not os.path.exists(os.path.join(root, ".git")):
        return False
    import shutil

    return shutil.which("git") is not None


def _env(git_dir: str, work: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_DIR=git_dir, GIT_WORK_TREE=work, GIT_INDEX_FILE=os.path.join(git_dir, "index"),
               GIT_OBJECT_DIRECTORY=os.path.join(git_dir, "objects"), GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL=os.devnull, GIT_NO_REPLACE_OBJECTS="1", GIT_TERMINAL_PROMPT="0",
               GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


def _spawn(args: list[str], env: dict, cwd: str, data: bytes | None, tag: str) -> tuple[int, str]:
    """Start `git -C cwd args` with stdout/stderr to files in the private git dir; returns (pid, file stem).

    os.posix_spawnp, not subprocess: importing subprocess (threading, selectors, signal...) costs a
    no-gate stop more than running git does at 10,000 files. Files, not pipes, so two gits can run side
    by side without either blocking on a full pipe.
    """
    stem = os.path.join(env["GIT_DIR"], f"tmp-{os.getpid()}-{tag}")
    actions = [(os.POSIX_SPAWN_OPEN, 1, stem + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
               (os.POSIX_SPAWN_OPEN, 2, stem + ".err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)]
    if data is not None:
        with open(stem + ".in", "wb") as f:
            f.write(data)
        actions.append((os.POSIX_SPAWN_OPEN, 0, stem + ".in", os.O_RDONLY, 0))
    else:
        actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
    pid = os.posix_spawnp("git", ["git", "-C", cwd, *args], env, file_actions=actions)
    _live[pid] = stem
    return pid, stem


# The hook's deadline while `current` runs (None: unbounded). A git past it is killed and the stop is
# decided by on_error (snapshot.OutOfTime), never left to Claude Code's own hook timeout.
_deadline: float | None = None
_live: dict[int, str] = {}  # pid -> output file stem of every git started and not yet reaped


def _drop_files(stem: str) -> None:
    for ext in (".out", ".err", ".in"):
        try:
            os.remove(stem + ext)
        except FileNotFoundError:
            pass


def _kill_live() -> None:
    """Kill and reap every git this process started and has not reaped (a deadline, an error between two)."""
    for pid, stem in list(_live.items()):
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        _live.pop(pid, None)
        _drop_files(stem)


def _wait(pid: int, deadline: float | None) -> int | None:
    """`pid`'s wait status, or None if it still runs at `deadline`. Through a pidfd where the kernel has them,
    so the stop wakes the moment git exits (a 2 ms poll costs a stop ~1 ms on average)."""
    if deadline is None:
        return os.waitpid(pid, 0)[1]
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux >= 5.3: poll
        while True:
            got, status = os.waitpid(pid, os.WNOHANG)
            if got:
                return status
            if time.monotonic() > deadline:
                return None
            time.sleep(0.002)
    import select

    try:
        p = select.poll()
        p.register(fd, select.POLLIN)
        if not p.poll(max(deadline - time.monotonic(), 0) * 1000):
            return None
    finally:
        os.close(fd)
    return os.waitpid(pid, 0)[1]


def _reap(pid: int, stem: str) -> tuple[int, bytes, bytes]:
    status = _wait(pid, _deadline)
    if status is None:
        _kill_live()  # this git and any other of the snapshot: `current` then drops their locks
        from gatebench.common.util import OutOfTime

        raise OutOfTime("the stop's time budget ran out while git was snapshotting the work tree")
    _live.pop(pid, None)
    out = []
    for ext in (".out", ".err", ".in"):
        try:
            with open(stem + ext, "rb") as f:
                out.append(f.read())
            os.remove(stem + ext)
        except FileNotFoundError:
            out.append(b"")
    return os.waitstatus_to_exitcode(status), out[0], out[1]


def _run(args: list[str], env: dict, cwd: str, data: bytes | None = None, ok: tuple = (0,)) -> tuple[bytes, bytes]:
    rc, out, err = _reap(*_spawn(args, env, cwd, data, args[0]))
    if rc not in ok:
        raise GitError(f"git {args[0]} exited {rc}: {err.decode(errors='replace').strip()[:500]}")
    return out, err


# --- the private git dir ------------------------------------------------------------------------------


def _escape(glob: str) -> str:
    s = glob.replace("\\", "\\\\")
    if s[:1] in ("!", "#"):
        s = "\\" + s
    if s.endswith(" "):
        s = s[:-1] + "\\ "
    return s


def exclude_lines(ignore: list[str], inside: str | None) -> str:
    """The ignore globs (SPEC.md section 2) as gitignore lines that exclude exactly the files they match.

    A glob matches files only, but a gitignore line also excludes a directory of that name: each is
    followed by `!glob/`, which lets git enter such a directory. `dir/**` globs come last, so a
    directory they exclude stays excluded whatever came before (last match wins) and is not entered.
    """
    head, tail = [], []
    for g in ignore:
        if not g or g.endswith("/"):
            continue  # matches no file
        if g.endswith("/**"):
            tail.append(_escape(g))
        else:
            head += [_escape(g), "!" + _escape(g) + "/"]
    if inside:
        tail.append("/" + _escape(inside) + "/")  # the state dir itself, when it lives in the work tree
    return "".join(ln + "\n" for ln in head + tail)


def init(git_dir: str, work: str, ignore: list[str]) -> bool:
    """Create or update the private git dir; returns True if the ignore globs changed (index dropped)."""
    for d in ("objects/info", "objects/pack", "refs/heads", "info"):
        os.makedirs(os.path.join(git_dir, d), exist_ok=True)
    rel = os.path.relpath(os.path.abspath(git_dir), os.path.abspath(work))
    inside = None if rel == ".." or rel.startswith("../") or rel.startswith(".." + os.sep) else rel
    files = {"HEAD": "ref: refs/heads/gatebench\n", "config": CONFIG, "info/attributes": ATTRIBUTES,
             f"info/{EXCLUDE}": exclude_lines(ignore, inside)}
    changed = False
    for name, text in files.items():
        path = os.path.join(git_dir, name)
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                if f.read() == text:
                    continue
        except OSError:
            pass
        changed = changed or name.endswith(EXCLUDE)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
    if changed:  # entries kept under other globs would stay in the index: start it again
        for name in ("index", RECORD):
            try:
                os.remove(os.path.join(git_dir, name))
            except FileNotFoundError:
                pass
    return changed


# --- one snapshot ---------------------------------------------------------------------------------


Diff3 = tuple[list[str], list[str], list[str]]  # (created, changed, deleted), each sorted


class GitWalk:
    """What `snapshot.current` returns, from git: the tree id stands for the manifest. `diff`: against the
    base tree `current` was given, None without one."""

    __slots__ = ("diff", "errors", "files", "git_dir", "hashed", "tree", "work")

    def __init__(self, git_dir: str, work: str, tree: str, files: int, hashed: int, errors: list[str],
                 diff: Diff3 | None = None):
        self.git_dir, self.work, self.tree = git_dir, work, tree
        self.files, self.hashed, self.errors, self.diff = files, hashed, errors, diff

    @property
    def manifest(self) -> TreeManifest:
        return TreeManifest(self.git_dir, self.work, self.tree)


def _index_stat(path: str) -> list | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns]


def _index_entries(path: str) -> int:
    try:
        with open(path, "rb") as f:
            head = f.read(12)  # "DIRC", version, entry count (big-endian)
        return int.from_bytes(head[8:12], "big") if head[:4] == b"DIRC" else 0
    except OSError:
        return 0


def read_record(git_dir: str) -> dict:
    try:
        data = jsonfast.read(os.path.join(git_dir, RECORD))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def write_record(git_dir: str, data: dict) -> None:
    write_atomic(os.path.join(git_dir, RECORD), jsonfast.dumps(data))


def _addable(work: str, rel: bytes) -> bool:
    try:
        mode = os.lstat(os.path.join(os.fsencode(work), rel)).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode)


def _nested_files(work: str, rel_dir: bytes, ignore_match) -> list[bytes]:
    """Files under a nested repository (a folder with its own .git), which git lists as one entry.

    git would hide them behind that entry; the gate must not (a planted `.git` would hide a conftest.py).
    """
    out = []
    top = os.path.join(os.fsencode(work), rel_dir)
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if d != b".git"]
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, os.fsencode(work))
            if not ignore_match(os.fsdecode(rel)) and _addable(work, rel):
                out.append(rel)
    return out


def _stale_locks(git_dir: str) -> list[str]:
    """git's own lock files in the private git dir (index.lock; our flock file is not one)."""
    try:
        names = os.listdir(git_dir)
    except OSError:
        return []
    return [n for n in names if n.endswith(".lock") and n != LOCK]


def _drop_stale_locks(git_dir: str) -> list[str]:
    """Remove git lock files; only ever called while holding LOCK, when no git of ours can be running here."""
    notes = []
    for name in _stale_locks(git_dir):
        try:
            os.remove(os.path.join(git_dir, name))
            notes.append(f"recovered: removed a stale {name} in the private git dir (left by a git that was killed)")
        except FileNotFoundError:
            pass
    return notes


def _hold(git_dir: str) -> int:
    """Take LOCK (waiting for another snapshot's gits) and return its fd, inheritable so every git started
    while it is held holds it too. Raises OutOfTime past the deadline, GitError past LOCK_WAIT_S without one."""
    import fcntl

    fd = os.open(os.path.join(git_dir, LOCK), os.O_RDWR | os.O_CREAT, 0o600)
    give_up = _deadline if _deadline is not None else time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > give_up:
                os.close(fd)
                if _deadline is not None:
                    from gatebench.common.util import OutOfTime

                    raise OutOfTime("the stop's time budget ran out waiting for another snapshot's git")
                raise GitError(f"{git_dir} is still locked by another snapshot's git after {LOCK_WAIT_S:g} s")
            time.sleep(0.01)
    os.set_inheritable(fd, True)
    return fd


def current(work: str, git_dir: str, ignore_match=None, deadline: float | None = None,
            base: str | None = None) -> GitWalk:
    """Bring the private index up to date with the work tree and return its tree (and with `base`, a tree id,
    its diff against it: one read and at most one write of the record). Raises snapshot.OutOfTime past
    `deadline` (every git still running then is killed)."""
    global _deadline
    _deadline = deadline
    fd = None
    try:
        fd = _hold(git_dir)
        notes = _drop_stale_locks(git_dir)
        try:
            walk = _current(work, git_dir, ignore_match, base)
        except BaseException as e:
            _kill_live()
            _drop_stale_locks(git_dir)  # what the gits killed just now held: the next call finds none
            for note in notes:  # the recovery happened, though the snapshot did not: the event still says so
                e.add_note(note)
            raise
        walk.errors[:0] = notes
        return walk
    finally:
        _deadline = None
        if fd is not None:
            os.close(fd)


def _current(work: str, git_dir: str, ignore_match=None, base: str | None = None) -> GitWalk:
    env = _env(git_dir, work)
    index = os.path.join(git_dir, "index")
    errors: list[str] = []
    out_o, out_a, err = _list_and_update(work, git_dir, env)
    hashed = out_a.count(b"\n") + _drop_unaddable(work, env, err, errors)
    hashed += _add_new(work, env, out_o, ignore_match or (lambda _p: False), errors)
    tree, diff = _tree_and_diff(git_dir, work, env, index, base, errors)
    return GitWalk(git_dir, work, tree, _index_entries(index), hashed, errors, diff)


def _list_and_update(work: str, git_dir: str, env: dict) -> tuple[bytes, bytes, list[bytes]]:
    """`git ls-files -o` (new files) and `git add -u` (changed and deleted ones) side by side: (new files,
    what add hashed, both stderr lines)."""
    exclude = os.path.join(git_dir, "info", EXCLUDE)
    # Both read the index; `add -u` replaces it atomically, so they can run side by side.
    lso = _spawn(["ls-files", "-o", "-z", f"--exclude-from={exclude}"], env, work, None, "ls")
    try:
        add = _spawn(["add", "-u", "-v", "--ignore-errors"], env, work, None, "add")
    finally:
        rc_o, out_o, err_o = _reap(*lso)
    rc_a, out_a, err_a = _reap(*add)
    if rc_o != 0:
        raise GitError(f"git ls-files exited {rc_o}: {err_o.decode(errors='replace').strip()[:500]}")
    if rc_a not in (0, 1):
        raise GitError(f"git add exited {rc_a}: {err_a.decode(errors='replace').strip()[:500]}")
    return out_o, out_a, err_a.splitlines() + err_o.splitlines()


def _drop_unaddable(work: str, env: dict, stderr: list[bytes], errors: list[str]) -> int:
    """Take out of the index the files that became FIFOs, sockets or devices (they are gone); every other
    line of git's stderr is an error of the stop. Returns how many were taken out."""
    gone = []
    for line in stderr:
        if line.startswith(b"error: ") and line.endswith(_NOT_REGULAR):
            gone.append(line[7:-len(_NOT_REGULAR)])
        elif line.strip():
            errors.append(line.decode(errors="replace"))
    if gone:
        _run(["update-index", "--force-remove", "-z", "--stdin"], env, work, b"\0".join(gone) + b"\0")
    return len(gone)


def _add_new(work: str, env: dict, listed: bytes, ignore_match, errors: list[str]) -> int:
    """Add the new files `ls-files -o` listed (and the files of nested repositories); returns how many hashed."""
    hashed = 0
    new: list[bytes] = []
    nested: list[bytes] = []
    for rel in filter(None, listed.split(b"\0")):
        if rel.endswith(b"/"):  # a nested repository: git lists the folder, the gate wants its files
            nested += _nested_files(work, rel, ignore_match)
        elif _addable(work, rel):  # git skips FIFOs and devices when listing; this skips races
            new.append(rel)
    if nested:  # `git add` skips paths inside another repository; update-index does not
        _run(["update-index", "--add", "--replace", "-z", "--stdin"], env, work, b"\0".join(nested) + b"\0")
        hashed += len(nested)
    if new:
        # `add --ignore-errors`, not `update-index --add`, which stops at the first file it cannot read:
        # an agent's chmod 000 must cost that one file (an error in the event), not the whole stop.
        # Literal pathspecs: a file named `*` is that file.
        argv = ["--literal-pathspecs", "add", "-f", "-v", "--ignore-errors", "--pathspec-from-file=-",
                "--pathspec-file-nul"]
        try:
            out, err = _run(argv, env, work, b"\0".join(new) + b"\0", ok=(0, 1))
        except GitError:  # a file gone since it was listed fails the whole add: once more without it
            new = [rel for rel in new if _addable(work, rel)]
            out, err = _run(argv, env, work, b"\0".join(new) + b"\0", ok=(0, 1)) if new else (b"", b"")
        hashed += out.count(b"\n")
        errors += [ln.decode(errors="replace") for ln in err.splitlines() if ln.strip()]
    return hashed


def _tree_and_diff(git_dir: str, work: str, env: dict, index: str, base: str | None,
                   errors: list[str]) -> tuple[str, Diff3 | None]:
    """The index's tree, and with `base` its diff against it: the record read once, written once at most."""
    record = read_record(git_dir)
    now = _index_stat(index)
    tree_new = not (now is not None and record.get("index") == now and record.get("tree"))
    if tree_new:
        tree = _run(["write-tree"], env, work)[0].decode().strip()
        record = {"index": _index_stat(index), "tree": tree}
    else:
        tree = record["tree"]  # same index file as when its tree was written: same tree
    diff, diff_new = _diff(record, git_dir, work, base, tree) if base is not None else (None, False)
    if tree_new or diff_new:
        try:
            write_record(git_dir, record)
        except OSError as e:
            if tree_new:  # a diff not kept is only a cache missed
                errors.append(f"cannot write {RECORD}: {e.strerror}")
    return tree, diff


# --- reading trees and blobs ----------------------------------------------------------------------


def ls_tree(git_dir: str, work: str, tree: str) -> dict[str, list]:
    """The manifest of a tree: path -> [blob id, size, mode]."""
    out, _ = _run(["ls-tree", "-r", "-z", "--long", "--full-tree", tree], _env(git_dir, work), work)
    manifest: dict[str, list] = {}
    for rec in filter(None, out.split(b"\0")):
        meta, _, path = rec.partition(b"\t")
        mode, kind, sha, size = meta.split()
        if kind == b"blob":
            manifest[os.fsdecode(path)] = [sha.decode(), int(size), int(mode, 8)]
    return manifest


class TreeManifest:
    """A manifest read from a tree only when a gate asks for it: a no-gate stop never lists 100k paths.

    Read-only dict interface, written out rather than inherited from collections.abc.Mapping: that
    import alone costs a stop more than this class does.
    """

    def __init__(self, git_dir: str, work: str, tree: str):
        self.git_dir, self.work, self.tree = git_dir, work, tree
        self._data: dict | None = None

    def _m(self) -> dict:
        if self._data is None:
            self._data = ls_tree(self.git_dir, self.work, self.tree)
        return self._data

    def __getitem__(self, key: str) -> list:
        return self._m()[key]

    def __iter__(self):
        return iter(self._m())

    def __len__(self) -> int:
        return len(self._m())

    def __contains__(self, key: object) -> bool:
        return key in self._m()

    def get(self, key: str, default=None):
        return self._m().get(key, default)

    def keys(self):
        return self._m().keys()

    def values(self):
        return self._m().values()

    def items(self):
        return self._m().items()

    def __eq__(self, other: object) -> bool:
        return self._m() == (other._m() if isinstance(other, TreeManifest) else other)

    __hash__ = None  # type: ignore[assignment]


def _diff(record: dict, git_dir: str, work: str, base: str, now: str) -> tuple[Diff3, bool]:
    """(created, changed, deleted) paths between two trees, sorted, and whether that answer is new to `record`
    (which then holds it: the last answer is kept)."""
    if base == now:
        return ([], [], []), False
    last = record.get("diff")
    if isinstance(last, dict) and last.get("base") == base and last.get("now") == now:
        return (last["created"], last["changed"], last["deleted"]), False
    out, _ = _run(["diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", base, now], _env(git_dir, work), work)
    created: list[str] = []
    changed: list[str] = []
    deleted: list[str] = []
    parts = out.split(b"\0")
    for meta, path in zip(parts[0::2], parts[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        status, rel = meta[-1:], os.fsdecode(path)
        (created if status == b"A" else deleted if status == b"D" else changed).append(rel)
    result = (sorted(created), sorted(changed), sorted(deleted))
    record["diff"] = {"base": base, "now": now, "created": result[0], "changed": result[1], "deleted": result[2]}
    return result, True


_cat: dict = {}  # git dir -> its `git cat-file --batch` process


def read_blob(git_dir: str, sha: str) -> bytes | None:
    """One blob's bytes through a `git cat-file --batch` kept open for the whole hook call."""
    import subprocess

    p = _cat.get(git_dir)
    if p is None or p.poll() is not None:
        try:
            p = subprocess.Popen(["git", "cat-file", "--batch"], cwd=git_dir, env=_env(git_dir, git_dir),
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            return None
        _cat[git_dir] = p
        if len(_cat) == 1:
            import atexit

            atexit.register(_close_all)
    assert p.stdin is not None and p.stdout is not None  # both are PIPE
    try:
        p.stdin.write(sha.encode() + b"\n")
        p.stdin.flush()
        head = p.stdout.readline().split()
        if len(head) != 3 or head[1] != b"blob":
            return None
        size = int(head[2])
        data = p.stdout.read(size)
        p.stdout.read(1)
        return data
    except (OSError, ValueError):
        return None


def _close_all() -> None:
    for p in _cat.values():
        try:
            p.stdin.close()
            p.wait(timeout=5)
        except Exception:
            p.kill()
    _cat.clear()


# --- baselines ------------------------------------------------------------------------------------


def take_baseline(root: str, ignore: list[str], ignore_match, dest_dir: str, git_dir: str) -> dict:
    """The baseline as a tree in the private store; dest_dir/manifest.json lists it for readers of files."""
    t0 = time.monotonic()
    init(git_dir, root, ignore)
    w = current(root, git_dir, ignore_match)
    manifest = ls_tree(git_dir, root, w.tree)
    os.makedirs(dest_dir, exist_ok=True)
    target = os.path.join(dest_dir, "manifest.json")
    write_json(target + SIDECAR, {"v": 1, "tree": w.tree, "files": len(manifest)})
    write_json(target, manifest)
    return {"files": len(manifest), "errors": w.errors, "seconds": round(time.monotonic() - t0, 4)}


def write_json(path: str, data: object) -> None:
    write_atomic(path, jsonfast.dumps(data, compact=True))


def baseline_tree(manifest_path: str) -> str | None:
    """The tree id of a baseline the git path took, None for a walker baseline. Raises if unreadable."""
    try:
        data = jsonfast.read(manifest_path + SIDECAR)
    except FileNotFoundError:
        return None
    tree = data.get("tree") if isinstance(data, dict) else None
    if not isinstance(tree, str) or len(tree) != 40:
        raise ValueError(f"{manifest_path + SIDECAR} names no tree")
    return tree
