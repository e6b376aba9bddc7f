"""What a reviewer is shown: the diff against the baseline snapshot, and the filled prompt (stdlib only).

The diff is built from the snapshot's blob store (the baseline contents) and the files as they are
now, with difflib; binary and oversized files are summarised in one line. Placeholders are plain
`{name}` substitutions of known names only, so JSON braces in a prompt are left alone.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import stat
from dataclasses import dataclass

from gatebench.common.text import trim
from gatebench.review.verdict import VERDICT_FORMAT
from gatebench.tree.snapshot import BLOB_MAX_BYTES, Diff, Manifest, open_regular, read_blob

# Every reviewer prompt starts with this line; the sim's Router sends such requests to ReviewerBrain.
REVIEW_MARKER = "[gatebench-review]"
DIFF_LINES_MAX = 4000  # per file; a longer file diff is summarised
NO_TASK = "(no task statement is available here: judge the change on its own terms and by the agent's account)"


@dataclass
class ReviewInputs:
    """Everything about the work under review, as plain data (also the command backend's stdin)."""

    task: str
    diff: str
    files: list[dict]  # [{"path", "status": created|changed|deleted}]
    test_output: str
    agent_message: str = ""

    def to_dict(self) -> dict:
        return {"task": self.task, "diff": self.diff, "files": self.files, "test_output": self.test_output,
                "agent_message": self.agent_message}


def task_from_transcript(path: str | None, prompt_id: str | None) -> str:
    """The user's prompt of this session prompt, from the Claude Code transcript (installed mode).

    Bench mode knows the task; an installed gate only has what the user typed. The prompt is the
    first non-meta user record with this `promptId` whose content is text (tool results and hook
    feedback are user records too). Without a match, the newest such prompt; "" if none can be read.
    """
    if not path:
        return ""
    prompts: list[tuple[str | None, str]] = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if '"user"' not in line:
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if rec.get("type") != "user" or rec.get("isMeta") or "toolUseResult" in rec:
                    continue
                content = (rec.get("message") or {}).get("content")
                if isinstance(content, list):
                    content = "\n".join(b.get("text", "") for b in content
                                         if isinstance(b, dict) and b.get("type") == "text")
                if isinstance(content, str) and content.strip():
                    prompts.append((rec.get("promptId"), content))
    except OSError:
        return ""
    for pid, text in prompts:
        if prompt_id and pid == prompt_id:
            return text
    return prompts[-1][1] if prompts else ""


def _text_of(data: bytes | None) -> str | None:
    """Decoded text, or None for binary content (NUL bytes or not UTF-8)."""
    if data is None or b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _read_now(repo: str, rel: str, mode: int) -> bytes | None:
    path = os.path.join(repo, rel)
    try:
        if stat.S_ISLNK(mode):
            return os.fsencode(os.readlink(path))
        if os.path.getsize(path) > BLOB_MAX_BYTES:
            return None
        with open(open_regular(path), "rb") as f:  # a device or FIFO swapped in since the walk is not read
            return f.read(BLOB_MAX_BYTES + 1)
    except OSError:
        return None


def file_diff(rel: str, old: bytes | None, new: bytes | None, old_size: int, new_size: int,
              status: str) -> str:
    a = f"a/{rel}" if status != "created" else "/dev/null"
    b = f"b/{rel}" if status != "deleted" else "/dev/null"
    old_t = "" if status == "created" else _text_of(old)
    new_t = "" if status == "deleted" else _text_of(new)
    if old_t is None or new_t is None:
        why = "too large to show" if max(old_size, new_size) > BLOB_MAX_BYTES else "binary or unreadable"
        return f"--- {a}\n+++ {b}\n@@ {status}: {why} ({old_size} -> {new_size} bytes) @@\n"
    lines = list(difflib.unified_diff(old_t.splitlines(keepends=True), new_t.splitlines(keepends=True), a, b))
    if len(lines) > DIFF_LINES_MAX:
        return f"--- {a}\n+++ {b}\n@@ {status}: diff of {len(lines)} lines, too long to show @@\n"
    return "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)


def diff_text(repo: str, baseline: Manifest, now: Manifest, d: Diff, blob_dir: str) -> str:
    """A unified diff of the whole change, deleted, changed and created files in path order."""
    status = {**{p: "created" for p in d.created}, **{p: "changed" for p in d.changed},
              **{p: "deleted" for p in d.deleted}}
    parts = []
    for rel in sorted(status):
        st = status[rel]
        old = read_blob(blob_dir, baseline[rel][0]) if st != "created" else None
        new = _read_now(repo, rel, now[rel][2]) if st != "deleted" else None
        old_size = baseline[rel][1] if st != "created" else 0
        new_size = now[rel][1] if st != "deleted" else 0
        parts.append(file_diff(rel, old, new, old_size, new_size, st))
    return "".join(parts)


def changed_files(d: Diff) -> list[dict]:
    return ([{"path": p, "status": "created"} for p in d.created]
            + [{"path": p, "status": "changed"} for p in d.changed]
            + [{"path": p, "status": "deleted"} for p in d.deleted])


def fill(template: str, values: dict[str, str]) -> str:
    """One pass, so a `{diff}` written inside the task text is not itself replaced."""
    pattern = re.compile("|".join(re.escape("{" + k + "}") for k in values))
    return pattern.sub(lambda m: values[m.group(0)[1:-1]], template)


def build_prompt(reviewer: str, template: str, inputs: ReviewInputs, diff_chars: int) -> str:
    """The reviewer's full prompt: the marker line, then the template with every placeholder filled.

    The answer format is appended when the template does not place `{verdict_format}` itself, so
    every reviewer answers in the one format the parser reads.
    """
    files = "\n".join(f"- {f['path']} ({f['status']})" for f in inputs.files) or "(no file changed)"
    values = {
        "task": inputs.task.strip() or NO_TASK,
        "diff": trim(inputs.diff, diff_chars) if inputs.diff else "(empty diff: no file changed)",
        "files": files,
        "test_output": inputs.test_output.strip() or "(no test output)",
        "agent_message": inputs.agent_message.strip() or "(none)",
        "verdict_format": VERDICT_FORMAT,
    }
    body = fill(template, values)
    if "{verdict_format}" not in template:
        body = body.rstrip() + "\n\n" + VERDICT_FORMAT + "\n"
    return f"{REVIEW_MARKER} reviewer={reviewer}\n{body}"
