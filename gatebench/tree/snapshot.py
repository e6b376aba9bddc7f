"""Content snapshot of a work tree: manifest, stat cache, blob store and diff (stdlib only).

A manifest maps each repo-relative path to (sha256, size, mode). Hashing a 10,000-file repo at
every stop would be slow, so a stat cache keeps each file's (mtime_ns, size, inode) -> hash and a
file is re-read only when those change. Like git, entries whose mtime is within RACY_NS of the
moment the cache was written are re-hashed: a same-second edit would otherwise go unseen.

Only regular files and symlinks are read: a device, FIFO or socket in the tree is recorded
(`Walk.special`, and an error line) and never opened. A walk given a deadline raises OutOfTime past
it, even inside one huge file, so the hook decides a stop that ran out of budget itself (on_error).
Paths are str with surrogateescape for bytes that are not UTF-8 (what os.scandir gives); `shown()`
is how such a name is written into anything a person or another program reads.
"""

from __future__ import annotations

import marshal
import os
import stat
import time

from gatebench.common import jsonfast
from gatebench.common.util import OutOfTime, write_atomic
from gatebench.tree.filekind import kind_of, open_regular
from gatebench.tree.globs import GlobSet

RACY_NS = 2_000_000_000
BLOB_MAX_BYTES = 1 << 20  # files above this are tracked by hash only (no diff text, no restore)

Manifest = dict[str, list]  # path -> [sha256, size, mode]


def shown(name: str) -> str:
    """A file name as text that any JSON or UTF-8 writer accepts: bytes that are not UTF-8 become `\\xNN`.

    Valid UTF-8 names are unchanged; in the others each undecodable byte is written `\\xNN` (so such
    a name is told apart from a valid one that contains a literal backslash only by context).
    """
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        pass
    try:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that no file name gave (from JSON, say)
        return name.encode("utf-8", "backslashreplace").decode("utf-8")


class Walk:
    __slots__ = ("cache", "errors", "hashed", "manifest", "special")

    def __init__(self, manifest: Manifest, cache: dict, hashed: int, errors: list[str],
                 special: list[str] | None = None):
        self.manifest = manifest
        self.cache = cache  # path -> (mtime_ns, size, ino, sha, mode)
        self.hashed = hashed  # files actually read this time
        self.errors = errors
        self.special = special or []  # "<path> (<kind>)" of devices, FIFOs and sockets skipped (shown names)


def _hash_file(path: str, deadline: float | None = None) -> str:
    import hashlib  # only paid for when a file is actually read

    h = hashlib.sha256()
    with open(open_regular(path), "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
            if deadline is not None and time.monotonic() > deadline:
                raise OutOfTime(f"the time budget ran out while hashing {shown(path)}")
    return h.hexdigest()


def _hash_link(path: str) -> str:
    import hashlib

    return hashlib.sha256(b"symlink:" + os.fsencode(os.readlink(path))).hexdigest()


def walk(root: str, ignore: GlobSet, cache: dict | None = None, cache_time_ns: int = 0,
         deadline: float | None = None) -> Walk:
    """Manifest of every file under root not matched by `ignore`. Symlinks are recorded, never followed.

    Raises OutOfTime once time.monotonic() passes `deadline` (None: no bound).
    """
    out = Walk({}, {}, 0, [], [])
    cache = cache or {}
    trusted_before = cache_time_ns - RACY_NS
    seen = 0
    stack = [("", root)]
    while stack:
        rel_dir, abs_dir = stack.pop()
        try:
            it = os.scandir(abs_dir)
        except OSError as e:
            out.errors.append(f"cannot list {shown(rel_dir) or '.'}: {e.strerror}")
            continue
        with it:
            seen = _scan(it, rel_dir, stack, out, ignore, cache, trusted_before, deadline, seen)
    out.special.sort()
    return out


def _scan(entries, rel_dir: str, stack: list, out: Walk, ignore: GlobSet, cache: dict, trusted_before: int,
          deadline: float | None, seen: int) -> int:
    """One folder of the walk into `out`: subfolders onto `stack`, each file from the cache or hashed.
    Returns the entries seen so far (the deadline is looked at every 256)."""
    ignored, prunes, clock = ignore.match_visited, ignore.prunes, time.monotonic
    S_ISREG, S_ISLNK = stat.S_ISREG, stat.S_ISLNK
    manifest, new_cache = out.manifest, out.cache
    for entry in entries:
        seen += 1
        if deadline is not None and not seen & 255 and clock() > deadline:
            raise OutOfTime(f"the time budget ran out walking the work tree ({seen} entries seen)", new_cache)
        name = entry.name
        rel = rel_dir + name
        try:
            if entry.is_dir(follow_symlinks=False):  # from d_type: no stat call
                if not prunes(rel):
                    stack.append((rel + "/", entry.path))
                continue
            if ignored(rel, name):
                continue
            st = entry.stat(follow_symlinks=False)
        except OSError as e:
            out.errors.append(f"cannot stat {shown(rel)}: {e.strerror}")
            continue
        mode = st.st_mode
        if not (S_ISREG(mode) or S_ISLNK(mode)):
            out.special.append(f"{shown(rel)} ({kind_of(mode)})")
            out.errors.append(f"skipped {kind_of(mode)} {shown(rel)}: only regular files and symlinks are read")
            continue
        c = cache.get(rel)
        if c is not None and c[0] == st.st_mtime_ns and c[1] == st.st_size and c[2] == st.st_ino and c[4] == mode \
                and st.st_mtime_ns < trusted_before:
            manifest[rel] = [c[3], st.st_size, mode]
            new_cache[rel] = c  # unchanged: keep the cached record as it is
            continue
        _hash_entry(entry.path, rel, st, out, deadline)
    return seen


def _hash_entry(path: str, rel: str, st: os.stat_result, out: Walk, deadline: float | None) -> None:
    try:
        sha = _hash_link(path) if stat.S_ISLNK(st.st_mode) else _hash_file(path, deadline)
    except OutOfTime as e:
        e.cache = out.cache
        raise
    except OSError as e:
        out.errors.append(f"cannot read {shown(rel)}: {e.strerror}")
        return
    out.hashed += 1
    out.manifest[rel] = [sha, st.st_size, st.st_mode]
    out.cache[rel] = (st.st_mtime_ns, st.st_size, st.st_ino, sha, st.st_mode)


def tree_hash(manifest: Manifest) -> str:
    """One hash for a whole tree (paths, contents, modes): what a stop judged, comparable later."""
    import hashlib

    h = hashlib.sha256()
    for path in sorted(manifest):
        sha, _size, mode = manifest[path]
        h.update(f"{path}\0{sha}\0{mode:o}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


class Diff:
    __slots__ = ("changed", "created", "deleted")

    def __init__(self, created: list[str], changed: list[str], deleted: list[str]):
        self.created = created
        self.changed = changed
        self.deleted = deleted

    @property
    def paths(self) -> list[str]:
        return sorted(self.created + self.changed + self.deleted)

    @property
    def empty(self) -> bool:
        return not (self.created or self.changed or self.deleted)


def diff(base: Manifest, now: Manifest) -> Diff:
    created = sorted(now.keys() - base.keys())
    deleted = sorted(base.keys() - now.keys())
    changed = sorted(p for p, (sha, _size, mode) in now.items()
                     if (b := base.get(p)) is not None and (sha != b[0] or mode != b[2]))
    return Diff(created, changed, deleted)


# --- persistence -------------------------------------------------------------------------------


def write_json_atomic(path: str, data: object) -> None:
    write_atomic(path, jsonfast.dumps(data, compact=True))


def read_json(path: str) -> object:
    return jsonfast.read(path)


def store_blobs(root: str, manifest: Manifest, blob_dir: str, must: GlobSet | None = None) -> list[str]:
    """Copy file contents into a content-addressed store so diffs and pristine restores can read them.

    Files over BLOB_MAX_BYTES are skipped unless `must` matches them (protected files always are kept).
    Returns the errors met.
    """
    os.makedirs(blob_dir, exist_ok=True)
    errors = []
    for rel, (sha, size, mode) in manifest.items():
        dest = os.path.join(blob_dir, sha)
        if os.path.exists(dest) or (size > BLOB_MAX_BYTES and not (must and must.match(rel))):
            continue
        src = os.path.join(root, rel)
        try:
            if stat.S_ISLNK(mode):
                data = os.fsencode(os.readlink(src))
            else:
                with open(open_regular(src), "rb") as f:
                    data = f.read()
        except OSError as e:
            errors.append(f"cannot store {shown(rel)}: {e.strerror}")
            continue
        write_atomic(dest, data)
    return errors


def read_blob(blob_dir: str, sha: str) -> bytes | None:
    if len(sha) == 40:  # a git blob id: the git path stored it (gitsnap.py)
        from gatebench.tree import gitsnap

        return gitsnap.read_blob(gitsnap.git_dir_for(blob_dir), sha)
    try:
        with open(os.path.join(blob_dir, sha), "rb") as f:
            return f.read()
    except OSError:
        return None


def take_baseline(root: str, ignore: GlobSet, dest_dir: str, must_store: GlobSet | None, blob_dir: str) -> dict:
    """Snapshot `root` into dest_dir/manifest.json and blob_dir; returns a summary.

    In a git work tree the git path takes it (gitsnap.py): a tree in the state's private git dir.
    """
    from gatebench.tree import gitsnap

    if gitsnap.usable(root):
        return gitsnap.take_baseline(root, ignore.patterns, ignore.match, dest_dir, gitsnap.git_dir_for(blob_dir))
    try:
        os.remove(os.path.join(dest_dir, "manifest.json" + gitsnap.SIDECAR))  # this baseline is the walker's
    except FileNotFoundError:
        pass
    t0 = time.monotonic()
    w = walk(root, ignore)
    errors = w.errors + store_blobs(root, w.manifest, blob_dir, must_store)
    os.makedirs(dest_dir, exist_ok=True)
    write_json_atomic(os.path.join(dest_dir, "manifest.json"), w.manifest)
    return {"files": len(w.manifest), "errors": errors, "seconds": round(time.monotonic() - t0, 4)}


def read_manifest(path: str) -> Manifest:
    """A manifest JSON, through a marshal copy beside it: JSON is the format, marshal is 5x faster to load."""
    fast = path + ".marshal"
    try:
        if os.stat(fast).st_mtime_ns >= os.stat(path).st_mtime_ns:
            with open(fast, "rb") as f:
                return marshal.loads(f.read())  # loads: load(file) reads in tiny chunks, 10x slower
    except (OSError, EOFError, ValueError, TypeError):
        pass
    data = read_json(path)
    try:
        write_atomic(fast, marshal.dumps(data))  # type: ignore[arg-type]
    except OSError:
        pass
    return data  # type: ignore[return-value]


def current(root: str, ignore: GlobSet, cache_path: str, deadline: float | None = None) -> Walk:
    """Walk with the stat cache at cache_path (marshal: a private, rebuildable cache), saving it if it changed.

    Raises OutOfTime past `deadline`."""
    cache, cache_time = {}, 0
    try:
        with open(cache_path, "rb") as f:
            cache_time, cache = marshal.loads(f.read())  # loads: load(file) reads in tiny chunks, 10x slower
    except (OSError, EOFError, ValueError, TypeError):
        pass
    try:
        w = walk(root, ignore, cache, cache_time, deadline)
    except OutOfTime as e:
        # Keep what was hashed: the next stop starts where this one ran out, so a big tree converges.
        try:
            write_atomic(cache_path, marshal.dumps((time.time_ns(), {**cache, **e.cache})))
        except OSError:
            pass
        raise
    if w.hashed or len(w.cache) != len(cache):
        try:
            write_atomic(cache_path, marshal.dumps((time.time_ns(), w.cache)))
        except OSError as e:
            w.errors.append(f"cannot write stat cache: {e.strerror}")
    return w


class Snap:
    """The work tree now against a baseline, by whichever path took that baseline (walker or git)."""

    __slots__ = ("_tree", "baseline", "diff", "errors", "files", "hashed", "now", "special", "via")

    def __init__(self, baseline, now, d: Diff, files: int, hashed: int, errors: list[str], via: str, tree=None,
                 special: list[str] | None = None):
        self.baseline, self.now, self.diff = baseline, now, d
        self.files, self.hashed, self.errors, self.via, self._tree = files, hashed, errors, via, tree
        self.special = special or []  # the walker's devices, FIFOs, sockets (git lists none of them)

    def tree_hash(self) -> str:
        """What this stop judged, comparable later: the git tree id, or a sha256 over the walker's manifest."""
        if self._tree is None:
            self._tree = tree_hash(self.now)
        return self._tree


def compare(root: str, ignore: GlobSet, baseline_path: str, blob_dir: str, cache_path: str | None = None,
            deadline: float | None = None) -> Snap:
    """Snapshot `root` the way the baseline at baseline_path was taken, and diff it against that baseline.

    Raises FileNotFoundError if there is no baseline there. `cache_path`: the walker's stat cache (None:
    a plain walk, nothing written); the git path always updates its private index.
    """
    from gatebench.tree import gitsnap

    os.stat(baseline_path)
    base_tree = gitsnap.baseline_tree(baseline_path)
    if base_tree is not None:
        git_dir = gitsnap.git_dir_for(blob_dir)
        g = gitsnap.current(root, git_dir, ignore.match, deadline, base=base_tree)
        assert g.diff is not None  # current gives the diff against the base it was given
        d = Diff(*g.diff)
        return Snap(gitsnap.TreeManifest(git_dir, root, base_tree), g.manifest, d, g.files, g.hashed, g.errors,
                    "git", g.tree)
    base = read_manifest(baseline_path)
    w = current(root, ignore, cache_path, deadline) if cache_path else walk(root, ignore, deadline=deadline)
    return Snap(base, w.manifest, diff(base, w.manifest), len(w.manifest), w.hashed, w.errors, "walk",
                special=w.special)
