"""install / uninstall / status / schema: keep every other key and hook, idempotently."""

from __future__ import annotations

import json

from conftest import gatebench_cli

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
    settings = calc_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(ORIGINAL))
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    once = read(settings)
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    assert read(settings) == once
    # ours added beside the user's Stop hook, nothing else touched
    assert len(once["hooks"]["Stop"]) == 2 and once["hooks"]["Stop"][0] == ORIGINAL["hooks"]["Stop"][0]
    assert {k: v for k, v in once.items() if k != "hooks"} == {k: v for k, v in ORIGINAL.items() if k != "hooks"}
    cmd = once["hooks"]["Stop"][1]["hooks"][0]["command"]
    assert "gatebench/hook/__main__.py stop --state" in cmd and cmd.startswith("/")
    assert once["hooks"]["Stop"][1]["hooks"][0]["timeout"] == 330  # hook_seconds 300 + margin
    gatebench_cli("uninstall", str(calc_repo))
    assert read(settings) == ORIGINAL


def test_install_on_empty_repo_then_uninstall_leaves_empty(calc_repo):
    gatebench_cli("install", str(calc_repo), "--config", "self", "--local")
    local = calc_repo / ".claude" / "settings.local.json"
    assert set(read(local)["hooks"]) == {"Stop", "SessionStart"}
    assert not (calc_repo / ".claude" / "settings.json").exists()
    gatebench_cli("uninstall", str(calc_repo), "--local")
    assert read(local) == {}


def test_bad_settings_file_changes_nothing(calc_repo):
    settings = calc_repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{broken")
    r = gatebench_cli("install", str(calc_repo), "--config", "tests", check=False)
    assert r.returncode == 2 and "settings.json: not valid JSON" in r.stderr
    assert settings.read_text() == "{broken"
    assert not (calc_repo / ".claude" / "gatebench").exists()


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
    assert "settings.json: 2 gatebench entries" in r.stdout
    assert "config: tests  gates: diff, tests" in r.stdout
    assert "#1  block" in r.stdout and "diff=block" in r.stdout


def test_schema_prints_json_schema():
    r = gatebench_cli("schema", "config")
    schema = json.loads(r.stdout)
    assert schema["title"] == "GateConfig" and "gates" in schema["properties"]
    r = gatebench_cli("schema", "event")
    assert json.loads(r.stdout)["title"] == "HookEvent"
