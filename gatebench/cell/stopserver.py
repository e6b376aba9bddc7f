"""The stop server: runs a cell's real hook outside the agent's world, for the thin client inside.

The worker starts one per CLI run (workers/cli.run_cli) on a unix socket in the worker's TMPDIR, which the
world binds in (and Claude Code's Bash sandbox hides from the agent's shell). Each connection carries
`{"verb": "stop"|"session-start"}\\n` and the hook's stdin; the server runs the hook gatebench would have run
in the CLI's tree (`python -S gatebench/hook/__main__.py VERB --state <cell>/state`) with the real state dir, an
environment it builds itself (nothing of the client's: a hook outside the world must not be steered from
inside), and answers `{"rc", "stdout", "stderr"}`. Threads of this process: the server lives and dies with
the worker; the hook's own children carry the attempt's marker and are swept with the attempt.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

VERBS = ("stop", "session-start")
MAX_REQUEST = 64 << 20
READ_TIMEOUT_S = 60.0
ACCEPT_TICK_S = 0.2
STOP_WAIT_S = 5.0


class StopServer:
    def __init__(self, path: Path, argv_for: Callable[[str], list[str]], *, env: dict[str, str], cwd: Path,
                 timeout_s: float, log: Path | None = None):
        self.path, self.argv_for, self.env, self.cwd = Path(path), argv_for, env, cwd
        self.timeout_s, self.log = timeout_s, log
        self.served = 0
        self._sock: socket.socket | None = None
        self._done = threading.Event()
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> StopServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> StopServer:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_socket():  # a server killed with its worker (kill -9) leaves its socket
            self.path.unlink()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(str(self.path))
        os.chmod(self.path, 0o600)
        s.listen(16)
        s.settimeout(ACCEPT_TICK_S)
        self._sock = s
        t = threading.Thread(target=self._accept, name="gatebench-stop-server", daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def stop(self) -> None:
        """Stop accepting; wait briefly for hooks in flight (the attempt's sweep has killed them by now: they carry
        its marker), then remove the socket."""
        self._done.set()
        end = time.monotonic() + STOP_WAIT_S
        for t in list(self._threads):
            t.join(timeout=max(0.0, end - time.monotonic()))
        if self._sock is not None:
            self._sock.close()
        try:
            self.path.unlink()
        except OSError:
            pass

    def _accept(self) -> None:
        assert self._sock is not None
        while not self._done.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()
            self._threads.append(t)

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                verb, raw = read_request(conn)
                reply = self.run(verb, raw)
            except (OSError, ValueError) as e:
                reply = {"rc": 1, "stdout": "", "stderr": f"gatebench stop server: bad request ({e})\n"}
                self._note(f"bad request: {e}")
            try:
                conn.sendall(json.dumps(reply).encode())
            except OSError as e:  # the CLI gave up on the hook (its timeout): the stop was already decided
                self._note(f"reply not delivered: {e}")

    def run(self, verb: str, raw: bytes) -> dict:
        """The real hook's answer to one request."""
        self.served += 1
        try:
            r = subprocess.run(self.argv_for(verb), input=raw, capture_output=True, cwd=self.cwd, env=self.env,
                               timeout=self.timeout_s)
        except (OSError, subprocess.TimeoutExpired) as e:
            self._note(f"{verb}: the hook did not answer: {e}")
            return {"rc": 1, "stdout": "", "stderr": f"gatebench stop server: the hook did not answer ({e})\n"}
        return {"rc": r.returncode, "stdout": r.stdout.decode(errors="replace"),
                "stderr": r.stderr.decode(errors="replace")}

    def _note(self, line: str) -> None:
        if self.log is not None:
            try:
                with open(self.log, "a", encoding="utf-8") as f:
                    f.write(line + "\n")
            except OSError:
                pass


def read_request(conn: socket.socket) -> tuple[str, bytes]:
    """(verb, the hook's stdin) of one connection, read to EOF; ValueError for anything else."""
    conn.settimeout(READ_TIMEOUT_S)
    chunks, n = [], 0
    while True:
        b = conn.recv(1 << 16)
        if not b:
            break
        n += len(b)
        if n > MAX_REQUEST:
            raise ValueError(f"request over {MAX_REQUEST >> 20} MiB")
        chunks.append(b)
    head, sep, raw = b"".join(chunks).partition(b"\n")
    if not sep:
        raise ValueError("no header line")
    data = json.loads(head)
    verb = data.get("verb") if isinstance(data, dict) else None
    if verb not in VERBS:
        raise ValueError(f"verb must be one of {', '.join(VERBS)}, not {verb!r}")
    return verb, raw
