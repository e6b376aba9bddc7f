"""gatebench prep: the cell layout, the fresh history, the deny rules, and atomicity on failure."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import gatebench_cli, hook_input, run_hook

from gatebench.cell import prep as prep_mod
from gatebench.cell import seal, world
from gatebench.cell.prep import deny_rules, prep, seed_for
from gatebench.errors import UsageError
from gatebench.paths import project_root

ROOT = project_root()


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir()) if parent.exists() else []


def test_prep_makes_a_cell_with_fresh_history_hook_and_deny_rules(tmp_path: Path):
    out = tmp_path / "cells" / "c"
    meta = prep("T1", "tests", out, rep=1)
    repo, state = out / "repo", out / "state"
    assert {p.name for p in out.iterdir()} == {"cell.json", "repo", "state", "home", "tmp"}
    assert not (repo / ".claude" / "gatebench").exists(), "the state dir must live outside the work copy"

    log = subprocess.run(["git", "log", "--format=%an %s"], cwd=repo, capture_output=True, text=True).stdout
    assert log.splitlines() == ["gatebench baseline"], "one baseline commit, nothing from the task's authoring"
    assert meta.baseline_commit == subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                                                  text=True).stdout.strip()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == ""

    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    stop_cmd = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    # The in-world hook is the stop server's client: it names the socket, never the state dir (outside the world).
    assert "stop_client.py stop" in stop_cmd and str(state.resolve()) not in stop_cmd
    assert stop_cmd.endswith(str(world.stop_socket(seal.worker_tmp(out))))
    assert str(state.resolve()) not in json.dumps(json.loads((state / "world.json").read_text())["rw"])
    deny = settings["permissions"]["deny"]
    for private in (ROOT / "hidden" / "T1", ROOT / "reference" / "T1", ROOT / "inject" / "T1", state):
        assert f"Read(/{private.resolve()}/**)" in deny

    resolved = json.loads((state / "config.json").read_text())
    assert resolved["mode"] == "bench" and resolved["repo"] == str(repo.resolve())
    assert resolved["oracle"]["hidden_dir"] == str((ROOT / "hidden" / "T1").resolve())
    assert meta.seed == seed_for("T1", 1) and meta.config == "tests" and meta.rep == 1
    assert json.loads((out / "cell.json").read_text())["task_hash"] == meta.task_hash


def test_baseline_is_taken_after_settings_and_commit(tmp_path: Path):
    """A stop right after prep sees no change: the hook entry and .git are part of the baseline, not a diff."""
    out = tmp_path / "c"
    prep("T1", "none", out)
    _, event = run_hook(out / "state", hook_input(out / "repo"))
    assert event["diff"]["no_change"], event["diff"]
    (out / "repo" / "pagekit" / "new.py").write_text("x = 1\n")
    _, event = run_hook(out / "state", hook_input(out / "repo"))
    assert event["diff"]["created"] == ["pagekit/new.py"]


def test_seed_is_paired_across_configs_and_differs_across_reps(tmp_path: Path):
    a = prep("T1", "none", tmp_path / "a", rep=0)
    b = prep("T1", "tests", tmp_path / "b", rep=0)
    c = prep("T1", "none", tmp_path / "c", rep=1)
    assert a.seed == b.seed != c.seed


def test_missing_task_names_it_and_writes_nothing(tmp_path: Path):
    with pytest.raises(UsageError, match=r"no task 'T999'.*known: .*\bT1\b"):
        prep("T999", "none", tmp_path / "cells" / "x")
    assert leftovers(tmp_path / "cells") == []


def test_bad_config_names_file_and_field_and_writes_nothing(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ngates:\n  - kind: tests\n    timeout_s: -1\n")
    with pytest.raises(UsageError, match=r"(?s)bad\.yaml.*gates\.0\.tests\.timeout_s"):
        prep("T1", str(bad), tmp_path / "cells" / "x")
    assert leftovers(tmp_path / "cells") == []
    r = gatebench_cli("prep", "T1", "--config", "nosuchconfig", "--out", str(tmp_path / "cells" / "y"), check=False)
    assert r.returncode == 2 and "no config named 'nosuchconfig'" in r.stderr
    assert leftovers(tmp_path / "cells") == []


def test_failure_mid_build_leaves_no_half_written_cell(tmp_path: Path, monkeypatch):
    def broken(repo: Path) -> str:
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(prep_mod, "git_baseline", broken)
    with pytest.raises(OSError, match="disk full"):
        prep("T1", "none", tmp_path / "cells" / "x")
    assert leftovers(tmp_path / "cells") == []


def test_existing_cell_is_kept_unless_forced(tmp_path: Path):
    out = tmp_path / "c"
    prep("T1", "none", out)
    (out / "repo" / "marker").write_text("old")
    with pytest.raises(UsageError, match="already exists"):
        prep("T1", "none", out)
    assert (out / "repo" / "marker").exists()
    prep("T1", "tests", out, force=True)
    assert not (out / "repo" / "marker").exists()
    assert json.loads((out / "cell.json").read_text())["config"] == "tests"
    assert leftovers(tmp_path) == ["c"]


def test_deny_rules_use_claude_absolute_syntax(tmp_path: Path):
    rules = deny_rules([tmp_path / "hidden"])
    assert rules == [f"Read(/{tmp_path.resolve()}/hidden/**)", f"Edit(/{tmp_path.resolve()}/hidden/**)"]
    assert all(r.split("(", 1)[1].startswith("//") for r in rules)


def test_forced_prep_clears_debris_of_a_prep_killed_half_way(tmp_path: Path):
    (tmp_path / ".c.prep-999-dead00" / "repo").mkdir(parents=True)
    (tmp_path / ".c.old-dead00").mkdir()
    (tmp_path / ".other.prep-1-x").mkdir()
    prep("T1", "none", tmp_path / "c", force=True)
    assert leftovers(tmp_path) == [".other.prep-1-x", "c"]
