"""Read reviewer definitions (`configs/reviewers/<name>.md`) into ReviewerDef (pydantic side).

A definition is Markdown with YAML front matter between two `---` lines; the body is the prompt.
The hook never calls this: install/prep resolve the definitions into the resolved config JSON.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import yaml
from pydantic import ValidationError

from gatebench.models.loading import FileFormatError, describe
from gatebench.models.reviewer import ReviewerDef
from gatebench.paths import configs_dir, named_file


def reviewers_dir() -> Path:
    return configs_dir() / "reviewers"


def reviewer_path(name_or_path: str) -> Path:
    return named_file(name_or_path, reviewers_dir(), ".md", "reviewer")


def split_front_matter(text: str, source: str) -> tuple[str, str]:
    """(front matter YAML, body). The file must start with a `---` line and close it with another."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise FileFormatError(f"{source}: must start with a `---` line opening the YAML front matter")
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :]).strip() + "\n"
    raise FileFormatError(f"{source}: the front matter is not closed by a second `---` line")


def parse_reviewer(text: str, source: str, default_name: str) -> ReviewerDef:
    head, body = split_front_matter(text, source)
    try:
        meta = yaml.safe_load(head) or {}
    except yaml.YAMLError as e:
        raise FileFormatError(f"{source}: front matter is not valid YAML: {e}")
    if not isinstance(meta, dict):
        raise FileFormatError(f"{source}: front matter must be a mapping, got {type(meta).__name__}")
    if "prompt" in meta:
        raise FileFormatError(f"{source}: prompt: the prompt is the body after the front matter, not a key")
    data = {"name": default_name, **meta, "prompt": body, "source": source}
    try:
        d = ReviewerDef.model_validate(data)
    except ValidationError as e:
        raise FileFormatError(f"{source}: invalid ReviewerDef:\n{describe(e)}")
    if d.command:
        # Quoted once here, so the definition writes {dir}/script.sh unquoted.
        d.command = d.command.replace("{dir}", shlex.quote(str(Path(source).resolve().parent)))
    return d


def load_reviewer(name_or_path: str) -> ReviewerDef:
    path = reviewer_path(name_or_path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise FileFormatError(f"{path}: cannot read: {e}")
    return parse_reviewer(text, str(path), path.stem)


def load_reviewers(names: list[str]) -> dict[str, ReviewerDef]:
    """Definitions keyed by the name the config uses (a name, or a path to a .md file)."""
    return {n: load_reviewer(n) for n in names}
