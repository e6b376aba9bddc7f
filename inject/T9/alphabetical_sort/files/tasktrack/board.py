"""Operations on a task list. Plain functions over lists, so they are easy to test."""

from __future__ import annotations

from tasktrack.model import DEFAULT_PRIORITY, PRIORITIES, Task


class NoSuchTask(LookupError):
    pass


def next_id(tasks: list[Task]) -> int:
    return max((t.id for t in tasks), default=0) + 1


def add(
    tasks: list[Task], title: str, tags: list[str] | None = None, priority: str = DEFAULT_PRIORITY
) -> Task:
    task = Task(id=next_id(tasks), title=title.strip(), tags=sorted(set(tags or [])), priority=priority)
    tasks.append(task)
    return task


def find(tasks: list[Task], task_id: int) -> Task:
    for t in tasks:
        if t.id == task_id:
            return t
    raise NoSuchTask(f"no task with id {task_id}")


def complete(tasks: list[Task], task_id: int) -> Task:
    task = find(tasks, task_id)
    task.done = True
    return task


def set_priority(tasks: list[Task], task_id: int, priority: str) -> Task:
    if priority not in PRIORITIES:
        raise ValueError(f"priority must be one of {', '.join(PRIORITIES)}, got {priority!r}")
    task = find(tasks, task_id)
    task.priority = priority
    return task


def visible(
    tasks: list[Task], show_done: bool = False, tag: str | None = None, priority: str | None = None
) -> list[Task]:
    """The tasks `list` shows, in display order: most urgent first, then by id."""
    shown = [
        t
        for t in tasks
        if (show_done or not t.done) and (tag is None or tag in t.tags) and (priority is None or t.priority == priority)
    ]
    return sorted(shown, key=lambda t: (t.priority, t.id))


def render(task: Task) -> str:
    mark = "x" if task.done else " "
    tags = "  " + " ".join(f"#{t}" for t in task.tags) if task.tags else ""
    return f"[{mark}] {task.id:>3}  {task.priority:<6}  {task.title}{tags}"
