"""Page-number windows for navigation bars: `< 4 5 [6] 7 8 >`."""

from __future__ import annotations


def page_window(current: int, num_pages: int, size: int = 5) -> list[int]:
    """Consecutive page numbers around `current`, for a navigation bar showing at most `size` links."""
    if size < 1:
        raise ValueError(f"size must be at least 1, got {size}")
    if num_pages < 1:
        raise ValueError(f"num_pages must be at least 1, got {num_pages}")
    if not 1 <= current <= num_pages:
        raise ValueError(f"current page {current} is outside 1..{num_pages}")
    half = size // 2
    # The last window that still fits starts at num_pages - size + 1.
    start = max(1, min(current - half, num_pages - size + 1))
    end = min(num_pages, start + size - 1)
    return list(range(start, end + 1))


def render_window(current: int, num_pages: int, size: int = 5) -> str:
    """Plain-text navigation bar, the current page in brackets: `< 4 5 [6] 7 8 >`."""
    parts = []
    if current > 1:
        parts.append("<")
    for n in page_window(current, num_pages, size):
        parts.append(f"[{n}]" if n == current else str(n))
    if current < num_pages:
        parts.append(">")
    return " ".join(parts)
