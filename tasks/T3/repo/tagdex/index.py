"""In-memory tag index: which notes carry which tag."""

from __future__ import annotations

from collections.abc import Iterable

from tagdex.text import tag_key


class TagIndex:
    def __init__(self) -> None:
        self._notes: dict[str, set[str]] = {}
        # The spelling a tag was first added with is the one shown to the user.
        self._display: dict[str, str] = {}

    def add(self, note_id: str, tags: Iterable[str]) -> None:
        for tag in tags:
            key = tag_key(tag)
            if not key:
                continue
            self._notes.setdefault(key, set()).add(note_id)
            self._display.setdefault(key, tag.strip())

    def remove(self, note_id: str) -> None:
        for key in list(self._notes):
            self._notes[key].discard(note_id)
            if not self._notes[key]:
                del self._notes[key]
                del self._display[key]

    def notes_with(self, tag: str) -> list[str]:
        return sorted(self._notes.get(tag_key(tag), ()))

    def tags_of(self, note_id: str) -> list[str]:
        return sorted(self._display[k] for k, ids in self._notes.items() if note_id in ids)

    def all_tags(self) -> list[str]:
        """Every tag in use, in its first-seen spelling, ordered by tag key."""
        return [self._display[k] for k in sorted(self._notes)]

    def counts(self) -> dict[str, int]:
        return {self._display[k]: len(ids) for k, ids in sorted(self._notes.items())}
