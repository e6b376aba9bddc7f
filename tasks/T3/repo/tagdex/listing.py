"""The `notes ls` table: one note per line, titles in a fixed-width column."""

from __future__ import annotations

from dataclasses import dataclass, field

from tagdex.text import pad, slugify, truncate


@dataclass
class Note:
    id: str
    title: str
    tags: list[str] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return slugify(self.title)


def format_listing(notes: list[Note], title_width: int = 24) -> list[str]:
    """Lines of `<id>  <title padded to title_width columns>  #tag #tag`."""
    lines = []
    id_width = max((len(n.id) for n in notes), default=0)
    for note in notes:
        title = pad(truncate(note.title, title_width), title_width)
        tags = " ".join(f"#{t}" for t in note.tags)
        lines.append(f"{note.id.ljust(id_width)}  {title}  {tags}".rstrip())
    return lines
