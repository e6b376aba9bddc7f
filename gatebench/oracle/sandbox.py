"""Run the agent's code (visible tests, the hidden oracle) inside a bubblewrap sandbox (stdlib only).

Ring 2 of the trust boundary (DESIGN.md): code gatebench runs on the agent's behalf sees the system
read-only (/usr, /etc and the interpreter with its site-packages), writes only the temporary copy it
runs in (plus a private /tmp), has no network, and cannot see the bench home (tasks, hidden,
reference, inject, configs, runs), HOME, or any hook state dir: none of those is mounted at all, and
any that lies under a mounted folder is covered by an empty tmpfs.

This module only builds an argv and an environment; the bounded process run is `proc.run`'s job.
"""

from __future__ import annotations

import os
import shutil

# Variables that steer Python or pytest from outside the harness: never inherited by agent code.
_DROP_PREFIXES = ("PYTHON", "PYTEST_", "PIP_", "VIRTUAL_ENV", "COV_CORE_", "CONDA")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
_available: dict[str, str | None] = {}


def system_binds() -> list[str]:
    """bwrap arguments for the system folders, read-only (a merged-/usr link kept a link): the floor of
    every sandbox gatebench builds, ring 2's and the agent's world."""
    args: list[str] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
    return args


class SandboxUnavailable(Exception):
    """bwrap is missing or cannot create its namespaces on this machine."""


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def probe() -> str | None:
    """None when bubblewrap works here, else why not (cached per process: one short run)."""
    if "why" not in _available:
        exe = bwrap_path()
        if exe is None:
            why: str | None = "bwrap (bubblewrap) is not installed; scripts/setup installs it"
        else:
            import subprocess

            try:
                r = subprocess.run([exe, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid",
                                    "--die-with-parent", "--dev", "/dev", "--proc", "/proc", "true"],
                                   capture_output=True, timeout=20)
                why = None if r.returncode == 0 else (
                    f"bwrap cannot create its sandbox here (exit {r.returncode}): "
                    f"{r.stderr.decode(errors='replace').strip()[:300]}")
            except (OSError, subprocess.TimeoutExpired) as e:
                why = f"bwrap cannot run: {e}"
        _available["why"] = why
    return _available["why"]


def python_roots(python: str) -> list[str]:
    """Folders an interpreter needs: its venv (if any) and the base installation behind it."""
    exe = os.path.abspath(python)
    roots = []
    prefix = os.path.dirname(os.path.dirname(exe))
    cfg = os.path.join(prefix, "pyvenv.cfg")
    if os.path.isfile(cfg):
        roots.append(prefix)
        try:
            with open(cfg, encoding="utf-8") as f:
                for line in f:
                    key, _, value = line.partition("=")
                    if key.strip() == "home" and value.strip():
                        roots.append(os.path.dirname(os.path.realpath(value.strip())))
        except OSError:
            pass
    roots.append(os.path.dirname(os.path.dirname(os.path.realpath(exe))))
    out: list[str] = []
    for r in roots:
        r = os.path.realpath(r)
        if r in ("/", "") or any(r == s or r.startswith(s + "/") for s in SYSTEM_DIRS) or r in out:
            continue
        out.append(r)
    return out


def clean_env(python: str, home: str = "/tmp") -> dict[str, str]:
    """gatebench's environment for agent code: nothing inherited that could steer Python or pytest."""
    bindir = os.path.dirname(os.path.abspath(python))
    # The runner's cell marker (workers/launch.py) is gatebench's own: it lets the matrix find and reap
    # every process of a cell, sandboxed ones included.
    marker = {k: os.environ[k] for k in ("GATEBENCH_CELL",) if k in os.environ}
    return {
        **marker,
        "PATH": f"{bindir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONNOUSERSITE": "1",
    }


def scrub_env(env: dict[str, str]) -> dict[str, str]:
    """The given environment minus every Python/pytest steering variable (for unsandboxed runs)."""
    out = {k: v for k, v in env.items() if not k.startswith(_DROP_PREFIXES)}
    out.update(PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1")
    return out


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def wrap(argv: list[str], *, writable: list[str], cwd: str, python: str, hide: list[str] | tuple[str, ...] = (),
         readonly: list[str] | tuple[str, ...] = ()) -> list[str]:
    """`argv` wrapped in bwrap. `writable`: folders mounted read-write (the copy, a report folder);
    `readonly`: gatebench's own folders mounted read-only (the closed harness: bootstrap and config);
    `hide`: folders that must stay invisible even if they lie under a mounted one (bench home's
    private folders, HOME, state dirs). Raises SandboxUnavailable."""
    why = probe()
    if why:
        raise SandboxUnavailable(why)
    args = [bwrap_path() or "bwrap", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session"]
    args += system_binds()
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    ro = python_roots(python)
    for r in ro:
        args += ["--ro-bind", r, r]
    rw = [os.path.realpath(w) for w in writable]
    for w in rw:
        args += ["--bind", w, w]
    own = [os.path.realpath(r) for r in readonly]
    for r in own:
        args += ["--ro-bind", r, r]
    ro = [*ro, *own]
    mounted = [*ro, *rw, "/etc", "/usr"]
    for h in hide:
        h = os.path.realpath(h)
        if os.path.isdir(h) and any(_under(h, m) for m in mounted) and not any(_under(m, h) for m in [*ro, *rw]):
            args += ["--tmpfs", h]
    args += ["--chdir", os.path.realpath(cwd), "--"]
    return args + list(argv)


def shell(command: str) -> list[str]:
    return ["/bin/sh", "-c", command]


BENCH_PRIVATE = ("tasks", "hidden", "reference", "inject", "configs", "runs", "work")


def private_dirs(bench_root: str | None, *extra: str | None) -> list[str]:
    """What agent code must never see: the bench home's private folders, HOME, the given state dirs."""
    out = [os.path.join(bench_root, d) for d in BENCH_PRIVATE] if bench_root else []
    out += [e for e in (*extra, os.environ.get("HOME"), os.path.expanduser("~")) if e]
    return list(dict.fromkeys(out))
