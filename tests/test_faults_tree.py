"""What the agent can put in its work tree must not stall, fill or crash the gate or finalize.

Special files (a character device, a FIFO), a name that is not UTF-8 under a protected path, a tree
too big for the hook's budget: each case on a real prepared cell with the real hook.
"""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest
from conftest import gatebench_cli, hook_input, run_hook
from test_finalize import fake_run

from gatebench.cell.cell import CellPaths
from gatebench.cell.finalize import finalize
from gatebench.cell.prep import prep
from gatebench.matrix import ledger
from gatebench.models.result import ResultRecord
from gatebench.suite.tasks import apply_state, load_task
from gatebench.tree import treecopy
from gatebench.tree.globs import GlobSet
from gatebench.tree.snapshot import OutOfTime, shown, walk


def special_files(repo: Path) -> None:
    try:
        os.mknod(repo / "zero", stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero: endless bytes
    except PermissionError:
        pytest.skip("mknod needs root")
    os.mkfifo(repo / "tests" / "pipe")  # nobody ever writes it: opening it for reading blocks


def set_budget(state: Path, **budget) -> None:
    path = state / "config.json"
    cfg = json.loads(path.read_text())
    cfg["config"].setdefault("budget", {}).update(budget)
    path.write_text(json.dumps(cfg))


def test_a_device_and_a_fifo_in_the_work_copy_are_skipped_and_flagged_by_the_stop_and_finalize(tmp_path: Path):
    cell = tmp_path / "c"
    prep("T1", "oracle", cell)
    apply_state(load_task("T1"), "reference", cell / "repo")
    special_files(cell / "repo")
    t0 = time.monotonic()
    fake_run(cell)  # the real hook, one stop: the oracle copies the work tree
    stop_s = time.monotonic() - t0
    ev = json.loads((cell / "state" / "events.jsonl").read_text().splitlines()[-1])
    assert stop_s < 60, f"the stop took {stop_s:.0f} s"
    if ev["snapshot"]["via"] == "walk":
        assert sorted(ev["snapshot"]["special"]) == ["tests/pipe (FIFO)", "zero (character device)"]
        assert any("skipped character device zero" in e for e in ev["errors"]), ev["errors"]
    else:  # git lists no FIFO or device, so the stop never opens them; finalize's walk records them below
        assert ev["snapshot"]["via"] == "git" and "special" not in ev["snapshot"]
    assert ev["oracle"]["error"] is None and ev["oracle"]["solved"] is True, ev["oracle"]
    assert ev["decision"] == "allow"
    t0 = time.monotonic()
    rec = finalize(CellPaths(cell), reuse_oracle=False)
    assert time.monotonic() - t0 < 60
    assert rec.special_files == ["tests/pipe (FIFO)", "zero (character device)"]
    assert rec.status == "ok" and rec.oracle.solved and rec.solved
    ResultRecord.model_validate_json((cell / "result.json").read_text())


def test_treecopy_copies_regular_files_and_links_only_and_stops_at_its_deadline(tmp_path: Path):
    src = tmp_path / "src"
    (src / "d").mkdir(parents=True)
    (src / "d" / "a.txt").write_text("a")
    (src / "link").symlink_to("d/a.txt")
    special_files_plain = src / "fifo"
    os.mkfifo(special_files_plain)
    got = treecopy.copy_tree(str(src), str(tmp_path / "dst"))
    assert got.files == 2 and got.skipped == ["fifo (FIFO)"]
    assert (tmp_path / "dst" / "d" / "a.txt").read_text() == "a" and os.readlink(tmp_path / "dst" / "link") == "d/a.txt"
    assert not (tmp_path / "dst" / "fifo").exists()
    # A FIFO listed by path (swapped in after a walk) is refused the same way; nothing blocks.
    got = treecopy.copy_tree(str(src), str(tmp_path / "dst2"), paths=["fifo", "d/a.txt"], mode=0o444)
    assert got.skipped == ["fifo (FIFO)"] and stat.S_IMODE((tmp_path / "dst2" / "d" / "a.txt").stat().st_mode) == 0o444
    big = src / "big"
    with open(big, "wb") as f:
        f.truncate(1 << 34)  # 16 GiB of holes: copying it would take minutes and fill the disk
    t0 = time.monotonic()
    with pytest.raises(treecopy.CopyDeadline):
        treecopy.copy_tree(str(src), str(tmp_path / "dst3"), deadline=time.monotonic() + 0.5)
    assert time.monotonic() - t0 < 5


def test_a_name_that_is_not_utf8_under_a_protected_path_reaches_events_records_and_the_ledger(tmp_path: Path):
    cell = tmp_path / "c"
    prep("T1", "none", cell)
    apply_state(load_task("T1"), "reference", cell / "repo")
    bad = os.fsencode(cell / "repo" / "tests") + b"/caf\xe9_\xff.py"
    with open(bad, "wb") as f:
        f.write(b"def test_x():\n    pass\n")
    fake_run(cell)
    ev = json.loads((cell / "state" / "events.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert ev["diff"]["protected_touched"] == ["tests/caf\\xe9_\\xff.py"]
    r = gatebench_cli("finalize", str(cell), "--json")  # the verb that crashed on such a name
    assert json.loads(r.stdout)["tampered"] == ["tests/caf\\xe9_\\xff.py"]
    rec = finalize(CellPaths(cell))
    assert rec.tampered == ["tests/caf\\xe9_\\xff.py"] and rec.tamper and not rec.solved
    again = ResultRecord.model_validate_json((cell / "result.json").read_text(encoding="utf-8"))
    assert again.tampered == rec.tampered
    ledger.append(tmp_path / "results.jsonl", rec.model_dump(mode="json"))
    assert ledger.read(tmp_path / "results.jsonl")[0]["tampered"] == ["tests/caf\\xe9_\\xff.py"]
    assert shown(os.fsdecode(b"ok.py")) == "ok.py" and shown("x\ud800") == "x\\ud800"


def test_a_tree_too_big_for_the_budget_is_decided_by_on_error_within_it(tmp_path: Path):
    cell = tmp_path / "c"
    prep("T1", "none", cell)
    many = cell / "repo" / "many"
    for i in range(40):
        d = many / f"d{i}"
        d.mkdir(parents=True)
        for j in range(500):
            (d / f"f{j}.txt").write_bytes(b"x")
    with pytest.raises(OutOfTime):
        walk(str(cell / "repo"), GlobSet([]), deadline=time.monotonic() + 0.05)
    assert len(walk(str(cell / "repo"), GlobSet([])).manifest) > 20000
    # The budget the walk was just seen to exceed: an idle machine walks and hashes these 20,000 new files in
    # less than 0.3 s (T1's baseline is the walker's: prep.WALKER_MAX_FILES).
    set_budget(cell / "state", hook_seconds=0.05)
    cfg = json.loads((cell / "state" / "config.json").read_text())
    cfg["config"]["on_error"] = "closed"
    (cell / "state" / "config.json").write_text(json.dumps(cfg))
    t0 = time.monotonic()
    out, ev = run_hook(cell / "state", hook_input(cell / "repo"))
    assert time.monotonic() - t0 < 15
    assert ev["seconds"] < 0.05 + 3, ev["seconds"]
    assert any("time budget ran out" in e for e in ev["errors"]), ev["errors"]
    assert ev["decision"] == "block" and out["decision"] == "block"  # on_error: closed decided it, not a timeout
