"""Reviewer backends: one small Protocol, one registry (stdlib only; they run inside the hook).

A backend takes a ReviewJob (the reviewer's definition as plain data, its filled prompt, the
inputs, a read-only copy of the work tree, a deadline, an environment) and returns a ReviewResult.
It never raises for a reviewer's failure: a crash, a timeout or an unreadable answer is an
`error` result with the reason.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from gatebench.hook.state import GUARD_ENV
from gatebench.review.prompt import ReviewInputs
from gatebench.review.verdict import ReviewResult

# The hook inherits these from the Claude Code session it gates; a reviewer's own `claude -p` is a
# separate session and must not look like a child of that one.
SESSION_VARS = (
    "CLAUDECODE", "CLAUDE_PID", "CLAUDE_PROJECT_DIR", "CLAUDE_EFFORT", "AI_AGENT",
    "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_CHILD_SESSION",
    "CLAUDE_CODE_SESSION_ATTENDED", "CLAUDE_CODE_CHILD_NOTES_DIR", "CLAUDE_CODE_MESSAGING_SOCKET",
    "CLAUDE_CODE_MESSAGING_TOKEN",
)


@dataclass
class ReviewJob:
    name: str
    spec: dict  # the ReviewerDef, as plain data (from the resolved config)
    prompt: str  # the filled prompt
    inputs: ReviewInputs
    workdir: str  # read-only copy of the work tree
    timeout_s: float
    env: dict[str, str]
    python: str
    log_path: str | None = None  # keep the raw output here, if given


class Backend(Protocol):
    def __call__(self, job: ReviewJob) -> ReviewResult: ...


def reviewer_env(base: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment (credentials, ANTHROPIC_BASE_URL) with the hook guard set."""
    env = {k: v for k, v in base.items() if k not in SESSION_VARS}
    env[GUARD_ENV] = "1"  # gatebench's hook is a no-op in anything the reviewer starts
    env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
    return env


def keep_log(path: str | None, data: bytes) -> None:
    if not path:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    except OSError:
        pass  # the log is a convenience; the verdict is already in the event


# name -> module with `run(job) -> ReviewResult`, imported only when a reviewer uses it (as GATES).
BACKENDS: dict[str, str] = {
    "claude": "gatebench.review.backends.claude",
    "command": "gatebench.review.backends.command",
}


def get_backend(name: str) -> Callable[[ReviewJob], ReviewResult] | None:
    mod = BACKENDS.get(name)
    return importlib.import_module(mod).run if mod else None
