"""The fake Messages API, its brains, the CLI launcher, and the real CLI driven through them."""

from __future__ import annotations

import http.client
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_harness import (
    block_once_command,
    describe_run,
    fake_api,
    require_claude,
    run_cli,
    usage_of,
    write_stop_hook,
)

from gatebench import claude_cli
from gatebench.claude_cli import (
    ClaudeNotFoundError,
    claude_env,
    find_claude,
    parse_stream,
    parse_version,
    run_claude,
)
from gatebench.sim import brain as B
from gatebench.sim.__main__ import launch
from gatebench.sim.server import (
    FakeMessagesApi,
    build_message,
    encode_sse,
    sse_events,
    usage_for,
    with_tool_ids,
)

# ---------------------------------------------------------------- requests shaped like the captures

REMINDER = "<system-reminder>\nAttribution for git commits ...\n</system-reminder>\n"
ENV_BLOCK = "# Environment\nYou have been invoked in the following environment: \n - Primary working directory: /WORK\n - Is a git repository: false\n"
WRAP_332 = (
    "<system-reminder>\nThe text below is the output of a hook that the user, their organization or this "
    "environment set up. ...\nStop hook feedback:\n{R}\n</system-reminder>"
)


def start_request(prompt: str = "do the thing") -> dict:
    return {
        "model": "claude-opus-5-5",
        "stream": True,
        "system": [{"type": "text", "text": "You are a Claude agent."}],
        "tools": [{"name": "Write", "input_schema": {"type": "object"}}],
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": REMINDER}, {"type": "text", "text": prompt}],
            },
            {"role": "system", "content": ENV_BLOCK},
        ],
    }


def extend(request: dict, *messages: dict) -> dict:
    return {**request, "messages": [*request["messages"], *messages]}


def assistant(*blocks: dict) -> dict:
    return {"role": "assistant", "content": list(blocks)}


def tool_result(tool_id: str, content: object, is_error: bool = False) -> dict:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if is_error:
        block["is_error"] = True
    return {"role": "user", "content": [block]}


def json_block_feedback(reason: str) -> list[dict]:
    """What 2.1.332 appends after a {"decision":"block"} (user message, then a system one)."""
    return [
        {"role": "user", "content": WRAP_332.replace("{R}", reason)},
        {
            "role": "system",
            "content": [{"type": "text", "text": f'Stop hook blocking error from command: "h": {reason}'}],
        },
    ]


WRITE = {
    "type": "tool_use",
    "id": "toolu_1",
    "name": "Write",
    "input": {"file_path": "/WORK/a", "content": "x"},
}
DONE = {"type": "text", "text": "All done."}


# ---------------------------------------------------------------- request readers


def test_readers_classify_start_tool_result_and_feedback():
    start = start_request("fix the bug")
    after_tool = extend(start, assistant(WRITE), tool_result("toolu_1", "File created successfully"))
    after_block = extend(
        after_tool, assistant(DONE), *json_block_feedback("GATE: tests failed, please fix X")
    )

    assert B.event_of(start) == "start"
    assert "fix the bug" in B.first_user_text(start)
    assert B.request_cwd(start) == "/WORK"

    assert B.event_of(after_tool) == "tool_result"
    assert B.tool_results(after_tool) == [
        {"tool_use_id": "toolu_1", "content": "File created successfully", "is_error": False}
    ]
    assert B.stop_feedback(after_tool) is None

    assert B.event_of(after_block) == "stop_feedback"
    assert B.stop_feedback(after_block) == "GATE: tests failed, please fix X"
    assert B.stop_feedback_count(after_block) == 1
    assert not B.has_tool_results(after_block)  # the old tool result is not "newest"


def test_readers_exit2_feedback_and_counting_and_errors():
    exit2 = {
        "role": "user",
        "content": [{"type": "text", "text": "Stop hook feedback:\n[python3 h.py]: tests fail\n"}],
    }
    req = extend(start_request(), assistant(DONE), *json_block_feedback("first"), assistant(DONE), exit2)
    assert B.stop_feedback(req) == "[python3 h.py]: tests fail"
    assert B.stop_feedback_count(req) == 2

    # The system "blocking error" message alone is not feedback: only user messages count.
    only_system = extend(start_request(), assistant(DONE), json_block_feedback("nope")[1])
    assert B.stop_feedback(only_system) is None
    assert B.event_of(only_system) == "other"

    err = extend(
        start_request(), assistant(WRITE), tool_result("toolu_1", [{"type": "text", "text": "boom"}], True)
    )
    assert B.tool_results(err) == [{"tool_use_id": "toolu_1", "content": "boom", "is_error": True}]


# ---------------------------------------------------------------- script brain


SCRIPT = {
    "steps": [
        {
            "on": "start",
            "turns": [
                {
                    "content": [
                        {
                            "type": "tool_use",
                            "name": "Write",
                            "input": {"file_path": "{cwd}/a.py", "content": "1"},
                        }
                    ]
                },
                {"content": [{"type": "text", "text": "done"}]},
            ],
        },
        {
            "on": "stop_feedback",
            "contains": "tests",
            "turns": [{"content": [{"type": "text", "text": "fixing: {feedback}"}]}],
        },
        {"on": "stop_feedback", "times": 2, "turns": [{"content": [{"type": "text", "text": "I disagree"}]}]},
    ],
    "fallback": {"content": [{"type": "text", "text": "no more"}]},
}


def test_script_brain_plays_steps_by_trigger_priority_and_times():
    brain = B.ScriptBrain.from_data(SCRIPT)
    start = start_request()
    t1 = brain.respond(start)
    assert t1.stop_reason == "tool_use"
    assert t1.content[0]["input"]["file_path"] == "/WORK/a.py"  # {cwd} from the environment block
    t2 = brain.respond(extend(start, assistant(WRITE), tool_result("toolu_1", "ok")))
    assert (t2.stop_reason, t2.content[0]["text"]) == ("end_turn", "done")

    base = extend(start, assistant(WRITE), tool_result("toolu_1", "ok"), assistant(DONE))
    # A reason without "tests" skips the specific step and takes the catch-all.
    t3 = brain.respond(extend(base, *json_block_feedback("review: style")))
    assert t3.content[0]["text"] == "I disagree"
    t4 = brain.respond(extend(base, *json_block_feedback("GATE: tests failed")))
    assert t4.content[0]["text"] == "fixing: GATE: tests failed"
    # The specific step is used up: the same reason now falls to the catch-all, once more.
    assert brain.respond(extend(base, *json_block_feedback("tests again"))).content[0]["text"] == "I disagree"
    assert brain.respond(extend(base, *json_block_feedback("tests again"))).content[0]["text"] == "no more"
    assert brain.played == [
        "step 0 turn 0",
        "step 0 turn 1",
        "step 2 turn 0",
        "step 1 turn 0",
        "step 2 turn 0",
        "fallback",
    ]


def test_script_brain_chooses_the_step_after_a_final_tool_call_by_its_result():
    script = {
        "steps": [
            {
                "on": "start",
                "turns": [
                    {"content": [{"type": "tool_use", "name": "Bash", "input": {"command": "pytest"}}]}
                ],
            },
            {
                "on": "tool_result",
                "contains": "FAILED",
                "turns": [{"content": [{"type": "text", "text": "broken"}]}],
            },
            {"on": "tool_result", "turns": [{"content": [{"type": "text", "text": "green"}]}]},
        ]
    }
    bash = {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "pytest"}}
    for output, expected in (("1 FAILED", "broken"), ("3 passed", "green")):
        brain = B.ScriptBrain.from_data(script)
        brain.respond(start_request())
        reply = brain.respond(extend(start_request(), assistant(bash), tool_result("toolu_9", output)))
        assert reply.content[0]["text"] == expected


def test_script_brain_refuses_cwd_when_the_request_has_none():
    request = start_request()
    request["messages"] = request["messages"][:1]  # no environment block
    with pytest.raises(B.ScriptError, match=r"step 0 turn 0: the turn uses \{cwd\}"):
        B.ScriptBrain.from_data(SCRIPT).respond(request)


def test_sim_and_claude_cli_import_only_the_standard_library():
    code = (
        "import sys, gatebench.sim, gatebench.sim.__main__, gatebench.claude_cli\n"
        "bad = sorted({'pydantic', 'yaml', 'filelock'} & set(sys.modules))\n"
        "print(','.join(bad))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def test_script_brain_does_not_share_state_between_instances_or_mutate_the_script():
    data = json.loads(json.dumps(SCRIPT))
    a, b = B.ScriptBrain.from_data(data), B.ScriptBrain.from_data(data)
    a.respond(start_request())
    assert b.respond(start_request()).note == "step 0 turn 0"
    assert data == SCRIPT  # {cwd} was substituted into a copy


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda s: s["steps"][0].update(on="begin"), "steps[0].on"),
        (lambda s: s["steps"][0]["turns"][0]["content"][0].pop("name"), "steps[0].turns[0].content[0].name"),
        (
            lambda s: s["steps"][0]["turns"][0]["content"][0].update(type="image"),
            "steps[0].turns[0].content[0].type",
        ),
        (
            lambda s: s["steps"][0]["turns"].reverse(),
            "steps[0].turns[0]: every turn but the last must call a tool",
        ),
        (lambda s: s["steps"][2].update(times=0), "steps[2].times"),
        (lambda s: s["steps"][1].update(when="x"), "steps[1]: unknown key"),
        (lambda s: s["steps"][1]["turns"][0].update(stop_reason="tool_use"), "steps[1].turns[0].stop_reason"),
        (lambda s: s.update(steps=[]), "steps: expected a non-empty list"),
    ],
)
def test_script_errors_name_the_source_and_field(mutate, field):
    data = json.loads(json.dumps(SCRIPT))
    mutate(data)
    with pytest.raises(B.ScriptError) as e:
        B.ScriptBrain.from_data(data, "s.json")
    assert str(e.value).startswith("s.json: ")
    assert field in str(e.value)


def test_load_brain_file_errors_and_router_form(tmp_path):
    with pytest.raises(B.ScriptError, match=r"missing\.json: file not found"):
        B.load_brain(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    with pytest.raises(B.ScriptError, match=r"bad\.json: not valid JSON"):
        B.load_brain(bad)

    reviewer = {
        "steps": [
            {"on": "start", "times": 5, "turns": [{"content": [{"type": "text", "text": "VERDICT: block"}]}]}
        ]
    }
    routed = tmp_path / "routed.json"
    routed.write_text(
        json.dumps({"routes": [{"prompt_contains": "[REVIEWER]", "script": reviewer}], "default": SCRIPT})
    )
    brain = B.load_brain(routed)
    assert isinstance(brain, B.Router)
    review = brain.respond(start_request("[REVIEWER] judge this diff"))
    assert review.content[0]["text"] == "VERDICT: block"
    assert review.note == "route 0: step 0 turn 0"
    # The worker's script was not advanced by the reviewer's request.
    worker = brain.respond(start_request("fix the bug"))
    assert worker.note == "default: step 0 turn 0"

    routed.write_text(
        json.dumps({"routes": [{"prompt_contains": "", "script": reviewer}], "default": SCRIPT})
    )
    with pytest.raises(B.ScriptError, match=r"routes\[0\]\.prompt_contains"):
        B.load_brain(routed)


# ---------------------------------------------------------------- SSE and usage


def parse_sse(raw: bytes) -> list[tuple[str, dict]]:
    events = []
    for chunk in raw.decode("utf-8").split("\n\n"):
        if not chunk.strip():
            continue
        lines = dict(line.split(": ", 1) for line in chunk.split("\n"))
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def reassemble(events: list[tuple[str, dict]]) -> dict:
    """Rebuild the message the way a streaming client does."""
    message: dict = {}
    for name, data in events:
        if name == "message_start":
            message = dict(data["message"], content=[])
        elif name == "content_block_start":
            message["content"].append(dict(data["content_block"], _json=""))
        elif name == "content_block_delta":
            block, delta = message["content"][data["index"]], data["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            else:
                block["_json"] += delta["partial_json"]
        elif name == "content_block_stop":
            block = message["content"][data["index"]]
            raw = block.pop("_json")
            if block["type"] == "tool_use":
                block["input"] = json.loads(raw)
        elif name == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
            message["usage"]["output_tokens"] = data["usage"]["output_tokens"]
    return message


def test_sse_stream_reassembles_to_the_message_in_the_order_the_cli_accepts():
    long_text = "x" * 100  # more than one chunk: the client must concatenate deltas
    content = with_tool_ids(
        7,
        [
            {"type": "text", "text": long_text},
            {"type": "tool_use", "name": "Write", "input": {"file_path": "/w/a", "content": "é\n" * 30}},
        ],
    )
    usage = {
        "input_tokens": 10,
        "output_tokens": 33,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 4,
    }
    message = build_message(7, "m", content, "tool_use", usage)
    events = parse_sse(encode_sse(sse_events(message, chunk=16)))

    names = [n for n, _ in events]
    assert names[:2] == ["message_start", "ping"] and names[-2:] == ["message_delta", "message_stop"]
    assert names.count("content_block_start") == names.count("content_block_stop") == 2
    assert (
        sum(1 for n, d in events if n == "content_block_delta" and d["delta"]["type"] == "input_json_delta")
        > 1
    )
    start_usage = events[0][1]["message"]["usage"]
    assert start_usage["input_tokens"] == 10 and start_usage["cache_read_input_tokens"] == 4
    assert content[1]["id"] == "toolu_sim_000007_01"
    rebuilt = reassemble(events)
    assert rebuilt["content"] == content
    assert rebuilt["stop_reason"] == "tool_use"
    assert rebuilt["usage"]["output_tokens"] == 33


def test_usage_is_deterministic_and_splits_cache_by_first_request():
    first = start_request()
    raw = json.dumps(first).encode()
    u1 = usage_for(raw, first, [DONE])
    assert u1 == usage_for(raw, first, [DONE])
    assert u1["cache_creation_input_tokens"] > 0 and u1["cache_read_input_tokens"] == 0
    later = extend(first, assistant(DONE), {"role": "user", "content": "more " * 200})
    u2 = usage_for(json.dumps(later).encode(), later, [DONE, DONE])
    assert (
        u2["cache_read_input_tokens"] == u1["cache_creation_input_tokens"]
        and u2["cache_creation_input_tokens"] == 0
    )
    assert u2["input_tokens"] > u1["input_tokens"] and u2["output_tokens"] > u1["output_tokens"]


# ---------------------------------------------------------------- the HTTP server


def post(port: int, path: str, body: bytes, method: str = "POST") -> tuple[http.client.HTTPResponse, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path, body=body, headers={"content-type": "application/json", "x-api-key": "dummy"})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp, data


class Echo:
    def respond(self, request: dict) -> B.Turn:
        if "explode" in B.first_user_text(request):
            raise RuntimeError("brain bug")
        if "image" in B.first_user_text(request):
            return B.Turn(content=[{"type": "image", "source": {}}])
        return B.text_turn("echo: " + B.first_user_text(request).split("\n")[-1])


def test_server_streams_sse_answers_json_and_rejects_other_routes(tmp_path):
    log = tmp_path / "api.jsonl"
    with FakeMessagesApi(Echo(), log_path=log) as api:
        assert api.base_url.startswith("http://127.0.0.1:")
        resp, raw = post(api.port, "/v1/messages?beta=true", json.dumps(start_request("hi")).encode())
        assert resp.status == 200 and resp.version == 11
        assert resp.getheader("Content-Type") == "text/event-stream"
        assert resp.getheader("Connection") == "close" and resp.getheader("Content-Length") is None
        msg = reassemble(parse_sse(raw))
        assert msg["content"] == [{"type": "text", "text": "echo: hi"}] and msg["stop_reason"] == "end_turn"

        resp, raw = post(
            api.port, "/v1/messages", json.dumps({**start_request("plain"), "stream": False}).encode()
        )
        assert resp.status == 200 and json.loads(raw)["content"][0]["text"] == "echo: plain"

        for method, path, body, status in (
            ("POST", "/v1/messages/count_tokens", b"{}", 404),
            ("GET", "/v1/models", b"", 404),
            ("POST", "/v1/messages", b"{not json", 400),
            ("POST", "/v1/messages", json.dumps(start_request("explode")).encode(), 500),
            ("POST", "/v1/messages", json.dumps(start_request("image")).encode(), 500),
        ):
            resp, raw = post(api.port, path, body, method)
            assert resp.status == status, (method, path)
            assert json.loads(raw)["type"] == "error"

        logged = api.requests
        assert [e["seq"] for e in logged] == [1, 2, 3, 4, 5, 6, 7]
        assert logged[0]["body"]["messages"][1]["role"] == "system" and logged[0]["stream"] is True
        assert "x-api-key" not in logged[0]["headers"]
        assert logged[0]["usage"] == usage_for(
            json.dumps(start_request("hi")).encode(), start_request("hi"), msg["content"]
        )
        assert "brain bug" in logged[5]["error"]
        assert "not a text or tool_use block" in logged[6]["error"]
        assert api.usage_totals()["requests"] == 2
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["status"] for e in lines] == [200, 200, 404, 404, 400, 500, 500]


def test_server_is_thread_safe_under_concurrent_requests():
    with FakeMessagesApi(Echo()) as api:
        statuses: list[int] = []

        def hit(i: int) -> None:
            resp, _ = post(api.port, "/v1/messages?beta=true", json.dumps(start_request(f"n{i}")).encode())
            statuses.append(resp.status)

        threads = [threading.Thread(target=hit, args=(i,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert statuses == [200] * 12
        assert sorted(e["seq"] for e in api.requests) == list(range(1, 13))
        replies = sorted(e["reply"]["content"][0]["text"] for e in api.requests)
        assert replies == sorted(f"echo: n{i}" for i in range(12))
        port = api.port
    with pytest.raises(ConnectionRefusedError):  # stopped means the socket is closed
        post(port, "/v1/messages", b"{}")


def test_main_runs_a_script_subprocess_until_sigterm(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    port_file, log = tmp_path / "port", tmp_path / "api.jsonl"
    proc, port = launch(script, port_file, log)
    try:
        resp, raw = post(port, "/v1/messages?beta=true", json.dumps(start_request()).encode())
        assert resp.status == 200
        assert reassemble(parse_sse(raw))["content"][0]["input"]["file_path"] == "/WORK/a.py"
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=10)
    assert rc == 0
    assert not port_file.exists()
    assert [json.loads(line)["reply"]["note"] for line in log.read_text().splitlines()] == ["step 0 turn 0"]

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"steps": [{"on": "start", "turns": [{"content": []}]}]}))
    done = subprocess.run(
        [sys.executable, "-m", "gatebench.sim", "--script", str(bad)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert f"{bad}: steps[0].turns[0].content" in done.stderr


# ---------------------------------------------------------------- claude_cli without the CLI


def test_find_claude_names_the_path_and_the_fix(tmp_path):
    missing = tmp_path / "nope" / "claude"
    with pytest.raises(ClaudeNotFoundError) as e:
        find_claude({"GATEBENCH_CLAUDE": str(missing)})
    assert str(missing) in str(e.value) and "scripts/setup" in str(e.value)
    not_exec = tmp_path / "claude"
    not_exec.write_text("#!/bin/sh\n")
    with pytest.raises(ClaudeNotFoundError, match="not executable"):
        find_claude({"GATEBENCH_CLAUDE": str(not_exec)})
    not_exec.chmod(0o755)
    assert find_claude({"GATEBENCH_CLAUDE": str(not_exec)}) == not_exec
    assert find_claude({}) == claude_cli.DEFAULT_CLAUDE or not claude_cli.DEFAULT_CLAUDE.exists()


def test_claude_env_is_clean_and_fake_only_settings_need_a_base_url(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "real-key-must-not-leak")
    monkeypatch.setenv("SOME_CALLER_VAR", "x")
    fake = claude_env("http://127.0.0.1:9", tmp_path, {"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "3"})
    assert fake["ANTHROPIC_API_KEY"] == "dummy" and fake["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert fake["HOME"] == str(tmp_path) and fake["CLAUDE_CODE_MAX_RETRIES"] == "1"
    assert fake["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1" and fake["IS_SANDBOX"] == "1"
    assert fake["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"] == "3" and "SOME_CALLER_VAR" not in fake
    real = claude_env(None, tmp_path)
    assert not {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_MAX_RETRIES"} & set(real)


def test_parse_stream_and_version():
    events, result, bad = parse_stream(
        ['{"type":"system"}', "", "oops", '{"type":"result","subtype":"success"}', "[1]"]
    )
    assert [e["type"] for e in events] == ["system", "result"]
    assert result == {"type": "result", "subtype": "success"} and bad == ["oops", "[1]"]
    assert parse_stream(['{"type":"assistant"}'])[1] is None
    assert parse_version("2.1.332 (Claude Code)\n") == "2.1.332"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a killed child that nobody reaped yet is dead


def _dies_within(pid: int, seconds: float) -> bool:
    """Signals land asynchronously: give a killed process a moment to actually go."""
    deadline = time.monotonic() + seconds
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _fake_claude(tmp_path: Path, body: str) -> Path:
    exe = tmp_path / "fake-claude"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def test_run_claude_kills_the_whole_group_on_timeout(tmp_path):
    pids = tmp_path / "pids"
    exe = _fake_claude(tmp_path, f'sleep 60 & echo $! > {pids}\necho \'{{"type":"system"}}\'\nsleep 60\n')
    run = run_claude("p", tmp_path, {"PATH": os.environ["PATH"]}, timeout_s=1.0, claude=exe)
    assert run.timed_out and run.result is None
    assert run.rc is not None and run.rc < 0
    assert run.events == [{"type": "system"}]
    assert run.argv[1:3] == ["-p", "p"] and "bypassPermissions" in run.argv
    assert _dies_within(int(pids.read_text()), 3)
    assert 1.0 <= run.wall_s < 45  # stopped at its 1 s timeout, not after sleep 60


def test_run_claude_reaps_leftovers_of_a_finished_run(tmp_path):
    pids = tmp_path / "pids"
    exe = _fake_claude(
        tmp_path,
        f'sleep 60 > /dev/null 2>&1 & echo $! > {pids}\necho \'{{"type":"result","subtype":"success"}}\'\n',
    )
    run = run_claude("p", tmp_path, {"PATH": os.environ["PATH"]}, timeout_s=20, claude=exe)
    assert not run.timed_out and run.rc == 0 and run.result == {"type": "result", "subtype": "success"}
    assert run.wall_s < 45  # did not wait for the leftover sleep 60
    assert _dies_within(int(pids.read_text()), 3)


# ---------------------------------------------------------------- the real CLI


def assert_usage_matches(run, api: FakeMessagesApi) -> None:
    """The CLI's own token totals equal what the fake API reported, to the token."""
    totals = api.usage_totals()
    assert usage_of(run) == {k: v for k, v in totals.items() if k != "requests"}, describe_run(run, api)
    assert totals["requests"] == len(api.requests)  # every request was answered


@pytest.mark.cli
def test_cli_writes_a_file_and_succeeds(tmp_path):
    require_claude()
    work = tmp_path / "work"
    work.mkdir()
    script = {
        "steps": [
            {
                "on": "start",
                "turns": [
                    {
                        "content": [
                            {"type": "text", "text": "Writing."},
                            {
                                "type": "tool_use",
                                "name": "Write",
                                "input": {"file_path": "{cwd}/hello.txt", "content": "hello from sim\n"},
                            },
                        ]
                    },
                    {"content": [{"type": "text", "text": "Wrote it."}]},
                ],
            }
        ]
    }
    brain = B.ScriptBrain.from_data(script)
    with fake_api(brain) as (url, api):
        run = run_cli("write hello.txt", work, url, timeout_s=60)
    assert run.result is not None and run.result["subtype"] == "success" and not run.result["is_error"], (
        describe_run(run, api)
    )
    assert run.rc == 0 and run.result["result"] == "Wrote it."
    assert (work / "hello.txt").read_text() == "hello from sim\n"
    assert len(api.requests) == 2 and brain.played == ["step 0 turn 0", "step 0 turn 1"]
    assert_usage_matches(run, api)


@pytest.mark.cli
def test_cli_stop_hook_block_reaches_the_brain_which_reacts(tmp_path):
    require_claude()
    work = tmp_path / "work"
    work.mkdir()
    stdins = tmp_path / "hook-stdin.jsonl"
    write_stop_hook(work, block_once_command(tmp_path / "blocked-once", "GATE: fix X", stdins))
    script = {
        "steps": [
            {"on": "start", "turns": [{"content": [{"type": "text", "text": "Nothing to do."}]}]},
            {
                "on": "stop_feedback",
                "contains": "GATE: fix X",
                "turns": [
                    {
                        "content": [
                            {
                                "type": "tool_use",
                                "name": "Write",
                                "input": {"file_path": "{cwd}/fixed.txt", "content": "{feedback}\n"},
                            }
                        ]
                    },
                    {"content": [{"type": "text", "text": "Fixed X."}]},
                ],
            },
        ]
    }
    brain = B.ScriptBrain.from_data(script)
    with fake_api(brain) as (url, api):
        run = run_cli("do it", work, url, timeout_s=60)
    assert run.result is not None and run.result["subtype"] == "success", describe_run(run, api)
    assert run.result["result"] == "Fixed X."
    bodies = [e["body"] for e in api.requests]
    assert len(bodies) == 3
    assert B.stop_feedback(bodies[1]) == "GATE: fix X" and B.stop_feedback(bodies[0]) is None
    assert (work / "fixed.txt").read_text() == "GATE: fix X\n"
    calls = [json.loads(line) for line in stdins.read_text().splitlines()]
    assert [c["stop_hook_active"] for c in calls] == [False, True]
    assert calls[1]["last_assistant_message"] == "Fixed X."
    assert_usage_matches(run, api)
    assert usage_of(run)["cache_read_input_tokens"] > 0  # later requests read the cached prefix


@pytest.mark.cli
def test_cli_edit_and_bash_results_come_back_to_the_brain(tmp_path):
    require_claude()
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.py").write_text("VALUE = 1\n")
    step_turns = [
        # Claude Code refuses an Edit of a file it has not Read in this session.
        {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": "{cwd}/app.py"}}]},
        {
            "content": [
                {
                    "type": "tool_use",
                    "name": "Edit",
                    "input": {
                        "file_path": "{cwd}/app.py",
                        "old_string": "VALUE = 1",
                        "new_string": "VALUE = 2",
                    },
                }
            ]
        },
        {
            "content": [
                {
                    "type": "tool_use",
                    "name": "Bash",
                    "input": {
                        "command": f"{sys.executable} -c 'import app; print(\"value\", app.VALUE)'",
                        "description": "print value",
                    },
                }
            ]
        },
        {"content": [{"type": "text", "text": "Checked."}]},
    ]
    brain = B.ScriptBrain.from_data({"steps": [{"on": "start", "turns": step_turns}]})
    with fake_api(brain) as (url, api):
        run = run_cli("edit app.py", work, url, timeout_s=60)
    assert run.result is not None and run.result["subtype"] == "success", describe_run(run, api)
    assert (work / "app.py").read_text() == "VALUE = 2\n"
    results = [B.tool_results(e["body"]) for e in api.requests[1:]]
    assert [len(r) for r in results] == [1, 1, 1]
    assert not any(r[0]["is_error"] for r in results), results
    assert "value 2" in results[2][0]["content"]
    assert_usage_matches(run, api)


@pytest.mark.cli
def test_cli_fails_fast_when_the_fake_api_is_down(tmp_path):
    require_claude()
    work = tmp_path / "work"
    work.mkdir()
    with fake_api(Echo()) as (url, _api):
        pass  # the port is closed again: connection refused
    run = run_cli("hello", work, url, timeout_s=60)
    assert not run.timed_out and run.rc == 1, describe_run(run)
    assert run.result is not None and run.result["is_error"] and run.result["terminal_reason"] == "api_error"
    assert run.wall_s < 45  # no retry loop until the 60 s timeout
