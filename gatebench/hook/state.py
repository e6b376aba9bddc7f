"""Where the hook keeps things, and how it reads and writes them (stdlib only).

Layout of a state dir (SPEC.md, "State dir"):
  config.json                 resolved config (written by install/prep, validated there)
  baseline/manifest.json      baseline taken by prep or install
  sessions/<sid>.json         per-session counters (attempts, blocks, prompt_id, gates' memory)
  sessions/<sid>.manifest.json  baseline taken at SessionStart (installed mode)
  blobs/<sha256>              content-addressed file contents of every baseline
  statcache.marshal           stat cache of the last walk (private; deleted = rebuilt)
  git/                        the git path's private git dir: index, objects, exclude (gitsnap.py)
  baseline/manifest.json.git  the baseline's git tree id, when the git path took it
  events.jsonl                one line per hook call
"""

from __future__ import annotations

import os

from gatebench.common import jsonfast
from gatebench.common.util import read_jsonl
from gatebench.tree.snapshot import read_json, write_json_atomic

GUARD_ENV = "GATEBENCH_HOOK_DISABLED"  # set for reviewers' own `claude -p`, so the hook does not re-enter
STATE_ENV = "GATEBENCH_STATE"
FALLBACK_ENV = "GATEBENCH_FALLBACK_LOG"

_SAFE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


STATE_HOME_ENV = "XDG_STATE_HOME"


def default_state_dir(project_dir: str) -> str:
    """The installed-mode state dir of a repo: per user, outside the repo, keyed by its real path.

    `$XDG_STATE_HOME/gatebench/<repo name>-<12 hex of sha256(realpath)>` (XDG_STATE_HOME defaults to
    ~/.local/state). Outside the repo so the agent cannot switch its own gate off by editing the
    config or poisoning the stat cache through an in-repo path; keyed by the real path so install,
    the hook (from CLAUDE_PROJECT_DIR) and status agree however the repo is spelled. This is the one
    place the lookup lives: every caller (install, hook, plugin, status, review) goes through it.
    """
    import hashlib

    real = os.path.realpath(project_dir)
    base = os.environ.get(STATE_HOME_ENV, "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is invalid and must be ignored
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:12]
    name = "".join(c if c in _SAFE_CHARS else "_" for c in os.path.basename(real))[:40] or "root"
    return os.path.join(base, "gatebench", f"{name}-{digest}")


def safe_name(session_id: str) -> str:
    return "".join(c if c in _SAFE_CHARS else "_" for c in session_id)[:120] or "unknown"


class Paths:
    def __init__(self, state_dir: str):
        self.state = state_dir
        self.config = os.path.join(state_dir, "config.json")
        self.baseline = os.path.join(state_dir, "baseline", "manifest.json")
        self.blobs = os.path.join(state_dir, "blobs")
        self.statcache = os.path.join(state_dir, "statcache.marshal")
        self.git = os.path.join(state_dir, "git")
        self.events = os.path.join(state_dir, "events.jsonl")
        self.sessions = os.path.join(state_dir, "sessions")

    def session(self, sid: str) -> str:
        return os.path.join(self.sessions, safe_name(sid) + ".json")

    def session_baseline(self, sid: str) -> str:
        return os.path.join(self.sessions, safe_name(sid) + ".manifest.json")


def load_session(path: str) -> dict:
    try:
        data = read_json(path)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def save_session(path: str, data: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_json_atomic(path, data)


def fallback_log() -> str:
    import tempfile

    return os.environ.get(FALLBACK_ENV) or os.path.join(tempfile.gettempdir(), "gatebench", "events-fallback.jsonl")


def append_event(path: str, event: dict) -> str | None:
    """Append one JSON line. If the state dir cannot take it, write to the fallback log instead.

    Returns the path actually written, or None if nothing could be written anywhere.
    """
    line = (jsonfast.dumps(event, default=str) + "\n").encode()
    for target in (path, None):
        target = target or fallback_log()  # computed only when needed: it imports tempfile
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)  # one write on O_APPEND: lines from concurrent hooks do not interleave
            finally:
                os.close(fd)
            return target
        except OSError:
            if target != path:
                return None
            event.setdefault("errors", []).append(f"cannot write {path}; event written to the fallback log")
            line = (jsonfast.dumps(event, default=str) + "\n").encode()
    return None


def read_events(path: str) -> list[dict]:
    return read_jsonl(path)[0]
