from __future__ import annotations

import os
import time

import pytest
from gitsnap_helpers import git_commit_all

from gatebench.tree import snapshot
from gatebench.tree.globs import GlobSet

IGNORE = GlobSet([".git/**", "**/__pycache__/**"])


class Snapper:
    """One snapshot path: the walker (a plain folder) or git (a git work tree), behind one small interface."""

    def __init__(self, via: str, repo, state):
        self.via, self.repo, self.state = via, repo, state
        self.cache = str(state / "statcache.marshal")

    def baseline(self) -> dict:
        if self.via == "git":
            git_commit_all(self.repo)
        snapshot.take_baseline(str(self.repo), IGNORE, str(self.state / "baseline"), None, str(self.state / "blobs"))
        return snapshot.read_json(str(self.state / "baseline" / "manifest.json"))

    def now(self) -> snapshot.Snap:
        s = snapshot.compare(str(self.repo), IGNORE, str(self.state / "baseline" / "manifest.json"),
                             str(self.state / "blobs"), self.cache)
        assert s.via == self.via
        return s


@pytest.fixture(params=["walk", "git"])
def snapper(request, tmp_path):
    repo, state = tmp_path / "r", tmp_path / "state"
    repo.mkdir()
    state.mkdir()
    return Snapper(request.param, repo, state)


def test_diff_created_changed_deleted(snapper):
    repo = snapper.repo
    (repo / "a.txt").write_text("a")
    (repo / "b.txt").write_text("b")
    base = snapper.baseline()
    assert set(base) == {"a.txt", "b.txt"}
    if snapper.via == "walk":  # made after the baseline, which would otherwise take the git path
        (repo / ".git").mkdir()
        (repo / ".git" / "HEAD").write_text("x")
    (repo / "a.txt").write_text("A")
    (repo / "b.txt").unlink()
    (repo / "sub").mkdir()
    (repo / "sub" / "c.txt").write_text("c")
    d = snapper.now().diff
    assert (d.created, d.changed, d.deleted) == (["sub/c.txt"], ["a.txt"], ["b.txt"])
    os.chmod(repo / "sub" / "c.txt", 0o755)
    assert snapper.now().diff.created == ["sub/c.txt"]
    os.chmod(repo / "a.txt", 0o755)
    assert snapper.now().diff.changed == ["a.txt"]  # the executable bit is a change on both paths


def test_stat_cache_skips_unchanged_files_but_sees_edits(snapper):
    repo = snapper.repo
    old = time.time() - 60
    for i in range(20):
        p = repo / f"f{i}.txt"
        p.write_text(str(i))
        os.utime(p, (old, old))
    snapper.baseline()
    first = snapper.now()
    assert first.hashed == (20 if snapper.via == "walk" else 0)  # git hashed them for the baseline already
    assert snapper.now().hashed == 0  # warm: nothing re-read
    (repo / "f3.txt").write_text("changed, same second as the cache")
    s = snapper.now()
    assert s.hashed == 1 and s.diff.changed == ["f3.txt"]
    if snapper.via == "walk":
        assert s.now["f3.txt"][0] == snapshot._hash_file(str(repo / "f3.txt"))
    else:
        assert snapshot.read_blob(str(snapper.state / "blobs"), s.now["f3.txt"][0]) == \
            b"changed, same second as the cache"


def test_racy_same_size_edit_is_not_missed(snapper):
    """An edit that keeps size and lands in the same mtime tick as the cache must still be seen."""
    repo = snapper.repo
    p = repo / "x.txt"
    p.write_text("aaaa")
    snapper.baseline()
    st = p.stat()
    first = snapper.now().tree_hash()
    p.write_text("bbbb")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    second = snapper.now()
    assert second.tree_hash() != first and second.diff.changed == ["x.txt"]


def test_globs_keep_star_inside_a_segment():
    g = GlobSet(["tests/*.py", "**/conftest.py", "*.orig"])
    assert g.match("tests/test_a.py") and not g.match("tests/sub/test_a.py")
    assert g.match("conftest.py") and g.match("a/b/conftest.py")
    assert g.match("x/y.orig") and not g.match("x/y.origin")


def test_globs_without_a_regex_answer_as_the_regex_does():
    """The no-gate stop matches its protected globs without importing `re` (issue 35): every shortcut (suffix,
    name, affix `test_*.py`, literal path, literal folder `tests/**`) gives translate's regex's answer."""
    import itertools
    import re

    from gatebench.tree.globs import _sort, translate

    patterns = ["**/*.py", "*.orig", "conftest.py", "**/conftest.py", "test_*.py", "**/*_test.py", "a*b", "ab*b", "*",
                ".claude/settings.json", "tests/**", "a/b/**", "/**", "pytest.ini", "a\nb/**", "tests/*.py",
                "**/test_*", "a?c", "[ab]/**", "x/**/y.py", "**"]
    forms = _sort(patterns)
    assert all(forms[k] for k in ("suffix", "name", "affix", "literal", "prefix", "rest"))  # every shortcut is met
    segs = ["a", "b", "ab", "a.b", "test_x.py", "x_test.py", "tests", "conftest.py", ".py", "test_", "a\nb",
            "settings.json", ".claude", "pytest.ini", "y.py", "x", "acb", "a.orig"]
    paths = ["/".join(c) for n in (1, 2, 3) for c in itertools.product(segs, repeat=n)]
    for p in patterns:
        g, rx = GlobSet([p]), re.compile(translate(p))
        wrong = [path for path in paths if g.match(path) != bool(rx.fullmatch(path))]
        wrong += [path for path in paths if GlobSet([p + "/**"]).prunes(path) != bool(rx.fullmatch(path))]
        assert not wrong, (p, wrong[:5])
    assert GlobSet(["tests/**"]).match("tests/a") and not GlobSet(["tests/**"]).match("tests/a\nb")
