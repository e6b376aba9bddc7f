from __future__ import annotations

import os
import time

from gatebench.hook import snapshot
from gatebench.hook.globs import GlobSet

IGNORE = GlobSet([".git/**", "**/__pycache__/**"])


def test_diff_created_changed_deleted(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "b.txt").write_text("b")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("x")
    base = snapshot.walk(str(tmp_path), IGNORE).manifest
    assert set(base) == {"a.txt", "b.txt"}
    (tmp_path / "a.txt").write_text("A")
    (tmp_path / "b.txt").unlink()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.txt").write_text("c")
    d = snapshot.diff(base, snapshot.walk(str(tmp_path), IGNORE).manifest)
    assert (d.created, d.changed, d.deleted) == (["sub/c.txt"], ["a.txt"], ["b.txt"])
    os.chmod(tmp_path / "sub" / "c.txt", 0o755)
    assert snapshot.diff(base, snapshot.walk(str(tmp_path), IGNORE).manifest).created == ["sub/c.txt"]


def test_stat_cache_skips_unchanged_files_but_sees_edits(tmp_path):
    repo, cache = tmp_path / "r", str(tmp_path / "cache.json")
    repo.mkdir()
    old = time.time() - 60
    for i in range(20):
        p = repo / f"f{i}.txt"
        p.write_text(str(i))
        os.utime(p, (old, old))
    assert snapshot.current(str(repo), IGNORE, cache).hashed == 20
    assert snapshot.current(str(repo), IGNORE, cache).hashed == 0  # warm: nothing re-read
    (repo / "f3.txt").write_text("changed, same second as the cache")
    w = snapshot.current(str(repo), IGNORE, cache)
    assert w.hashed == 1
    assert w.manifest["f3.txt"][0] == snapshot._hash_file(str(repo / "f3.txt"))


def test_racy_same_size_edit_is_not_missed(tmp_path):
    """An edit that keeps size and lands in the same mtime tick as the cache must still be seen."""
    repo, cache = tmp_path / "r", str(tmp_path / "cache.json")
    repo.mkdir()
    p = repo / "x.txt"
    p.write_text("aaaa")
    st = p.stat()
    first = snapshot.current(str(repo), IGNORE, cache).manifest["x.txt"][0]
    p.write_text("bbbb")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    second = snapshot.current(str(repo), IGNORE, cache).manifest["x.txt"][0]
    assert first != second


def test_globs_keep_star_inside_a_segment():
    g = GlobSet(["tests/*.py", "**/conftest.py", "*.orig"])
    assert g.match("tests/test_a.py") and not g.match("tests/sub/test_a.py")
    assert g.match("conftest.py") and g.match("a/b/conftest.py")
    assert g.match("x/y.orig") and not g.match("x/y.origin")
