"""The one place the Claude Code CLI version is pinned (scripts/setup reads it too)."""

CLAUDE_CODE_VERSION = "2.1.332"
