"""The in-world Stop (and SessionStart) hook of a bench cell: a thin client of the stop server outside.

Run by Claude Code as `python -S stop_client.py VERB SOCKET` inside the agent's world (gatebench/cell/world.py).
Standard library only, no gatebench import: the world holds this one file, not the checkout. It sends
`{"verb": VERB}\\n` and the hook's stdin to the unix socket, and answers with the server's stdout, stderr and
exit code, which are those of the real hook (`gatebench/hook/__main__.py`) run outside with the real state dir.

A server that cannot be reached or answers garbage fails on purpose: the stop is allowed with a systemMessage
saying why and a line on stderr, and no hook event is written, so finalize never scores that stop
("a stop without a hook event is never scored").
"""

from __future__ import annotations

import json
import os
import socket
import sys

GUARD_ENV = "GATEBENCH_HOOK_DISABLED"  # = gatebench.hook.state.GUARD_ENV: a reviewer's own `claude -p`
MAX_REPLY = 64 << 20
TIMEOUT_S = 3600.0  # the CLI's hook timeout ends this process first


def ask(path: str, verb: str, raw: bytes) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(TIMEOUT_S)
        s.connect(path)
        s.sendall(json.dumps({"verb": verb}).encode() + b"\n" + raw)
        s.shutdown(socket.SHUT_WR)
        chunks, n = [], 0
        while n <= MAX_REPLY:
            b = s.recv(1 << 16)
            if not b:
                break
            chunks.append(b)
            n += len(b)
    reply = json.loads(b"".join(chunks))
    if not (isinstance(reply, dict) and isinstance(reply.get("rc"), int) and isinstance(reply.get("stdout"), str)
            and isinstance(reply.get("stderr"), str)):
        raise ValueError(f"bad reply from the stop server: {str(reply)[:200]}")
    return reply


def main(argv: list[str]) -> int:
    if os.environ.get(GUARD_ENV):
        return 0
    if len(argv) != 3 or argv[1] not in ("stop", "session-start"):
        print("usage: stop_client.py {stop|session-start} SOCKET", file=sys.stderr)
        return 2
    raw = sys.stdin.buffer.read()
    try:
        reply = ask(argv[2], argv[1], raw)
    except Exception as e:  # on purpose: said on stdout and stderr, and no event line, so never scored
        why = f"gatebench stop server unreachable at {argv[2]} ({type(e).__name__}: {e}); the stop was allowed"
        print(f"gatebench stop client: {why}", file=sys.stderr)
        print(json.dumps({"systemMessage": why}))
        return 0
    sys.stdout.write(reply["stdout"])
    sys.stderr.write(reply["stderr"])
    return reply["rc"]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
