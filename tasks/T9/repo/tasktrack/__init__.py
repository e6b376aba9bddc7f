"""A tiny to-do tracker that keeps its tasks in a JSON file."""

from tasktrack.model import Task
from tasktrack.store import Store, StoreError

__all__ = ["Store", "StoreError", "Task"]
