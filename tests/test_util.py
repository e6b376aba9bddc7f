"""The shared stdlib helpers: an atomic write is all or nothing; a JSONL reader keeps whole objects only."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from gatebench.common.util import read_jsonl, signal_group, write_atomic


def test_write_atomic_replaces_whole_and_a_failed_write_keeps_the_old_file_and_no_temp(tmp_path):
    p = tmp_path / "f.json"
    write_atomic(p, "old\n")
    write_atomic(p, b"new\n")
    assert p.read_bytes() == b"new\n"

    with pytest.raises(TypeError):
        write_atomic(p, 123)  # type: ignore[arg-type]  # not str/bytes: the write fails mid-way
    assert p.read_bytes() == b"new\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["f.json"], "a failed write leaves no temp file"


def test_read_jsonl_keeps_objects_and_counts_the_rest(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"a": 1}\n\n[1, 2]\n{"b": \n"s"\n{"c": 3}\n{"torn')
    assert read_jsonl(p) == ([{"a": 1}, {"c": 3}], 4)
    assert read_jsonl(tmp_path / "missing.jsonl") == ([], 0)
    # a folder cannot be read as a file: empty by default, an error when the caller must know
    assert read_jsonl(tmp_path) == ([], 0)
    with pytest.raises(OSError):
        read_jsonl(tmp_path, unreadable_ok=False)


def test_signal_group_stops_a_group_and_ignores_one_that_is_gone():
    proc = subprocess.Popen(["sleep", "60"], start_new_session=True)
    signal_group(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    signal_group(proc.pid, signal.SIGKILL)  # gone: no error
    assert os.getpgid(os.getpid()) != proc.pid


def test_signal_group_or_leader_reaches_a_child_that_has_no_group_of_its_own():
    proc = subprocess.Popen(["sleep", "60"])  # in our group: there is no group numbered by its pid
    try:
        signal_group(proc.pid, signal.SIGKILL)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.3)
        signal_group(proc.pid, signal.SIGKILL, or_leader=True)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        proc.kill()
        proc.wait()
