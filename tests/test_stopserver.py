"""The stop's way out of the agent's world: the in-world client hands the hook's stdin to the stop server, which
runs the real hook outside and answers its stdout, stderr and exit code; nothing of the client's environment
reaches the hook; a server that cannot be reached fails on purpose; the server leaves no socket behind."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from gatebench.cell.stopserver import StopServer
from gatebench.cell.world import CLIENT_SCRIPT

# The "hook": echoes what it got and what steers it, on stdout and stderr, and exits 3.
HOOK = ("import json, os, sys; raw = sys.stdin.read(); "
        "print(json.dumps({'raw': raw, 'verb': sys.argv[1], 'foo': os.environ.get('FOO'), "
        "'pp': os.environ.get('PYTHONPATH'), 'mine': os.environ.get('MINE')})); "
        "print('hook stderr', file=sys.stderr); sys.exit(3)")


def server(tmp_path: Path) -> StopServer:
    return StopServer(tmp_path / "s" / "stop.sock", lambda verb: [sys.executable, "-c", HOOK, verb],
                      env={"PATH": os.environ["PATH"], "MINE": "server"}, cwd=tmp_path, timeout_s=30,
                      log=tmp_path / "stop-server.log")


def client(sock: Path, stdin: str, verb: str = "stop", **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-S", CLIENT_SCRIPT, verb, str(sock)], input=stdin, text=True,
                          capture_output=True, timeout=60, env={"PATH": os.environ["PATH"], **env})


def test_the_client_answers_what_the_hook_outside_answered_and_nothing_of_its_env_gets_out(tmp_path):
    with server(tmp_path) as srv:
        r = client(srv.path, '{"hook_event_name": "Stop"}', FOO="agent", PYTHONPATH="/evil", MINE="agent")
        s = client(srv.path, "{}", verb="session-start")
    assert r.returncode == 3 and r.stderr == "hook stderr\n"
    assert json.loads(r.stdout) == {"raw": '{"hook_event_name": "Stop"}', "verb": "stop", "foo": None, "pp": None,
                                    "mine": "server"}
    assert json.loads(s.stdout)["verb"] == "session-start" and srv.served == 2
    assert not srv.path.exists(), "the socket goes with the server"


def test_an_unreachable_server_fails_on_purpose_and_says_why(tmp_path):
    r = client(tmp_path / "nobody.sock", '{"hook_event_name": "Stop"}')
    assert r.returncode == 0 and "stop server unreachable" in r.stderr
    out = json.loads(r.stdout)
    assert set(out) == {"systemMessage"} and "the stop was allowed" in out["systemMessage"]
    assert "decision" not in out  # no decision of the gate's: no event line, so finalize never scores this stop


def test_a_bad_request_is_refused_and_logged_and_a_stale_socket_is_replaced(tmp_path):
    srv = server(tmp_path)
    srv.path.parent.mkdir(parents=True)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(srv.path))  # what a worker killed with -9 leaves
    stale.close()
    with srv:
        for request in (b'{"verb": "rm -rf"}\n{}', b"no header", b'[1]\n'):
            with socket.socket(socket.AF_UNIX) as c:
                c.connect(str(srv.path))
                c.sendall(request)
                c.shutdown(socket.SHUT_WR)
                reply = json.loads(b"".join(iter(lambda: c.recv(65536), b"")))
            assert reply["rc"] == 1 and "bad request" in reply["stderr"], reply
    assert srv.served == 0 and len((tmp_path / "stop-server.log").read_text().splitlines()) == 3


def test_the_client_stays_out_of_a_reviewers_own_session(tmp_path):
    r = client(tmp_path / "nobody.sock", "{}", GATEBENCH_HOOK_DISABLED="1")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
