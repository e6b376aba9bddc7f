"""logsum: summarise web server access logs (Common Log Format)."""

from logsum.parse import Entry, parse_line
from logsum.summary import Summary

__all__ = ["Entry", "Summary", "parse_line"]
__version__ = "1.1.0"
