"""tree/filekind.py: the one opener of agent-controlled files (snapshot, tree copy, policy, reviewers)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gatebench.tree import filekind, treecopy


def test_only_a_regular_file_is_opened_and_the_refusal_names_the_kind(tmp_path: Path):
    (tmp_path / "f").write_text("x")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "d").mkdir()
    os.symlink("f", tmp_path / "link")
    fd, st = filekind.open_regular_stat(str(tmp_path / "f"))
    os.close(fd)
    assert st.st_size == 1
    for name, kind in (("fifo", "FIFO"), ("d", "directory")):
        with pytest.raises(filekind.NotRegular) as e:  # the FIFO is not waited on: O_NONBLOCK
            filekind.open_regular(str(tmp_path / name))
        # the message callers log (`e.strerror`) as it was before the helpers were one
        assert (e.value.kind, e.value.errno, e.value.strerror) == (kind, 0, f"a {kind}, not a regular file")
    with pytest.raises(OSError) as e:
        filekind.open_regular(str(tmp_path / "link"))  # never through a link
    assert e.value.errno == 40  # ELOOP


def test_the_tree_copy_skips_what_is_not_regular_by_the_same_helper(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    os.mkfifo(src / "fifo")
    with pytest.raises(filekind.NotRegular) as e:
        treecopy.copy_file(str(src / "fifo"), str(tmp_path / "out"), None)
    assert e.value.kind == "FIFO" and not (tmp_path / "out").exists()
