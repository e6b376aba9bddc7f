"""Load and save the task list as JSON: {"version": 2, "tasks": [...]}."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from tasktrack.model import Task

VERSION = 2


class StoreError(Exception):
    """The task file exists but cannot be used; the message says why."""


class Store:
    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)

    def load(self) -> list[Task]:
        if not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise StoreError(f"{self.path}: cannot read task file: {e}") from e
        if not isinstance(data, dict) or data.get("version") != VERSION:
            raise StoreError(f"{self.path}: unsupported task file version {_version(data)!r}")
        tasks = []
        for raw in data.get("tasks", []):
            try:
                tasks.append(Task.from_dict(raw))
            except (KeyError, TypeError, ValueError) as e:
                raise StoreError(f"{self.path}: bad task record {raw!r}: {e}") from e
        return tasks

    def save(self, tasks: list[Task]) -> None:
        payload = {"version": VERSION, "tasks": [t.to_dict() for t in tasks]}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename, so a crash never leaves a half-written task file behind.
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tasks-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=2)
            f.write("\n")
        os.replace(tmp, self.path)


def _version(data: object) -> object:
    return data.get("version") if isinstance(data, dict) else None
