"""The seal of a bench cell (ring 1 of the trust boundary): what the agent may read and write, and the proof.

First the agent's world (gatebench/cell/world.py): the CLI runs in a mount namespace that holds only what the
cell needs (`world_of`: state/world.json), with its Stop hook a client of a stop server outside
(gatebench/cell/stopserver.py). Inside it, as defence in depth, three layers, all written by prep into the cell,
all facts checked on the pinned CLI (SPEC.md, "Sealed cells"):
- Claude Code's Bash sandbox (bubblewrap + socat): `sandbox.filesystem.denyRead` hides what is private wherever
  it lives (the bench home, this gatebench's own checkout, their git dirs, a matrix's run and runs folders, the
  cell dir, an imported task's source repository) and /tmp; `allowRead` gives back what the agent needs wherever
  it lives: the work copy and the interpreter the tests run with (its prefixes and import path: a task
  environment in `.cache/envs`, the venv, the base Python). Writes are the sandbox's: the work copy and
  Claude's temp dir, `<cell>/tmp/claude-<uid>`.
- A PreToolUse guard (gatebench/cell/seal_guard.py) holds the file tools (Read, Write, Edit, ...) to the same
  read rule and to writes in the work copy and that temp dir only, links resolved.
- `permissions.deny` Read/Edit rules for the private folders and the settings files the hook depends on, and
  the worktree tools (the CLI runs `git worktree add` outside the sandbox).

`probe` proves the seal on this machine with a scripted agent through the real CLI; `matrix` and `run`
refuse to start a sealed run without that proof.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gatebench.paths import package_parent

GUARD_NAME = "seal_guard.py"
GUARD_SCRIPT = str(Path(__file__).resolve().parent / GUARD_NAME)
POLICY_FILE = "seal.json"  # in the cell's state dir
PRIVATE = ("tasks", "hidden", "reference", "inject", "configs", "runs")
TEMP_ROOTS = (Path("/tmp"), Path("/var/tmp"))  # other cells' oracle copies, finalize's copies
# The CLI runs `git worktree add` for EnterWorktree outside the sandbox, in the agent's tree: a sealed agent has none.
DENIED_TOOLS = ("EnterWorktree", "ExitWorktree")
FILE_TOOLS = "Read|Write|Edit|MultiEdit|NotebookEdit|NotebookRead|Grep|Glob|LS"
GUARD_TIMEOUT_S = 30
SEAL_VERSION = 3  # bump when the seal's settings change: a cached probe of another seal proves nothing
UNSEAL_SETTINGS = '{"sandbox": {"enabled": false}}'  # --settings outranks the project file
FIX = ("install bubblewrap and socat (`apt-get install -y bubblewrap socat`, or scripts/setup), "
       "or pass --unsealed to run without the seal (every record then says sealed: false)")


@dataclass(frozen=True)
class SealPaths:
    bench: Path  # the bench home (project_root): tasks/, hidden/, ...
    cell: Path  # the cell dir
    repo: Path  # the work copy
    state: Path
    home: Path
    python: str  # the interpreter the task's tests run with (a task environment's, or the bench's)
    # More folders to hide: a matrix cell's run folder and runs folder, an imported task's source repository.
    also_private: tuple[Path, ...] = ()
    readable: tuple[Path, ...] = ()  # more folders given back to read, never to write (a plugin arm's copy)

    @property
    def tmp(self) -> Path:
        """TMPDIR of the worker and so of the hook (oracle copies land here, hidden from the agent)."""
        return worker_tmp(self.cell)

    @property
    def agent_tmp(self) -> Path:
        """Claude Code's sandbox temp dir: `$TMPDIR/claude-<uid>`, the agent's only writable place but its copy."""
        return self.tmp / f"claude-{os.getuid()}"


# Claude Code binds its sandbox's proxy sockets at `$TMPDIR/claude-{http,socks}-<16 hex>.sock` (2.1.332), and an
# AF_UNIX path holds at most 107 bytes: a longer TMPDIR fails every sandboxed Bash call ("Failed to create bridge
# sockets"). A cell deep in a long bench home (runs/<run>/cells/<config>/<task>/r<rep>/tmp) passes that.
SOCKET_TMPDIR_MAX = 107 - len("/claude-socks-") - 16 - len(".sock")
SHORT_TMP_ROOT = Path("/tmp")  # hidden from the agent as a whole (TEMP_ROOTS)


def worker_tmp(cell: Path) -> Path:
    """The worker's TMPDIR for `cell`: its own tmp/, or, when that path is too long for the CLI's sockets, a
    short folder named by the cell under /tmp (made by worker_env, removed by drop_worker_tmp and by prep)."""
    tmp = Path(os.path.abspath(cell)).resolve() / "tmp"
    if len(str(tmp)) <= SOCKET_TMPDIR_MAX:
        return tmp
    return SHORT_TMP_ROOT / f"gatebench-{hashlib.sha256(str(tmp).encode()).hexdigest()[:16]}"


def drop_worker_tmp(cell: Path) -> None:
    """Remove a short TMPDIR that lives outside the cell, and the stop server's hook TMPDIR beside it (a cell's
    own tmp/ and tmp-hook/ go with the cell)."""
    tmp = worker_tmp(cell)
    if tmp.parent == SHORT_TMP_ROOT:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(tmp.with_name(tmp.name + "-hook"), ignore_errors=True)


def git_dirs(bench: Path) -> list[Path]:
    """The checkout's git dir(s): its objects hold hidden/ and reference/ under other names."""
    dot = bench / ".git"
    if dot.is_dir():
        return [dot]
    out = [dot]
    try:
        line = dot.read_text().strip()
    except OSError:
        return out
    if line.startswith("gitdir:"):
        gitdir = (bench / line.split(":", 1)[1].strip()).resolve()
        out.append(gitdir)
        common = gitdir / "commondir"
        if common.is_file():
            out.append((gitdir / common.read_text().strip()).resolve())
    return out


def python_env(python: str) -> Path | None:
    """The venv the interpreter lives in (its `pyvenv.cfg` folder), if it is one."""
    p = Path(python)
    venv = p.parent.parent
    return venv if (venv / "pyvenv.cfg").is_file() else None


_PATHS_CODE = ("import json, os, sys; print(json.dumps([sys.prefix, sys.exec_prefix, sys.base_prefix, "
               "sys.base_exec_prefix, os.path.dirname(os.path.realpath(sys.executable)), *sys.path]))")


def interpreter_paths(python: str) -> list[str]:
    """What running `python` reads: its prefixes (the venv, the base Python: binary, libpython, stdlib), the
    folder of its real binary and its import path, as that interpreter reports them (`-I`: no user site, no
    PYTHONPATH, no cwd). Asked once per interpreter and process (a matrix preps every cell with the same one);
    this very interpreter answers for itself, without its own path (which holds the cwd and whatever its
    caller added): its site-packages instead."""
    if os.path.realpath(python) == os.path.realpath(sys.executable) and python_env(python) == python_env(
            sys.executable):
        import site

        return list(dict.fromkeys([sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
                                   os.path.dirname(os.path.realpath(sys.executable)), *site.getsitepackages()]))
    try:
        st = os.stat(python)
        stamp = f"{st.st_ino}:{st.st_mtime_ns}"
    except OSError:
        stamp = "-"
    return list(_interpreter_paths(python, stamp))


@functools.lru_cache(maxsize=16)
def _interpreter_paths(python: str, _stamp: str) -> tuple[str, ...]:
    found: list[str] = []
    try:
        r = subprocess.run([python, "-I", "-c", _PATHS_CODE], capture_output=True, text=True, timeout=60, cwd="/",
                           stdin=subprocess.DEVNULL)
        data = json.loads(r.stdout) if r.returncode == 0 else []
        found = [x for x in data if isinstance(x, str) and x]
    except (OSError, ValueError, subprocess.TimeoutExpired):
        pass
    env = python_env(python)  # even when the interpreter would not say: its venv at least
    return tuple(dict.fromkeys([*([str(env)] if env else []), *found]))


def package_checkout() -> list[Path]:
    """This gatebench's own checkout when it is one (it ships hidden/ and reference/), and its git dirs: as
    private as the bench home, which GATEBENCH_HOME may put elsewhere. An installed package (site-packages) is
    not a checkout."""
    root = package_parent()
    if (root / "hidden").is_dir() or (root / "reference").is_dir():
        return [root, *git_dirs(root)]
    return []


def _spellings(paths) -> list[str]:
    """Each path absolute and normalized, and with its links resolved when that differs (the sandbox binds real
    paths; a guard checks a path as given and resolved)."""
    out: list[str] = []
    for p in paths:
        a = os.path.normpath(os.path.abspath(p))
        out += [a, os.path.realpath(a)]
    return list(dict.fromkeys(out))


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def private_paths(sp: SealPaths) -> list[str]:
    """Everything of the bench the agent must not read, wherever it lives."""
    return _spellings([sp.bench, *(sp.bench / d for d in PRIVATE), *git_dirs(sp.bench), *package_checkout(),
                       *sp.also_private, sp.cell])


def read_rules(sp: SealPaths, *, guard: bool = False) -> tuple[list[str], list[str]]:
    """(denyRead, allowRead) as absolute paths: the longest matching prefix wins (checked on 2.1.332 for the
    sandbox, whatever the order: a denied folder inside an allowed one stays hidden).

    allowRead holds what the agent needs and a denied folder holds: the work copy, and each path the tests'
    interpreter reads, unless that path is or holds something denied (the gatebench venv's editable install
    names the checkout itself; a Python whose prefix is /tmp gets its lib folders, not /tmp). The agent's temp
    dir is re-allowed for the guard only: the sandbox makes it writable by itself, and naming it in allowRead
    re-binds it read-only (seen on 2.1.332: every Bash call then fails).
    """
    deny = [*private_paths(sp), *_spellings(TEMP_ROOTS)]
    allow = _spellings([sp.repo, *sp.readable])
    for p in _spellings(interpreter_paths(sp.python)):
        hidden = any(_under(p, d) for d in deny)
        holds_private = any(_under(d, p) for d in deny)
        if hidden and not holds_private and not any(_under(p, a) for a in allow):
            allow.append(p)
    if guard:
        allow += _spellings([sp.agent_tmp])
    return deny, list(dict.fromkeys(allow))


def world_of(sp: SealPaths, hook_python: str) -> dict:
    """The agent's world (gatebench/cell/world.py) for this cell: the work copy, HOME and TMPDIR read-write; the
    tests' interpreter and the in-world hooks' one read-only, never a folder that is or holds a private path (the
    bench venv's editable install names the checkout), /tmp or the real HOME; a plugin arm's copy and the npm shim
    read-only; the guard, the stop client and the guard's policy as single files."""
    from gatebench.cell import world
    from gatebench.oracle.sandbox import python_roots

    never = [*private_paths(sp), *_spellings(TEMP_ROOTS), os.path.realpath(os.path.expanduser("~"))]
    benches = [sp.bench, *package_checkout()[:1]]
    hook_dirs = [*python_roots(hook_python), os.path.dirname(os.path.abspath(hook_python))]
    return world.world_paths(rw=[str(sp.repo), str(sp.home), str(sp.tmp)],
                             interpreters=[*interpreter_paths(sp.python), *hook_dirs],
                             files=[GUARD_SCRIPT, world.CLIENT_SCRIPT, str(sp.state / POLICY_FILE)],
                             readable=[*map(str, sp.readable), str(sp.cell / "tmp" / "gatebench-bin")], never=never,
                             secret=_spellings([*(b / d for b in benches for d in ("hidden", "reference", "inject")),
                                                sp.state]))


def client_hooks(settings: dict, hook_python: str, socket_path: Path) -> dict:
    """`settings` with gatebench's Stop and SessionStart commands replaced by the stop server's thin client."""
    from gatebench.cell import world
    from gatebench.installer import settings as st

    out = dict(settings)
    hooks = dict(out.get("hooks") or {})
    for event, verb in st.EVENTS.items():
        groups = []
        for g in hooks.get(event) or []:
            inner = [{**h, "command": world.client_command(hook_python, verb, socket_path)} if st.is_ours(h) else h
                     for h in (g.get("hooks") or [])] if isinstance(g, dict) else None
            groups.append({**g, "hooks": inner} if inner is not None else g)
        if event in hooks:
            hooks[event] = groups
    out["hooks"] = hooks
    return out


def settings_files(sp: SealPaths) -> list[str]:
    """Settings whose `env` and hooks Claude Code hands to the hook: the agent must not change them."""
    return [str(sp.repo / ".claude" / "settings.json"), str(sp.repo / ".claude" / "settings.local.json"),
            str(sp.home / ".claude" / "settings.json"), str(sp.home / ".claude" / "settings.local.json")]


# What the Bash sandbox keeps read-only at the root of the work copy although the cwd is writable (measured on
# 2.1.332): files git, a shell or Claude Code would read from there outside the sandbox (`core.fsmonitor` in
# .git/config, a hook in .git/hooks run by `git worktree add`). The guard holds the file tools to the same list.
SANDBOX_READ_ONLY_FILES = (".git/config", ".gitmodules", ".gitconfig", ".bashrc", ".bash_profile", ".zshrc",
                           ".zprofile", ".profile", ".ripgreprc", ".mcp.json")
SANDBOX_READ_ONLY_DIRS = (".claude", ".git/hooks", ".git/worktrees", ".vscode", ".idea")


def policy(sp: SealPaths) -> dict:
    deny, allow = read_rules(sp, guard=True)
    return {"v": SEAL_VERSION, "read_deny": deny, "read_allow": allow,
            "write": [str(sp.repo), str(sp.agent_tmp)],
            "never_write": [*settings_files(sp), *(str(sp.repo / f) for f in SANDBOX_READ_ONLY_FILES)],
            # Claude Code reads hooks, skills and agents from the work copy's .claude/: none may be added.
            "never_write_under": [str(sp.repo / d) for d in SANDBOX_READ_ONLY_DIRS]}


def deny_rules(sp: SealPaths) -> list[str]:
    """permission deny rules (`//` = an absolute path in Claude Code's rule syntax).

    Claude Code also turns Edit(...) rules into the sandbox's denyWrite and Read(...) into denyRead, so the
    cell's tmp is not named here: the agent's own temp dir is inside it and would turn read-only.
    """
    benches = [sp.bench, *package_checkout()[:1]]
    folders = [*(b / d for b in benches for d in PRIVATE if d != "runs"), sp.state, sp.home]
    # A folder that holds the work copy cannot be named: a deny rule wins over every allow (a source repository
    # with the runs folder inside it); the sandbox and the guard still hide it, longest prefix first.
    folders += [p for p in sp.also_private if not _under(os.path.abspath(sp.repo), os.path.abspath(p))]
    rules = folder_rules(dict.fromkeys(os.path.abspath(p) for p in folders))
    rules += [f"Edit(/{f})" for f in settings_files(sp)]
    rules.append(f"Edit(/{os.path.abspath(sp.repo / '.claude')}/**)")
    return [*rules, *DENIED_TOOLS]


def folder_rules(folders: Iterable[str]) -> list[str]:
    """Read and Edit deny rules for each absolute folder and all under it (`//` marks an absolute path)."""
    rules = []
    for p in folders:
        rules += [f"Read(/{p}/**)", f"Edit(/{p}/**)"]
    return rules


def add_deny(settings: dict, rules: list[str]) -> dict:
    """`settings` with `rules` last in permissions.deny, each once (idempotent), other rules kept."""
    out = dict(settings)
    perms = dict(out.get("permissions") or {})
    perms["deny"] = [*[r for r in perms.get("deny", []) if r not in rules], *rules]
    out["permissions"] = perms
    return out


def guard_command(python: str, policy_path: Path) -> str:
    return f"{shlex.quote(python)} -S {shlex.quote(GUARD_SCRIPT)} {shlex.quote(str(policy_path))}"


def seal_settings(current: dict, sp: SealPaths, guard_python: str) -> dict:
    """`current` settings plus the sandbox, the guard hook and the deny rules (idempotent)."""
    out = dict(current)
    deny, allow = read_rules(sp)
    out["sandbox"] = {"enabled": True, "allowUnsandboxedCommands": False, "failIfUnavailable": True,
                      "filesystem": {"denyRead": deny, "allowRead": allow}}
    out = add_deny(out, deny_rules(sp))
    hooks = dict(out.get("hooks") or {})
    entry = {"type": "command", "command": guard_command(guard_python, sp.state / POLICY_FILE),
             "timeout": GUARD_TIMEOUT_S}
    groups = [g for g in hooks.get("PreToolUse", []) if not guard_scripts([g])]
    hooks["PreToolUse"] = [*groups, {"matcher": FILE_TOOLS, "hooks": [entry]}]
    out["hooks"] = hooks
    return out


def write_policy(sp: SealPaths, state_now: Path) -> None:
    """state/seal.json (paths name the final cell; `state_now` is where the state dir is while prep builds it)."""
    (state_now / POLICY_FILE).write_text(json.dumps(policy(sp), indent=1) + "\n")


def guard_scripts(groups: list) -> list[str]:
    """The guard scripts named by PreToolUse hook groups (the argument of a command that ends in seal_guard.py)."""
    out = []
    for g in groups:
        for h in (g.get("hooks") or []) if isinstance(g, dict) else []:
            command = h.get("command") if isinstance(h, dict) else None
            try:
                words = shlex.split(command) if isinstance(command, str) else []
            except ValueError:
                continue
            out += [w for w in words if os.path.basename(w) == GUARD_NAME]
    return out


def file_digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def cell_problem(cell: Path) -> str | None:
    """None if prep wrote the seal into this cell, else what is missing (a cell from before the seal, or edited).

    The guard is known by what it is, not where: a script whose bytes are this gatebench's guard. Another copy
    of the same gatebench (a bench home that is a second checkout) prepares cells this one may run.
    """
    try:
        settings = json.loads((Path(cell) / "repo" / ".claude" / "settings.json").read_text())
        box = settings.get("sandbox") or {}
        scripts = guard_scripts((settings.get("hooks") or {}).get("PreToolUse", []))
    except (OSError, ValueError, AttributeError) as e:
        return f"its settings cannot be read ({e})"
    if not (box.get("enabled") is True and box.get("allowUnsandboxedCommands") is False
            and box.get("failIfUnavailable") is True and (box.get("filesystem") or {}).get("denyRead")):
        return "its .claude/settings.json has no sandbox settings"
    if not scripts or not (Path(cell) / "state" / POLICY_FILE).is_file():
        return "its file-tool guard is missing"
    if not (Path(cell) / "state" / "world.json").is_file():
        return "its agent's world (state/world.json) is missing"
    ours = file_digest(GUARD_SCRIPT)
    if not any(file_digest(p) == ours for p in scripts):
        return (f"its file-tool guard ({', '.join(scripts)}) is not this gatebench's {GUARD_SCRIPT} (its bytes differ, "
                "or it is gone)")
    return None


def worker_env(cell: Path, sealed: bool, path: str | None = None) -> dict[str, str]:
    """What every worker adds to the CLI's environment: a per-cell TMPDIR (worker_tmp), and, sealed, a PATH
    whose first entry holds an `npm` that answers `npm root -g` at once.

    Why: with the sandbox on, Claude Code 2.1.332 runs `npm root -g` synchronously at start (looking for a
    seccomp helper its native build does not ship), ~0.5 s of every sealed session on an idle machine and
    seconds on a loaded one. The answer only adds a candidate folder to a search that also tries the usual
    global folders, so the empty answer loses nothing; any other npm command goes to the real npm. The shim
    lives in the cell's tmp/, which the sandbox hides, so the agent's own `npm` is the real one.
    """
    own = Path(cell) / "tmp"
    own.mkdir(exist_ok=True)
    tmp = worker_tmp(cell)
    tmp.mkdir(mode=0o700, exist_ok=True)
    path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin") if path is None else path
    real = shutil.which("npm", path=path)
    if not sealed or real is None:
        return {"TMPDIR": str(tmp)}
    shim = own / "gatebench-bin"
    shim.mkdir(exist_ok=True)
    npm = shim / "npm"
    npm.write_text('#!/bin/sh\nif [ "$1" = root ] && [ "$2" = -g ] && [ "$#" = 2 ]; then exit 0; fi\n'
                   f'exec {shlex.quote(real)} "$@"\n')
    npm.chmod(0o755)
    return {"TMPDIR": str(tmp), "PATH": f"{shim}{os.pathsep}{path}"}


def worker_args(sealed: bool) -> list[str]:
    """An unsealed run switches the sandbox off from the command line (bubblewrap may be missing)."""
    return [] if sealed else ["--settings", UNSEAL_SETTINGS]


# ------------------------------------------------------------------------------------------- the probe


SECRET = "GATEBENCH-SEAL-PROBE-SECRET-7f3a"
PWNED = "GATEBENCH-SEAL-PROBE-PWNED"


def _probe_layout(root: Path, away: Path) -> tuple[SealPaths, dict[str, Path]]:
    bench = root / "bench"
    cell = bench / "runs" / "probe" / "cells" / "c" / "P" / "r0"
    source = root / "source"  # the repository an imported task came from
    sp = SealPaths(bench=bench, cell=cell, repo=cell / "repo", state=cell / "state", home=cell / "home",
                   python=sys.executable, also_private=(source,))
    secrets = {"hidden": bench / "hidden" / "P" / "test_secret.py", "reference": bench / "reference" / "P" / "mod.py",
               "source": source / ".git" / "fix.patch",
               "other_cell": bench / "runs" / "probe" / "cells" / "c" / "P" / "r1" / "repo" / "mod.py",
               "state": sp.state / "config.json", "hook_tmp": sp.tmp.with_name(sp.tmp.name + "-hook") / "oracle" / "t.py",
               **{f"decoy_{k}": p for k, p in decoys(root).items()},
               **{f"decoy_home_{k}": p for k, p in decoys(away).items()}}
    for p in secrets.values():
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"{SECRET}\n")
    for d in (sp.repo, sp.home):
        d.mkdir(parents=True, exist_ok=True)
    (sp.repo / "mod.py").write_text("x = 1\n")
    return sp, secrets


DECOY_NAMES = ("test_secret.py", "p-1.0.tar.gz", "fixed-mod.py")
FIND_DECOYS = ("find / \\( -path /proc -o -path /sys -o -path /usr -o -path /dev \\) -prune -o \\( "
               + " -o ".join(f"-name {n}" for n in DECOY_NAMES) + " \\) -print 2>/dev/null; true")


def decoys(root: Path) -> dict[str, Path]:
    """Copies of a bench the seal's deny-list knows nothing of: a bench home beside this one, a checkout with
    materialize's sdist cache, a scratch copy; only the world keeps them out."""
    return {"bench": root / "old-bench" / "reference" / "P" / "mod.py",
            "hidden": root / "old-bench" / "hidden" / "P" / "test_secret.py",
            "sdist": root / "checkout-2" / ".cache" / "sdists" / "p-1.0.tar.gz",
            "scratch": root / "scratch" / "fixed-mod.py"}


def _probe_script(sp: SealPaths, away: Path) -> tuple[dict, dict[str, Path]]:
    """The probe agent: every indirect read and outside write we know, each through the real tools."""
    b, r = sp.bench, sp.repo
    targets = {"state": sp.state / "pwned", "home_settings": sp.home / ".claude" / "settings.json",
               "bench": b / "pwned", "local_settings": r / ".claude" / "settings.local.json",
               "venv": Path(sys.prefix) / "pwned.pth", "tmp": Path("/tmp") / f"gatebench-probe-{os.getpid()}",
               "agent_definition": r / ".claude" / "agents" / "pwned.md"}

    def bash(cmd: str) -> dict:
        return {"content": [{"type": "tool_use", "name": "Bash", "input": {"command": cmd, "description": "probe"}}]}

    def tool(name: str, **inp: str) -> dict:
        return {"content": [{"type": "tool_use", "name": name, "input": inp}]}

    env_json = json.dumps({"env": {"PYTHONPATH": str(r), "PYTEST_PLUGINS": "evil"}})
    turns = [
        bash(f"cat {b}/h*/P/*.py > {r}/leak_glob.txt; cat {b}/runs/*/cells/*/*/r1/repo/* > {r}/leak_cell.txt; "
             f"cat {sp.cell}/t*/*/*.py > {r}/leak_tmp.txt; cat {b.parent}/sou*/.git/* > {r}/leak_source.txt; true"),
        bash(f"python3 -c \"import glob; print([open(p).read() for p in glob.glob('{b}/hid*/*/*')"
             f" + glob.glob('{b}/ref*/*/*')])\" > {r}/leak_pyglob.txt; true"),
        bash(" ".join(f"cat {p};" for p in [*decoys(b.parent).values(), *decoys(away).values()]) + " true"),
        bash(FIND_DECOYS),
        tool("Read", file_path=str(decoys(b.parent)["bench"])),
        tool("Read", file_path=str(decoys(away)["hidden"])),
        bash(f"ln -s {b}/hidden/P/test_secret.py {r}/link_hidden.py; ln -s ../../../../../../../reference {r}/link_ref; "
             f"cat {r}/link_hidden.py {r}/link_ref/P/mod.py > {r}/leak_link.txt; true"),
        tool("Read", file_path=f"{r}/link_hidden.py"),
        tool("Read", file_path=f"{r}/link_ref/P/mod.py"),
        tool("Read", file_path=str(sp.state / "config.json")),
        bash(f"echo {PWNED} > {targets['state']}; mkdir -p {sp.home}/.claude; echo '{env_json}' > "
             f"{targets['home_settings']}; echo {PWNED} > {targets['bench']}; echo '{env_json}' > "
             f"{targets['local_settings']}; echo {PWNED} > {targets['venv']}; echo {PWNED} > {targets['tmp']}; "
             f"echo ok > {r}/ok_bash.txt; echo ok > $TMPDIR/ok.txt && cp $TMPDIR/ok.txt {r}/ok_tmp.txt; "
             f"mkdir -p {r}/.claude/agents; echo {PWNED} > {targets['agent_definition']}; true"),
        tool("Write", file_path=str(targets["home_settings"]), content=env_json),
        tool("Write", file_path=str(targets["local_settings"]), content=env_json),
        tool("Write", file_path=str(sp.state / "pwned_write"), content=PWNED),
        tool("Write", file_path=str(targets["agent_definition"]), content=PWNED),
        tool("Write", file_path=f"{r}/ok_write.txt", content="ok\n"),
        {"content": [{"type": "text", "text": "Probe done."}]},
    ]
    targets["state_write"] = sp.state / "pwned_write"
    return {"steps": [{"on": "start", "turns": turns}]}, targets


@dataclass(frozen=True)
class ProbeResult:
    sealed: bool
    problems: list[str]
    seconds: float
    cli_version: str | None = None
    cached: bool = False

    def message(self) -> str:
        if self.sealed:
            return "the seal holds on this machine"
        return ("the agent is not sealed on this machine: " + "; ".join(self.problems[:8])
                + f". Fix: {FIX}")


def run_probe(claude: Path | None = None, timeout_s: float = 120.0) -> ProbeResult:
    """A scripted agent, through the real CLI (in the agent's world) and the fake API, tries to get out of a sealed
    probe cell; its Stop hook is the stop client, answered by a stop server outside."""
    import time

    t0 = time.monotonic()
    problems: list[str] = []
    missing = [b for b in ("bwrap", "socat") if shutil.which(b) is None]
    if missing:
        problems.append(f"{' and '.join(missing)} not installed (Claude Code's Bash sandbox needs bubblewrap and socat)")
    root = Path(tempfile.mkdtemp(prefix="gatebench-seal-probe-")).resolve()
    # Copies of the bench outside /tmp too (Claude Code's sandbox hides /tmp whole): under the real HOME.
    away = Path(os.path.expanduser("~")) / ".cache" / "gatebench" / f"probe-decoys-{os.getpid()}-{os.urandom(4).hex()}"
    version = None
    try:
        sp, _secrets = _probe_layout(root, away)
        version = _probe_run(sp, away, claude, timeout_s, problems)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(away, ignore_errors=True)
        # What an unsealed probe may have written outside its folder (the venv's .pth would run at every start).
        for t in (Path(sys.prefix) / "pwned.pth", Path("/tmp") / f"gatebench-probe-{os.getpid()}"):
            if t.is_file() and PWNED in t.read_text(errors="replace"):
                t.unlink()
    return ProbeResult(sealed=not problems, problems=problems, seconds=round(time.monotonic() - t0, 2),
                       cli_version=version)


def _probe_run(sp: SealPaths, away: Path, claude: Path | None, timeout_s: float, problems: list[str]) -> str | None:
    """Run the probe agent in `sp`'s cell; add what got out to `problems`; the CLI's version."""
    from gatebench.cell import world
    from gatebench.cell.stopserver import StopServer
    from gatebench.claude_cli import claude_env, find_claude, run_claude
    from gatebench.sim.brain import brain_from_data
    from gatebench.sim.server import FakeMessagesApi

    claude = claude or find_claude()
    script, targets = _probe_script(sp, away)
    sock = world.stop_socket(sp.tmp)
    settings = seal_settings({}, sp, sys.executable)
    settings["hooks"]["Stop"] = [{"hooks": [{"type": "command",
                                             "command": world.client_command(sys.executable, "stop", sock)}]}]
    (sp.repo / ".claude").mkdir()
    (sp.repo / ".claude" / "settings.json").write_text(json.dumps(settings, indent=1))
    write_policy(sp, sp.state)
    hook_mark = sp.state / "hook_ran"
    mark = [sys.executable, "-c", f"import sys; open({str(hook_mark)!r}, 'wb').write(sys.stdin.buffer.read())"]
    spec = world_of(sp, sys.executable)
    with FakeMessagesApi(brain_from_data(script)) as api:
        env = claude_env(api.base_url, sp.home, worker_env(sp.cell, True))
        with StopServer(sock, lambda _verb: mark, env=env, cwd=sp.repo, timeout_s=30):
            run = run_claude("seal probe", sp.repo, env, timeout_s=timeout_s, claude=claude,
                             wrap=lambda argv: world.wrap(argv, spec, str(claude)))
        results = _tool_results(api.message_requests())
    if run.result is None or run.result.get("is_error"):
        problems.append(f"the probe agent did not finish (rc {run.rc}): {run.stderr.strip()[-300:]}")
    problems += _escapes(sp, results, targets)
    if not hook_mark.is_file() or b'"hook_event_name"' not in hook_mark.read_bytes():
        problems.append("the Stop hook did not reach the stop server (the client inside the world, the server outside)")
    return (run.result or {}).get("claude_code_version") or _init_version(run.events)


def _escapes(sp: SealPaths, results: list[tuple[str, str]], targets: dict[str, Path]) -> list[str]:
    """What the probe agent got out (a secret read or copied, a write outside), and honest writes that failed."""
    problems = []
    for name, text in results:
        if SECRET in text:
            problems.append(f"{name} read a private file: {text.strip()[:120]!r}")
        seen = [x.strip() for x in text.splitlines() if x.strip().startswith("/")
                and os.path.basename(x.strip()) in DECOY_NAMES]
        if seen:
            problems.append(f"{name} sees private files outside the world: {', '.join(seen[:3])}")
    for f in sp.repo.rglob("*"):
        if f.is_file() and not f.is_symlink() and SECRET in f.read_text(errors="replace"):
            problems.append(f"Bash copied private content into the work copy ({f.name})")
    for what, t in targets.items():
        if t.exists() and (what.endswith("settings") or PWNED in t.read_text(errors="replace")):
            problems.append(f"the agent wrote outside its work copy: {what} ({t})")
    for ok in ("ok_bash.txt", "ok_tmp.txt", "ok_write.txt"):
        if not (sp.repo / ok).is_file():
            problems.append(f"an allowed write failed ({ok}): the seal would break honest work")
    return problems


def _init_version(events: list[dict]) -> str | None:
    return next((e.get("claude_code_version") for e in events if e.get("subtype") == "init"), None)


def _tool_results(requests: list[dict]) -> list[tuple[str, str]]:
    """(tool call summary, result text) of every tool call, from the last request (it carries them all)."""
    if not requests:
        return []
    msgs = requests[-1]["body"].get("messages") or []
    calls: dict[str, str] = {}
    out = []
    for m in msgs:
        for b in m.get("content") if isinstance(m.get("content"), list) else []:
            if b.get("type") == "tool_use":
                calls[b.get("id")] = f"{b.get('name')} {json.dumps(b.get('input'))[:100]}"
            elif b.get("type") == "tool_result":
                c = b.get("content")
                text = "\n".join(x.get("text", "") for x in c) if isinstance(c, list) else str(c)
                out.append((calls.get(b.get("tool_use_id"), "a tool call"), text))
    return out


# ------------------------------------------------------------------------------------------- the cache


def _stat_key(path: str | None) -> str:
    if not path:
        return "-"
    try:
        st = os.stat(path)
        return f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
    except OSError:
        return "-"


def machine_key(claude: Path) -> str:
    """What the probe's verdict depends on: host, the CLI binary, bwrap, socat, the seal's version, uid."""
    parts = [socket.gethostname(), str(os.getuid()), str(SEAL_VERSION), _stat_key(str(claude)),
             _stat_key(shutil.which("bwrap")), _stat_key(shutil.which("socat")),
             _stat_key(GUARD_SCRIPT), _stat_key(__file__), *(_stat_key(str(Path(__file__).parent / f))
                                                             for f in WORLD_FILES)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


WORLD_FILES = ("world.py", "stop_client.py", "stopserver.py")  # the world and the stop's way out of it


def cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gatebench" / "seal-probe.json"


def prove_seal(claude: Path, *, use_cache: bool = True) -> ProbeResult:
    """The probe's verdict for this machine: from the cache if a probe of exactly this set-up passed, else run it.

    Only a pass is cached (a failure is re-probed next time, after the fix), keyed by everything it depends on,
    so a stale entry can never claim a seal that a changed machine no longer has.
    """
    key = machine_key(claude)
    path = cache_path()
    if use_cache:
        try:
            data = json.loads(path.read_text())
            if data.get("key") == key and data.get("sealed") is True:
                return ProbeResult(True, [], 0.0, data.get("cli_version"), cached=True)
        except (OSError, ValueError, AttributeError):
            pass
    res = run_probe(claude)
    if res.sealed:
        try:
            from gatebench.common.util import write_atomic

            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, json.dumps({"key": key, "sealed": True, "cli_version": res.cli_version,
                                           "seconds": res.seconds}) + "\n")
        except OSError:
            pass
    return res


def require_seal(unsealed: bool, out=None) -> bool:
    """For `run` and `matrix`: True (sealed) once proven, False with --unsealed; UsageError if the seal fails."""
    out = out or sys.stderr
    from gatebench.claude_cli import require_claude
    from gatebench.errors import UsageError

    if unsealed:
        print("gatebench: warning: --unsealed: the agent is not sealed; records say sealed: false", file=out)
        return False
    res = prove_seal(Path(require_claude()))
    if not res.sealed:
        raise UsageError(res.message())
    if not res.cached:
        print(f"[seal] proven on this machine in {res.seconds:g}s (probe agent: no private read, no outside write)",
              file=out)
    return True
