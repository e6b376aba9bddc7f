"""Text helpers shared by the index and the listings: slugs, tag keys, terminal widths."""

from __future__ import annotations

import re

_NON_SLUG = re.compile(r"[^a-z0-9]+")
ELLIPSIS = "…"


def slugify(title: str) -> str:
    """A file-name and URL friendly form of a note title: "Hello, World!" -> "hello-world"."""
    slug = _NON_SLUG.sub("-", title.lower()).strip("-")
    return slug or "untitled"


def tag_key(tag: str) -> str:
    """The form under which a tag is stored and looked up, so "Python" and "python" are one tag."""
    return tag.strip().lower()


def display_width(text: str) -> int:
    """How many terminal columns `text` takes."""
    return len(text)


def truncate(text: str, width: int) -> str:
    """`text` cut to fit in `width` terminal columns, with an ellipsis when something was cut off."""
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    if display_width(text) <= width:
        return text
    return text[: width - 1] + ELLIPSIS


def pad(text: str, width: int) -> str:
    """`text` padded with spaces to exactly `width` terminal columns (it must already fit)."""
    return text.ljust(width)
