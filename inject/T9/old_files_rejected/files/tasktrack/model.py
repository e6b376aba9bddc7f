"""The task record and its JSON shape."""

from __future__ import annotations

from dataclasses import dataclass, field

# Most urgent first: this order is also the display order of `list`.
PRIORITIES = ("high", "normal", "low")
DEFAULT_PRIORITY = "normal"


@dataclass
class Task:
    id: int
    title: str
    done: bool = False
    tags: list[str] = field(default_factory=list)
    priority: str = DEFAULT_PRIORITY

    def __post_init__(self) -> None:
        if not isinstance(self.id, int) or isinstance(self.id, bool) or self.id < 1:
            raise ValueError(f"task id must be a positive integer, got {self.id!r}")
        if not isinstance(self.title, str) or not self.title.strip():
            raise ValueError(f"task {self.id}: title must be a non-empty string")
        if self.priority not in PRIORITIES:
            raise ValueError(f"task {self.id}: priority must be one of {', '.join(PRIORITIES)}, got {self.priority!r}")

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "title": self.title,
            "done": self.done,
            "tags": list(self.tags),
            "priority": self.priority,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Task:
        """Build a Task from its stored form; raises ValueError or KeyError on a malformed record.

        Records written before priorities existed have no "priority" key and load as normal.
        """
        tags = data.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise ValueError(f"task {data.get('id')!r}: tags must be a list of strings")
        return cls(
            id=data["id"],
            title=data["title"],
            done=bool(data.get("done", False)),
            tags=tags,
            priority=data.get("priority", DEFAULT_PRIORITY),
        )


def priority_rank(task: Task) -> int:
    return PRIORITIES.index(task.priority)
