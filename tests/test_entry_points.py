"""The hook's public entry points outlive a relayout (issue 35): the settings command `gatebench install` wrote
before the packages moved, `python -m gatebench.hook`, and the plugin's hooks.json all still run the stop."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

from conftest import ROOT, gatebench_cli, hook_input, state_of

# What `gatebench install` wrote into .claude/settings.local.json before the move (issue 35), path for path.
BEFORE_MOVE = "{python} -S {root}/gatebench/hook/__main__.py {verb} --state {state}"


def decision(out: str) -> str:
    return json.loads(out).get("decision", "allow") if out.strip() else "allow"


def test_a_settings_file_installed_before_the_move_and_python_m_gatebench_hook_still_stop(calc_repo):
    gatebench_cli("install", str(calc_repo), "--config", "tests")
    state = state_of(calc_repo)
    settings = json.loads((calc_repo / ".claude" / "settings.local.json").read_text())
    old = {verb: BEFORE_MOVE.format(python=shlex.quote(sys.executable), root=shlex.quote(str(ROOT)), verb=verb,
                                    state=shlex.quote(str(state))) for verb in ("stop", "session-start")}
    now = {e["hooks"][0]["command"] for k in ("Stop", "SessionStart") for e in settings["hooks"][k]}
    assert now == set(old.values())  # install still writes the very command it wrote before the move
    runs = {
        "settings": ["sh", "-c", old["stop"]],
        "python -m": [sys.executable, "-m", "gatebench.hook", "stop", "--state", str(state)],
    }
    seen = {}
    for name, argv in runs.items():
        r = subprocess.run(argv, input=hook_input(calc_repo, session=name), capture_output=True, text=True,
                           timeout=120, cwd=calc_repo)
        assert r.returncode == 0, (name, r.stderr)
        seen[name] = decision(r.stdout)
    assert seen == {"settings": "block", "python -m": "block"}  # calc.add is still wrong: the tests gate blocks
    events = [json.loads(x) for x in (state / "events.jsonl").read_text().splitlines()]
    stops = [e for e in events if e.get("hook") == "stop"]
    assert [e["session_id"] for e in stops[-2:]] == ["settings", "python -m"] and not stops[-1]["errors"]
    (calc_repo / "calc.py").write_text((calc_repo / "calc.py").read_text().replace("a - b", "a + b"))
    r = subprocess.run(["sh", "-c", old["stop"]], input=hook_input(calc_repo, session="fixed"), capture_output=True,
                       text=True, timeout=120, cwd=calc_repo)
    assert r.returncode == 0 and decision(r.stdout) == "allow", r.stdout + r.stderr


def test_the_plugin_hooks_json_names_the_stop_script_that_exists():
    hooks = json.loads((ROOT / "hooks" / "hooks.json").read_text())["hooks"]
    for event in ("Stop", "SessionStart"):
        cmd = hooks[event][0]["hooks"][0]["command"]
        script = cmd.split('"')[1].replace("${CLAUDE_PLUGIN_ROOT}", str(ROOT))
        assert script.endswith("gatebench/hook/__main__.py") and (ROOT / script.split(str(ROOT) + "/")[1]).is_file()


EXIT_PROBE = """
import atexit, sys, threading, time
sys.path.insert(0, {root!r})
from gatebench.hook.__main__ import exit_now
atexit.register(lambda: open({flag!r}, "w").write("closed"))
sys.stdout.write("unflushed output")
if {thread}:
    threading.Thread(target=lambda: (time.sleep(0.3), open({late!r}, "w").write("joined"))).start()
exit_now(7)
"""


def test_the_stop_skips_teardown_but_not_its_output_exit_handlers_or_a_running_thread(tmp_path):
    for thread in (False, True):
        flag, late = tmp_path / f"flag{thread}", tmp_path / f"late{thread}"
        code = EXIT_PROBE.format(root=str(ROOT), flag=str(flag), late=str(late), thread=thread)
        r = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60)
        assert (r.returncode, r.stdout, r.stderr) == (7, "unflushed output", "")
        assert flag.read_text() == "closed"  # atexit ran: a gate's `git cat-file` reader is closed that way
        assert late.exists() == thread  # a thread still running is waited for (the normal exit)
