"""install / uninstall / status / schema: keep every other key and hook, idempotently."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from conftest import ROOT, gatebench_cli, state_of

ORIGINAL = {
    "model": "sonnet",
    "permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(./secrets/**)"]},
    "env": {"FOO": "1"},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
    },
}


def read(p):
    return json.loads(p.read_text())


def test_install_twice_equals_once_and_uninstall_restores(calc_repo):
    settings = calc_repo / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(ORIGINAL))
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    once = read(settings)
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    assert read(settings) == once
    # ours added beside the user's Stop hook, nothing else touched
    assert len(once["hooks"]["Stop"]) == 2 and once["hooks"]["Stop"][0] == ORIGINAL["hooks"]["Stop"][0]
    keep = ("hooks", "permissions")
    assert {k: v for k, v in once.items() if k not in keep} == {k: v for k, v in ORIGINAL.items() if k not in keep}
    # the user's rules stay; every install denies the agent's tools the gate's own state dir
    state = str(state_of(calc_repo))
    assert once["permissions"] == {"allow": ["Bash(ls:*)"],
                                   "deny": ["Read(./secrets/**)", f"Read(/{state}/**)", f"Edit(/{state}/**)"]}
    assert "sandbox" not in once
    cmd = once["hooks"]["Stop"][1]["hooks"][0]["command"]
    assert "gatebench/hook/__main__.py stop --state" in cmd and cmd.startswith("/")
    assert once["hooks"]["Stop"][1]["hooks"][0]["timeout"] == 330  # hook_seconds 300 + margin
    gatebench_cli("uninstall", str(calc_repo))
    assert read(settings) == ORIGINAL


def test_install_on_empty_repo_then_uninstall_leaves_empty(calc_repo, user_state_home):
    gatebench_cli("install", str(calc_repo), "--config", "self")
    local = calc_repo / ".claude" / "settings.local.json"
    assert set(read(local)["hooks"]) == {"Stop", "SessionStart"}
    # The file a team commits stays untouched, and no state lands inside the repo.
    assert not (calc_repo / ".claude" / "settings.json").exists()
    assert not (calc_repo / ".claude" / "gatebench").exists()
    state = state_of(calc_repo)
    assert state.parent == user_state_home / "gatebench" and state.name.startswith("repo-")
    assert (state / "config.json").is_file() and (state / "baseline" / "manifest.json").is_file()
    gatebench_cli("uninstall", str(calc_repo))
    assert not local.exists() and not local.parent.exists()  # install made it: nothing left holding {}


def test_state_dir_is_per_repo_and_per_real_path(tmp_path):
    from gatebench.hook.state import default_state_dir

    (tmp_path / "a" / "repo").mkdir(parents=True)
    (tmp_path / "b" / "repo").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "a" / "repo")
    a, b = default_state_dir(str(tmp_path / "a" / "repo")), default_state_dir(str(tmp_path / "b" / "repo"))
    assert a != b and a == default_state_dir(str(tmp_path / "link"))
    assert not a.startswith(str(tmp_path / "a"))


def test_bad_settings_file_changes_nothing(calc_repo):
    settings = calc_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{broken")
    r = gatebench_cli("install", str(calc_repo), "--config", "tests", check=False)
    assert r.returncode == 2 and "settings.json: not valid JSON" in r.stderr
    assert settings.read_text() == "{broken"
    assert not state_of(calc_repo).exists()


def test_bad_config_names_file_and_field(calc_repo, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nbudget: {blocks: 8}\ngates: [{kind: tests, timeout: 5}]\ncolour: red\n")
    r = gatebench_cli("install", str(calc_repo), "--config", str(bad), check=False)
    assert r.returncode == 2
    assert str(bad) in r.stderr
    assert "budget.blocks: Input should be less than 8" in r.stderr
    assert "gates.0.tests.timeout: unknown key" in r.stderr
    assert "colour: unknown key" in r.stderr
    assert not (calc_repo / ".claude").exists()
    r = gatebench_cli("install", str(calc_repo), "--config", "nope", check=False)
    assert r.returncode == 2 and "no config named 'nope'" in r.stderr and "tests" in r.stderr


def test_status_shows_entries_and_decisions(installed):
    from conftest import hook_input, run_hook

    repo, state = installed
    run_hook(state, hook_input(repo))
    r = gatebench_cli("status", str(repo))
    assert "settings.local.json: 2 gatebench entries" in r.stdout and "BROKEN" not in r.stdout + r.stderr
    assert r.stdout.count("  starts\n") == 2 and f"state dir: {state}" in r.stdout
    assert "settings.local.json (this machine only) (starts here)" in r.stdout
    assert "config: tests  gates: diff, tests" in r.stdout
    assert "#1  block" in r.stdout and "diff=block" in r.stdout


def test_schema_prints_json_schema():
    r = gatebench_cli("schema", "config")
    schema = json.loads(r.stdout)
    assert schema["title"] == "GateConfig" and "gates" in schema["properties"]
    r = gatebench_cli("schema", "event")
    assert json.loads(r.stdout)["title"] == "HookEvent"


def test_status_fails_loudly_when_the_checkout_moved(calc_repo, tmp_path):
    """Install from a copy of gatebench, move the copy: status must exit non-zero naming the command."""
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "gatebench", checkout / "gatebench", ignore=shutil.ignore_patterns("__pycache__"))
    cfg = str(ROOT / "configs" / "tests.yaml")
    subprocess.run([sys.executable, "-m", "gatebench", "install", str(calc_repo), "--config", cfg],
                   cwd=checkout, check=True, capture_output=True, text=True)
    cmd = read(calc_repo / ".claude" / "settings.local.json")["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert str(checkout / "gatebench" / "hook" / "__main__.py") in cmd
    ok = gatebench_cli("status", str(calc_repo))
    assert "BROKEN" not in ok.stdout + ok.stderr
    checkout.rename(tmp_path / "moved")
    r = gatebench_cli("status", str(calc_repo), check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "BROKEN: the Stop hook command" in r.stderr and cmd in r.stderr and "the gate is OFF" in r.stderr
    assert "BROKEN: the SessionStart hook command" in r.stderr


def test_sandbox_settings_added_and_removed(calc_repo):
    local = calc_repo / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text(json.dumps({"permissions": {"deny": ["Read(./secrets/**)"]}}))
    gatebench_cli("install", str(calc_repo), "--config", "tests", "--sandbox")
    doc = read(local)
    state = str(state_of(calc_repo))
    assert doc["sandbox"]["enabled"] is True and doc["sandbox"]["allowUnsandboxedCommands"] is False
    assert doc["sandbox"]["filesystem"]["denyRead"] == [f"/{state}/**"]
    deny = doc["permissions"]["deny"]
    assert deny[0] == "Read(./secrets/**)" and f"Edit(/{state}/**)" in deny and f"Read(/{state}/**)" in deny
    assert "Edit(./.claude/settings.json)" in deny
    gatebench_cli("install", str(calc_repo), "--config", "tests", "--sandbox")
    assert read(local) == doc
    gatebench_cli("uninstall", str(calc_repo))
    assert read(local) == {"permissions": {"deny": ["Read(./secrets/**)"]}}


def test_uninstall_cleans_an_older_shared_install(calc_repo):
    from gatebench.installer import settings as st

    shared = calc_repo / ".claude" / "settings.json"
    shared.parent.mkdir()
    shared.write_text(json.dumps(st.add({}, sys.executable, "/old/state", 330)))
    r = gatebench_cli("install", str(calc_repo), "--config", "tests")
    assert "still holds gatebench entries" in r.stderr
    gatebench_cli("uninstall", str(calc_repo))
    assert read(shared) == {} and not (calc_repo / ".claude" / "settings.local.json").exists()


def test_a_misspelt_test_command_is_refused_and_nothing_is_written(calc_repo):
    r = gatebench_cli("install", str(calc_repo), "--config", "tests", "--test-command", "pytset -q", check=False)
    assert r.returncode == 2, r.stdout + r.stderr
    assert 'test command "pytset -q": command not found (exit 127)' in r.stderr, r.stderr
    assert not (calc_repo / ".claude").exists() and not state_of(calc_repo).exists()
    # collecting no tests is refused too; the working command beside them installs and says what it ran
    r = gatebench_cli("install", str(calc_repo), "--config", "tests", "--test-command",
                      "{python} -m pytest -q -k no_such_test", check=False)
    assert r.returncode == 2 and "no tests were collected (exit 5)" in r.stderr, r.stderr
    r = gatebench_cli("install", str(calc_repo), "--config", "tests")
    assert "1 failed (pytest report)" in r.stdout and "results: pytest results compared" in r.stdout, r.stdout


def test_status_runs_the_test_command_and_says_broken(installed):
    repo, state = installed
    r = gatebench_cli("status", str(repo))
    assert "tests: `" in r.stdout and "1 failed (pytest report)" in r.stdout and r.returncode == 0
    cfg = json.loads((state / "config.json").read_text())
    cfg["config"]["gates"][1]["command"] = "pytset -q"
    (state / "config.json").write_text(json.dumps(cfg))
    r = gatebench_cli("status", str(repo), check=False)
    assert r.returncode == 1 and "BROKEN: the tests gate's command `pytset -q` command not found" in r.stderr


def test_install_keeps_git_status_clean_and_uninstall_takes_its_lines_back(calc_repo):
    subprocess.run(["git", "init", "-q", str(calc_repo)], check=True)
    exclude = calc_repo / ".git" / "info" / "exclude"
    before = exclude.read_text() if exclude.exists() else ""
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    status = subprocess.run(["git", "status", "--porcelain"], cwd=calc_repo, capture_output=True, text=True).stdout
    assert ".claude" not in status, status
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    assert exclude.read_text().count("/.claude/settings.local.json") == 1
    gatebench_cli("uninstall", str(calc_repo))
    assert exclude.read_text() == before


def test_installed_mode_leaves_package_manager_trees_out_of_the_baseline(calc_repo):
    for rel in ("node_modules/jest/index.js", "packages/a/node_modules/x/i.js", ".yarn/cache/x.zip",
                ".pnpm-store/v3/f", "src/util.js", "packages/a/index.js"):
        (calc_repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (calc_repo / rel).write_text("x\n")
    r = gatebench_cli("install", str(calc_repo), "--config", "self")
    files = set(read(state_of(calc_repo) / "baseline" / "manifest.json"))
    assert "src/util.js" in files and "packages/a/index.js" in files, (r.stdout, sorted(files)[:20])
    assert not [f for f in files if "node_modules" in f or f.startswith((".yarn/", ".pnpm-store/"))], sorted(files)
