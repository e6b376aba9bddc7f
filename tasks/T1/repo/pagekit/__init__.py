"""pagekit: split a sequence into numbered pages and build page-number windows for navigation bars."""

from pagekit.paginator import Page, PageOutOfRange, Paginator
from pagekit.window import page_window

__all__ = ["Page", "PageOutOfRange", "Paginator", "page_window"]
__version__ = "0.4.1"
