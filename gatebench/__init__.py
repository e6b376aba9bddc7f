"""gatebench: stop-time gates for Claude Code, and a bench that measures them.

This module is imported by the Stop hook, so it must stay standard library only.
"""

__version__ = "0.1.0"
