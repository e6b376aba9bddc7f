"""The agent's world: a mount namespace (bubblewrap) around the worker's `claude` that holds an allow-list.

The CLI and everything it starts (Bash and its children, subagents, hooks) see only: the system read-only
(SYSTEM_DIRS), the CLI's own package read-only, the work copy, the worker's HOME and TMPDIR read-write, the
interpreter the task's tests run with and the one the in-world hooks run with read-only, a plugin arm's copy
read-only, and three single files read-only: the file-tool guard, the stop client and the guard's policy. Each
at its own real path, so paths in hook input, transcript_path and the stream are the same inside and out. No
other path of the host exists there: no bench home, no checkout, no cache, no state dir, no other cell.

Prep writes the list (`state/world.json`, SPEC "The agent's world"); the worker adds the CLI at run time and
runs `wrap(...)`. Claude Code's own Bash sandbox still runs inside (nested bubblewrap, in the world's own user
namespace): it hides the world's TMPDIR (and so the stop server's socket) from the agent's shell.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

from gatebench.errors import UsageError
from gatebench.oracle.sandbox import SYSTEM_DIRS, system_binds

WORLD_FILE = "world.json"  # in the cell's state dir (outside the world)
STOP_SOCKET = "gatebench-stop.sock"  # in the worker's TMPDIR: bound in, hidden from sandboxed Bash
CLIENT_SCRIPT = str(Path(__file__).resolve().parent / "stop_client.py")
WORLD_VERSION = 1
RESOLV = "/etc/resolv.conf"


def stop_socket(tmp: Path) -> Path:
    """The stop server's socket in the worker's TMPDIR (seal.worker_tmp keeps that path short enough)."""
    return Path(tmp) / STOP_SOCKET


def client_command(python: str, verb: str, socket_path: Path) -> str:
    """The in-world hook command: the thin client that hands the stop to the server outside."""
    return f"{shlex.quote(python)} -S {shlex.quote(CLIENT_SCRIPT)} {verb} {shlex.quote(str(socket_path))}"


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _system(p: str) -> bool:
    return p == "/" or any(_under(p, s) for s in SYSTEM_DIRS)


def world_paths(*, rw: list[str], interpreters: list[str], files: list[str], readable: list[str],
                never: list[str], secret: tuple[str, ...] | list[str] = ()) -> dict:
    """The allow-list as data. `interpreters`: folders an interpreter reads; each is bound unless it is a system
    folder (already there), is or holds one of `never` (the bench home, a checkout, the cell, /tmp, the real
    HOME: a venv's editable install puts the checkout itself on sys.path), or lies in one of `secret` (hidden,
    reference, inject, the state dir: whatever an interpreter's path says)."""
    ro = []
    for p in dict.fromkeys(os.path.realpath(x) for x in interpreters):
        if _system(p) or any(_under(n, p) for n in never) or any(_under(p, x) for x in secret):
            continue
        ro.append(p)
    return {"v": WORLD_VERSION, "rw": [os.path.realpath(p) for p in rw],
            "ro": [*ro, *(os.path.realpath(p) for p in readable)], "files": [os.path.realpath(f) for f in files]}


def write_world(state_now: Path, world: dict) -> None:
    (Path(state_now) / WORLD_FILE).write_text(json.dumps(world, indent=1) + "\n")


def load_world(state: Path) -> dict:
    """state/world.json, checked; UsageError naming the file and the field."""
    path = Path(state) / WORLD_FILE
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise UsageError(f"{path}: cannot read the agent's world ({e}); prep the cell again") from None
    for key in ("rw", "ro", "files"):
        v = data.get(key) if isinstance(data, dict) else None
        if not isinstance(v, list) or not all(isinstance(x, str) and x.startswith("/") for x in v):
            raise UsageError(f"{path}: field {key!r} must be a list of absolute paths")
    return data


def cli_root(claude: str) -> str:
    """What of the CLI to bind: its npm package (the real binary's `bin/`'s parent holds package.json and the
    vendored tools), else the real binary's own folder."""
    real = os.path.realpath(claude)
    pkg = os.path.dirname(os.path.dirname(real))
    return pkg if os.path.isfile(os.path.join(pkg, "package.json")) else os.path.dirname(real)


def _mounts(world: dict, claude: str) -> list[str]:
    """bind arguments, parents before children (a read-only folder inside a read-write one stays read-only)."""
    binds = [("--bind", p) for p in world["rw"]]
    binds += [("--ro-bind", p) for p in [*world["ro"], *world["files"]]]
    cli = cli_root(claude)
    if not _system(cli):
        binds.append(("--ro-bind", cli))
    out: list[str] = []
    for kind, p in sorted(dict.fromkeys(binds), key=lambda b: (b[1].count("/"), b[1])):
        if os.path.lexists(p):
            out += [kind, p, p]
    return out


def wrap(argv: list[str], world: dict, claude: str) -> list[str]:
    """`argv` (argv[0] the CLI) run inside the world. No network namespace: the CLI reaches its API (the fake
    one on 127.0.0.1); its Bash runs in Claude Code's own sandbox inside, which has none."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise UsageError("bwrap (bubblewrap) is not installed: the agent's world needs it; scripts/setup installs it")
    args = [bwrap, "--unshare-user", "--uid", str(os.getuid()), "--gid", str(os.getgid()), "--unshare-pid",
            "--unshare-ipc", "--die-with-parent"]
    args += system_binds()
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", *_mounts(world, claude)]
    resolv = os.path.realpath(RESOLV)  # a link into /run (systemd-resolved): the real API's host names need it
    if os.path.islink(RESOLV) and not _system(resolv):
        args += ["--ro-bind-try", resolv, resolv]
    return [*args, "--", "/bin/sh", "-c", UNCOVER_PROC, os.path.realpath(claude), *argv[1:]]


# bwrap covers /proc/irq and /proc/bus of the world's /proc with read-only binds. Claude Code's own sandbox
# (a nested user namespace) may mount a proc only where a proc with no such cover is already visible (the
# kernel's mount_too_revealing), so its every Bash call failed ("Can't mount proc on /newroot/proc") until the
# covers went. Writing there needs capabilities of the host's user namespace, which the world never has.
UNCOVER_PROC = 'umount /proc/irq 2>/dev/null; umount /proc/bus 2>/dev/null; exec "$0" "$@"'
