"""Any Claude Code plugin as an arm of the matrix: `gatebench matrix --arm NAME=PLUGIN_DIR` (SPEC.md section 16).

An arm's cells are prepped with the no-gate config (`none`: gatebench's hook records every stop and the hidden
oracle, and never blocks) and run the worker with the plugin loaded (`claude --plugin-dir`), so a PreToolUse
gate (TDD Guard and its kind), a skill or a whole plugin is benched beside the built-in configs and scored by
the same oracle. Its PreToolUse denials are recorded per tool call, with their reasons.

The seal: the plugin is copied into the cell (`<cell>/plugin/<folder name>`), which the agent's sandbox
re-opens for reading only (skills' scripts run in the agent's Bash); the agent cannot write there (the
sandbox and the file-tool guard allow writes in the work copy and its temp dir only). A plugin that lies in,
or holds, one of the bench's private folders, or that holds a link leaving it, is refused: its copy would
hand the agent what the seal hides. The plugin's hooks run outside the sandbox, as the bench's own do: a
plugin is code the operator chose to trust, like a `command` gate.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from gatebench.errors import UsageError
from gatebench.paths import project_root

BASE_CONFIG = "none"
NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")
PRIVATE = ("tasks", "hidden", "reference", "inject", "runs", ".git")
MAX_FILES = 5000  # the plugin's own files; its dependency folders (DEPS) are linked, not copied, and not counted
DEPS = "node_modules"
SEAL_PREFIX = "sealed cell:"  # the bench's own file-tool guard (seal_guard.py): not the arm's denials
DENIED = "hook error: "  # Claude Code's tool_result text for a PreToolUse deny: "PreToolUse:<Tool> hook error: <reason>"
# A reason that reports the plugin failing, not judging (SPEC.md section 16, "Plugin errors"): its validator
# erroring, timing out or answering unparseably. TDD Guard 1.7.0 blocks with `Error during validation: <why>`
# (`Reached maximum number of turns (1)`, `The model did not return valid JSON: ...`) and `No response from
# model, try again`. Such a decision is `plugin_error`, never a denial.
PLUGIN_ERROR_RE = re.compile(
    r"error during validation|did not return valid json|no response from model|reached maximum number of turns"
    r"|\btimed out\b|traceback \(most recent call last\)|\bECONNREFUSED\b|\bAPI Error\b"
    r"|unexpected token .* in json|cannot find module|is not valid json|invalid api key",
    re.IGNORECASE)


def is_plugin_error(reason: str) -> bool:
    """A PreToolUse or Stop decision whose reason is the plugin failing (PLUGIN_ERROR_RE)."""
    return bool(PLUGIN_ERROR_RE.search(reason))


@dataclass(frozen=True)
class Arm:
    name: str
    plugin: Path  # the plugin folder, links resolved

    @property
    def folder(self) -> str:
        return self.plugin.name


def parse(text: str) -> Arm:
    """`NAME=PLUGIN_DIR`; bad input is a UsageError naming it."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise UsageError(f"--arm {text!r}: expected NAME=PLUGIN_DIR")
    if not NAME_RE.match(name):
        raise UsageError(f"--arm {text!r}: the name may hold letters, digits and _.+- only")
    return Arm(name, Path(path).expanduser().resolve())


def manifest_name(plugin: Path) -> str | None:
    """plugin.json's `name` (.claude-plugin/plugin.json, else plugin.json), or None if there is none."""
    import json

    for p in (plugin / ".claude-plugin" / "plugin.json", plugin / "plugin.json"):
        if p.is_file():
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise UsageError(f"{p}: not valid JSON: {e}")
            name = data.get("name") if isinstance(data, dict) else None
            if not isinstance(name, str) or not name:
                raise UsageError(f"{p}: name: missing (a plugin manifest needs a name)")
            return name
    return None


def check(arm: Arm, configs: list[str], home: Path | None = None) -> str:
    """Everything about one arm before any cell runs; returns the plugin's content hash. Raises UsageError."""
    home = (home or project_root()).resolve()
    p = arm.plugin
    if arm.name in configs:
        raise UsageError(f"--arm {arm.name}: a config has that name; cells are named by it")
    if not p.is_dir():
        raise UsageError(f"--arm {arm.name}: {p} is not a folder")
    if manifest_name(p) is None and not (p / "hooks" / "hooks.json").is_file():
        raise UsageError(f"--arm {arm.name}: {p} is not a Claude Code plugin (no .claude-plugin/plugin.json, "
                         "plugin.json or hooks/hooks.json)")
    private = [home / d for d in PRIVATE]
    for d in private:
        if p == d or d in p.parents:
            raise UsageError(f"--arm {arm.name}: {p} lies in the bench's private folder {d}")
        if p == home or p in d.parents:
            raise UsageError(f"--arm {arm.name}: {p} holds the bench's private folder {d}: its copy in each cell "
                             "would hand the agent what the seal hides")
    n = 0
    for root, dirs, files in os.walk(p):
        in_deps = DEPS in Path(root).relative_to(p).parts
        for name in dirs + files:
            f = Path(root) / name
            n += 0 if in_deps or name == DEPS else 1
            if n > MAX_FILES:
                raise UsageError(f"--arm {arm.name}: {p} holds more than {MAX_FILES} files; point at the plugin itself")
            if f.is_symlink():
                target = f.resolve()
                if target != p and p not in target.parents:
                    raise UsageError(f"--arm {arm.name}: {f} is a link out of the plugin (to {target}); "
                                     "the agent would follow it from its copy")
    return plugin_hash(p)


def plugin_hash(plugin: Path) -> str:
    """Content hash of the plugin (names and bytes), its dependency folders by name, size and mtime only (thousands
    of files; the agent can only read them): the same for the original and a cell's copy, whose DEPS are links."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted(plugin.rglob("*")):
        parts = f.relative_to(plugin).parts
        if f.is_file() and DEPS not in parts and not {".git", "__pycache__"}.intersection(parts):
            h.update(str(f.relative_to(plugin)).encode() + b"\0" + f.read_bytes() + b"\0")
    for d in dependency_dirs(plugin):
        real = d.resolve()
        for root, dirs, files in os.walk(real):
            dirs.sort()
            for name in sorted(files):
                f = Path(root) / name
                st = f.lstat()
                h.update(f"{f.relative_to(real)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()[:16]


def dependency_dirs(plugin: Path) -> list[Path]:
    """The plugin's shipped dependencies (`node_modules` at any depth, outermost only): linked, not copied."""
    out: list[Path] = []
    for root, dirs, _files in os.walk(plugin):
        if DEPS in dirs:
            out.append(Path(root) / DEPS)
        dirs[:] = [d for d in dirs if d not in (DEPS, ".git")]
    return out


def copy_into(arm: Arm, cell_root: Path) -> Path:
    """The plugin's copy in a cell (links kept: `check` proved they stay inside); returns it.

    Its dependency folders (node_modules) are not copied: each is a link to the original, which the seal gives
    the agent back to read only (`readable`); thousands of files per cell would cost more than the plugin."""
    dest = cell_root / "plugin" / arm.folder
    shutil.copytree(arm.plugin, dest, symlinks=True, ignore=shutil.ignore_patterns(".git", "__pycache__", DEPS))
    for d in dependency_dirs(arm.plugin):
        (dest / d.relative_to(arm.plugin)).symlink_to(d.resolve(), target_is_directory=True)
    return dest


def readable(arm: Arm, copy: Path) -> tuple[Path, ...]:
    """What the seal gives the agent back to read, never to write: the copy and the dependencies it links to."""
    return (copy, *(d.resolve() for d in dependency_dirs(arm.plugin)))


def state_globs(plugin_name: str | None) -> list[str]:
    """The plugin's own state folder in the work copy (`.claude/<plugin name>/`, TDD Guard's convention:
    `.claude/tdd-guard/data/`): in the snapshot's ignore, so what the plugin writes there is not the agent's
    change (final diff, snapshot, tamper)."""
    return [f".claude/{plugin_name}/**"] if plugin_name else []


def with_state_ignore(resolved, arm_meta):
    """A plugin arm's cell's resolved config: its state folder ignored. Prep writes it, finalize rebuilds it."""
    if arm_meta is None:
        return resolved
    return resolved.model_copy(update={"ignore": [*resolved.ignore, *state_globs(arm_meta.plugin_name)]})


def plugin_args(meta) -> list[str]:
    """The worker's `--plugin-dir` for a plugin arm's cell (its copy in the cell), else nothing."""
    arm = getattr(meta, "arm", None)
    return ["--plugin-dir", arm.plugin_dir] if arm is not None else []


def denials(events: list[dict]) -> list[dict]:
    """PreToolUse denials in a stream-json run, in order: {tool, reason, before_stop, plugin_error}.

    Claude Code answers a denied call with a tool_result (is_error) reading `PreToolUse:<Tool> hook error:
    <reason>` (seen on 2.1.332); `before_stop` is the stop attempt that followed (1 = before the first). The
    bench's own seal guard denies with reasons starting `sealed cell:`: those are the seal's, not the arm's.
    `plugin_error`: the reason is the plugin failing (is_plugin_error), counted apart from its denials.
    """
    names: dict[str, str] = {}
    out: list[dict] = []
    stop = 1
    for e in events:
        msg = e.get("message") if isinstance(e.get("message"), dict) else None
        blocks = msg.get("content") if msg else None
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        if not isinstance(blocks, list):
            continue
        if e.get("type") == "assistant":
            for b in blocks:
                if isinstance(b, dict) and b.get("type") == "tool_use":
                    names[str(b.get("id"))] = str(b.get("name"))
        elif e.get("type") == "user":
            for b in blocks:
                if not isinstance(b, dict):
                    continue
                text = b.get("text") if b.get("type") == "text" else None
                if e.get("isSynthetic") and isinstance(text, str) and "Stop hook feedback:" in text:
                    stop += 1
                if b.get("type") != "tool_result" or not b.get("is_error"):
                    continue
                c = b.get("content")
                content = "\n".join(x.get("text", "") for x in c if isinstance(x, dict)) if isinstance(c, list) else str(c)
                if not content.startswith("PreToolUse:") or DENIED not in content:
                    continue
                reason = content.split(DENIED, 1)[1].strip()
                if reason.startswith(SEAL_PREFIX):
                    continue
                out.append({"tool": names.get(str(b.get("tool_use_id")), content[len("PreToolUse:"):].split(" ", 1)[0]),
                            "reason": reason[:500], "before_stop": stop, "plugin_error": is_plugin_error(reason)})
    return out


def stop_blocks(events: list[dict]) -> list[dict]:
    """The Stop-hook blocks in a stream-json run, in order: {stop, reason, plugin_error} (`stop` = the attempt it
    blocked). In a plugin arm's cell gatebench's own hook runs the config `none`, which never blocks: every one is
    the plugin's."""
    out: list[dict] = []
    for e in events:
        if e.get("type") != "user" or not e.get("isSynthetic"):
            continue
        msg = e.get("message") if isinstance(e.get("message"), dict) else {}
        c = msg.get("content") if msg else None
        text = c if isinstance(c, str) else "\n".join(b.get("text", "") for b in c or [] if isinstance(b, dict))
        if "Stop hook feedback:" not in text:
            continue
        reason = text.split("Stop hook feedback:", 1)[1].split("</system-reminder>", 1)[0].strip()
        out.append({"stop": len(out) + 1, "reason": reason[:500], "plugin_error": is_plugin_error(reason)})
    return out


def record_fields(meta, stream_events: list[dict]) -> tuple[dict, list[dict]]:
    """(record fields, findings) finalize adds for a cell: the PreToolUse denials of any cell; and, for a plugin
    arm's cell, its name as the record's config and cell id, the plugin it ran with, and a tamper finding if the
    cell's copy of the plugin changed during the run (a plugin hook writing into its own folder)."""
    found = denials(stream_events)
    errors = sum(1 for d in found if d["plugin_error"])
    fields: dict = {"pretool": found, "pretool_denials": len(found) - errors, "pretool_plugin_errors": errors}
    arm = getattr(meta, "arm", None)
    if arm is None:
        return fields, []
    stops = stop_blocks(stream_events)
    fields.update(plugin_stop_blocks=sum(1 for b in stops if not b["plugin_error"]),
                  plugin_stop_errors=[b["reason"][:300] for b in stops if b["plugin_error"]])
    fields.update(config=arm.name, cell_id=f"{arm.name}/{meta.task}/{meta.rep}",
                  arm={"plugin": arm.plugin_source, "plugin_hash": arm.plugin_hash, "plugin_name": arm.plugin_name,
                       "base_config": meta.config})
    findings = []
    if Path(arm.plugin_dir).is_dir() and plugin_hash(Path(arm.plugin_dir)) != arm.plugin_hash:
        findings.append({"kind": "tamper", "path": arm.plugin_dir, "why": "the arm's plugin changed during the run"})
    return fields, findings
