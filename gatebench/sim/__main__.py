"""`python -m gatebench.sim --script FILE.json [--port N] [--port-file F] [--log FILE.jsonl]`

Serves the script (see gatebench.sim.brain) on 127.0.0.1 until SIGTERM or SIGINT, then exits 0.
The bound port is printed on stdout and, if asked, written to the port file (atomically, so a
reader never sees half a number; the file is removed on exit). The log is appended to, one
JSON line per request. A bad script exits 2 with a message naming the file and the field.

`launch()` starts it as a subprocess and waits for the port, for the bench's sim worker.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from gatebench.common.util import write_atomic
from gatebench.sim.brain import ScriptError, load_brain
from gatebench.sim.server import FakeMessagesApi

REPO_ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gatebench.sim", description="Fake Anthropic Messages API."
    )
    parser.add_argument(
        "--script", required=True, type=Path, help="script JSON (format: gatebench.sim.brain)"
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one)")
    parser.add_argument("--port-file", type=Path, help="write the bound port here once listening")
    parser.add_argument("--log", type=Path, help="append one JSON line per request here")
    args = parser.parse_args(argv)

    try:
        brain = load_brain(args.script)
    except ScriptError as e:
        print(f"gatebench.sim: error: {e}", file=sys.stderr)
        return 2

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())

    api = FakeMessagesApi(brain, port=args.port, log_path=args.log)
    try:
        api.start()
    except OSError as e:
        print(f"gatebench.sim: error: cannot listen on 127.0.0.1:{args.port}: {e}", file=sys.stderr)
        return 1
    try:
        if args.port_file:
            write_atomic(args.port_file, f"{api.port}\n")
        print(f"gatebench.sim: listening on {api.base_url}", flush=True)
        while not stop.wait(0.5):
            pass
    finally:
        api.stop()
        if args.port_file:
            args.port_file.unlink(missing_ok=True)
    return 0


def launch(
    script: Path,
    port_file: Path,
    log: Path | None = None,
    *,
    python: str = sys.executable,
    timeout_s: float = 15.0,
) -> tuple[subprocess.Popen, int]:
    """Start the server in a subprocess and return it with its port once it listens.

    Stop it with `proc.terminate(); proc.wait()`. Raises RuntimeError (with the server's stderr)
    if it exits or does not listen within `timeout_s`.
    """
    port_file = Path(port_file)
    port_file.unlink(missing_ok=True)
    cmd = [python, "-m", "gatebench.sim", "--script", str(script), "--port-file", str(port_file)]
    if log is not None:
        cmd += ["--log", str(log)]
    env = dict(os.environ)
    # Runs straight from a checkout too, like the hook.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    proc = subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if port_file.exists():
            return proc, int(port_file.read_text(encoding="utf-8"))
        if proc.poll() is not None:
            err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
            raise RuntimeError(f"gatebench.sim exited with code {proc.returncode}: {err.strip()}")
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    raise RuntimeError(f"gatebench.sim did not listen within {timeout_s} s")


if __name__ == "__main__":
    sys.exit(main())
