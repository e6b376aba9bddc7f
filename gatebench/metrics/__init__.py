"""Metrics read from what the Claude Code CLI leaves behind: its stream-json stdout and its transcript."""
