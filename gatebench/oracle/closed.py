"""A closed pytest harness: nothing in the copy can configure the run (stdlib only).

The hidden oracle and the bench-mode tests gate run `{python} -m pytest ARGS` as

    python -I -B <harness>/pytest_boot.py <copy> <fd> -- ARGS -c <harness>/<config>
        --rootdir=<copy> --confcutdir=<copy> -p no:cacheprovider -p <plugin>... [--noconftest]

with `PYTEST_DISABLE_PLUGIN_AUTOLOAD=1`. The config is the trusted one (the baseline's or the hidden
folder's, found as pytest would find it, copied outside the copy), or an empty one; the plugins are the
interpreter's own `pytest11` entry points, read here from its site-packages, outside any sandbox; the copy
is not on `sys.path` while pytest starts and joins it last (`pytest_boot.py`), so a `pytest.toml`, a root
`pytest_cov/`, a planted `*.dist-info` or a shadowing module in the copy decides nothing. The harness
restore (`harness.py`) stays as defence in depth. `pytest_boot.py` also streams each test's outcome to an
inherited pipe (`read_stream`), gatebench's own report beside pytest's JUnit file.
"""

from __future__ import annotations

import configparser
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field

from gatebench.oracle import pytestconfig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

BOOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytest_boot.py")
EMPTY_CONFIG = ("pytest.ini", b"[pytest]\n")
_SHELL = set("|&;<>$`\\\n")
_plugins: dict[str, tuple[str, ...]] = {}


def _shell_syntax(command: str) -> bool:
    """True when the command has shell syntax a shell would act on: one of `_SHELL` outside quotes, or `$`, a
    backtick or a backslash inside double quotes. Inside single quotes every character is literal, so a test id
    quoted there (`--deselect='t.py::f[0-<lambda>]'`, pytest's id for a lambda parameter) is plain text."""
    quote = ""
    for c in command:
        if c == "\n":
            return True
        if quote == "'":
            quote = "" if c == "'" else quote
        elif quote == '"':
            if c in '$`\\':
                return True
            quote = "" if c == '"' else quote
        elif c in "'\"":
            quote = c
        elif c in _SHELL:
            return True
    return False


def pytest_args(command: str) -> list[str] | None:
    """ARGS of a command that is exactly `{python} -m pytest ARGS` (no shell syntax), else None."""
    try:
        toks = shlex.split(command)
    except ValueError:
        return None
    if toks[:3] != ["{python}", "-m", "pytest"] or _shell_syntax(command):
        return None
    return toks[3:]


def find_config(levels: list[str], read: Callable[[str], bytes | None]) -> tuple[str, bytes] | None:
    """The config file pytest would read, searching `levels` (repo-relative folders, deepest first) in
    pytest's order; `read(rel)` gives a file's *trusted* content or None. Returns (rel, content)."""
    for level in levels:
        for name in pytestconfig.NAMES:
            rel = f"{level}/{name}" if level else name
            data = read(rel)
            if data is not None and pytestconfig.gives_config(name, data):
                return rel, data
    return None


def search_levels(copy: str, args: list[str]) -> list[str]:
    """Folders of the copy pytest searches for its config: from the common folder of the path arguments
    (as pytest finds them: every non-option argument that exists) up to the copy's root."""
    dirs = []
    for a in args:
        if a.startswith("-"):
            continue
        p = os.path.normpath(os.path.join(copy, a.split("::", 1)[0]))
        if os.path.lexists(p) and (p == copy or p.startswith(copy + os.sep)):
            dirs.append(p if os.path.isdir(p) and not os.path.islink(p) else os.path.dirname(p))
    common = os.path.commonpath(dirs) if dirs else copy
    rel = os.path.relpath(common, copy).replace(os.sep, "/")
    parts = [] if rel == "." else rel.split("/")
    return ["/".join(parts[:i]) for i in range(len(parts), -1, -1)]


def config_pythonpath(rel: str, data: bytes) -> list[str] | None:
    """The config's `pythonpath` entries (relative to the config's folder), or None when it sets none."""
    name = rel.rsplit("/", 1)[-1]
    try:
        table = pytestconfig.options(name, data) or {}
    except pytestconfig.Unparsable:
        return None
    value = table.get("pythonpath")
    if value is None and name.endswith(".toml"):  # pyproject's [tool.pytest.ini_options]
        inner = table.get("ini_options")
        value = inner.get("pythonpath") if isinstance(inner, dict) else None
    if value is None:
        return None
    return shlex.split(value) if isinstance(value, str) else [str(v) for v in value]


def site_dirs(python: str) -> list[str]:
    """The interpreter's site-packages folders, as it sees them with `site` run (a venv's own, not its base's).
    This process answers for itself when it is that interpreter and ran `site` (the hook runs with -S, where
    sys.prefix is still the base installation's); else the interpreter is asked."""
    import sysconfig

    # A venv's bin/python links to its base interpreter: the unresolved path is what tells venvs apart.
    if os.path.abspath(python) == os.path.abspath(sys.executable) and not sys.flags.no_site:
        return sorted({sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})
    import subprocess

    code = ("import json, sysconfig; "
            "print(json.dumps(sorted({sysconfig.get_path('purelib'), sysconfig.get_path('platlib')})))")
    try:
        r = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True, timeout=30)
        return [d for d in json.loads(r.stdout) if isinstance(d, str)] if r.returncode == 0 else []
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return []


def site_plugins(python: str) -> tuple[str, ...]:
    """Module names of the interpreter's `pytest11` entry points (what pytest would auto-load), read from its
    site-packages' `*.dist-info`/`*.egg-info` `entry_points.txt` without running the interpreter's pytest."""
    key = os.path.abspath(python)
    if key not in _plugins:
        names: set[str] = set()
        dirs = site_dirs(python)
        for d in dirs:
            try:
                entries = sorted(os.listdir(d))
            except OSError:
                continue
            for e in entries:
                if not e.endswith((".dist-info", ".egg-info")):
                    continue
                cp = configparser.RawConfigParser(strict=False, delimiters=("=",))
                cp.optionxform = str  # type: ignore[assignment,method-assign]
                try:
                    cp.read(os.path.join(d, e, "entry_points.txt"), encoding="utf-8")
                except (configparser.Error, OSError, UnicodeDecodeError):
                    continue
                if cp.has_section("pytest11"):
                    names.update(v.split(":", 1)[0].strip() for _k, v in cp.items("pytest11"))
        _plugins[key] = tuple(sorted(n for n in names if n and all(p.isidentifier() for p in n.split("."))
                                     and _present(n.split(".", 1)[0], dirs)))
    return _plugins[key]


def _present(top: str, dirs: list[str]) -> bool:
    """The plugin's top-level module is in those site-packages: an entry point left by an uninstalled
    distribution would fail every run with a usage error that is nobody's fault in the copy."""
    return any(os.path.isdir(os.path.join(d, top)) or os.path.isfile(os.path.join(d, top + ".py"))
               or any(n.startswith(top + ".") and n.endswith((".so", ".pyd")) for n in _listdir(d)) for d in dirs)


def _listdir(d: str) -> list[str]:
    try:
        return os.listdir(d)
    except OSError:
        return []


def plugin_tops(python: str) -> frozenset[str]:
    """Top-level names of the installed pytest plugins: a module or package of that name at a copy's root
    is a shadow (a harness file)."""
    return frozenset(n.split(".", 1)[0] for n in site_plugins(python))


@dataclass
class Closed:
    """One closed pytest invocation: `argv` (no shell), the variables to add to its environment, the folder to
    mount read-only, and the pipe whose write end the process inherits."""

    argv: list[str]
    env: dict[str, str]
    harness_dir: str
    config: str | None  # repo-relative path of the trusted config, None: an empty one
    read_fd: int
    write_fd: int
    plugins: tuple[str, ...] = field(default_factory=tuple)

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


def build(args: list[str], *, python: str, copy: str, harness_dir: str, read: Callable[[str], bytes | None],
          conftests: bool, extra: list[str] | None = None) -> Closed:
    """The closed invocation of pytest ARGS over `copy`; writes the bootstrap and the config into
    `harness_dir` (outside the copy). `read(rel)`: a trusted harness file's content; `conftests`: the trusted
    harness holds conftest.py files (else `--noconftest`). Raises OSError."""
    copy = os.path.realpath(copy)
    os.makedirs(harness_dir, exist_ok=True)
    boot = os.path.join(harness_dir, "pytest_boot.py")
    shutil.copyfile(BOOT, boot)
    found = find_config(search_levels(copy, args), read)
    rel, data = found if found else (None, EMPTY_CONFIG[1])
    cfg = os.path.join(harness_dir, rel.rsplit("/", 1)[-1] if rel else EMPTY_CONFIG[0])
    with open(cfg, "wb") as f:
        f.write(data)
    plugins = site_plugins(python)
    tail = ["-c", cfg, f"--rootdir={copy}", f"--confcutdir={copy}", "-p", "no:cacheprovider"]
    for p in plugins:
        tail += ["-p", p]
    if not conftests:
        tail.append("--noconftest")
    paths = config_pythonpath(rel, data) if rel else None
    if paths:  # relative to the config's folder, which is now outside the copy: made absolute into it
        base = os.path.join(copy, os.path.dirname(rel or ""))
        tail += ["-o", "pythonpath=" + " ".join(shlex.quote(os.path.normpath(os.path.join(base, p))) for p in paths)]
    r, w = os.pipe()
    argv = [python, "-I", "-B", boot, copy, str(w), "--", *args, *tail, *(extra or [])]
    return Closed(argv, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, harness_dir, rel, r, w, plugins)


@dataclass
class Stream:
    """gatebench's report of one run, as `pytest_boot.py` wrote it."""

    outcomes: dict[str, str]  # pytest node id -> passed | failed | error | skipped
    collect_errors: list[str]
    started: bool
    session_exit: int | None  # pytest_sessionfinish's exit status
    finished_exit: int | None  # pytest.main's return, written after it returned
    bad_lines: int
    repeated: list[str]  # node ids reported more than once
    # node id -> the builtin classes of what its failed call raised (`pytest_boot.raised_names`). Written in the
    # agent's process like every line: `canaries.judge` trusts it only where it can cost a solve nothing.
    raised: dict[str, list[str]] = field(default_factory=dict)

    def problem(self, returncode: int | None) -> str | None:
        """Why this stream cannot be the run's report (given the process's exit code), or None."""
        if not self.started:
            return "gatebench's test report stream is empty (pytest's process never started it)"
        if self.bad_lines:
            return f"gatebench's test report stream holds {self.bad_lines} line(s) that are not its own"
        if self.finished_exit is None:
            return "gatebench's test report stream ended early: pytest's process ended before its session finished"
        if returncode is not None and returncode != self.finished_exit:
            return (f"pytest's process exited {returncode} but its session ended with {self.finished_exit} "
                    "(the exit was forced from inside the process)")
        if self.session_exit is not None and self.session_exit != self.finished_exit:
            return f"pytest's session said exit {self.session_exit}, pytest.main returned {self.finished_exit}"
        if self.repeated:
            return f"gatebench's test report stream names {len(self.repeated)} test(s) twice: {self.repeated[:3]}"
        return None


_OUTCOMES = ("passed", "failed", "error", "skipped")
RAISED_MAX, NAME_MAX = 16, 64  # a `raised` list longer, or a name longer, is no report of ours: ignored


def raised_list(value: object) -> list[str] | None:
    """A test line's `raised`, when it is a short list of short names; anything else None (ignored, the line
    itself still counts: the field only ever excuses, so a bad one costs the run nothing but the excuse)."""
    if not isinstance(value, list) or len(value) > RAISED_MAX:
        return None
    if not all(isinstance(v, str) and 0 < len(v) <= NAME_MAX for v in value):
        return None
    return list(value)


def read_stream(data: bytes) -> Stream:
    outcomes: dict[str, str] = {}
    errors: list[str] = []
    repeated: list[str] = []
    raised: dict[str, list[str]] = {}
    started, session, finished, bad = False, None, None, 0
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            ev = json.loads(line)
            kind = ev["e"]
        except (ValueError, TypeError, KeyError):
            bad += 1
            continue
        if finished is not None:
            bad += 1  # nothing of ours comes after `finished`
        elif kind == "start" and not started:
            started = True
        elif kind == "test" and isinstance(ev.get("id"), str) and ev.get("outcome") in _OUTCOMES:
            if ev["id"] in outcomes:
                repeated.append(ev["id"])
            outcomes[ev["id"]] = ev["outcome"]
            names = raised_list(ev.get("raised"))
            if names is not None:
                raised[ev["id"]] = names
            else:
                raised.pop(ev["id"], None)
        elif kind == "collect_error" and isinstance(ev.get("id"), str):
            errors.append(ev["id"])
        elif kind == "session" and isinstance(ev.get("exit"), int):
            session = ev["exit"]
        elif kind == "finished" and isinstance(ev.get("exit"), int):
            finished = ev["exit"]
        else:
            bad += 1
    return Stream(outcomes, errors, started, session, finished, bad, repeated, raised)
