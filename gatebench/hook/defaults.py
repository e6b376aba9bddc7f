"""Constants shared by the stdlib hook and the pydantic models (stdlib only)."""

# Claude Code overrides the 9th consecutive block (shared/claude-code/README.md); our budget stays below it.
CLAUDE_BLOCK_CAP = 8
# Claude Code caps hook output at 10,000 characters; the reason stays well under that.
REASON_CHARS_MAX = 8000
# Seconds added to the config's hook_seconds when install writes the settings `timeout`.
SETTINGS_TIMEOUT_MARGIN_S = 30

# The agent must not switch its own gate off: hook settings are always protected.
HOOK_SETTINGS_GLOBS = [".claude/settings.json", ".claude/settings.local.json"]
DEFAULT_PROTECTED = [
    *HOOK_SETTINGS_GLOBS,
    "tests/**",
    "test/**",
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
    "pytest.ini",
    "setup.cfg",
    "tox.ini",
    "task.yaml",
]
DEFAULT_STRAY = ["**/*.orig", "**/*.rej", "**/*~", "**/.#*", "**/*.swp", "**/#*#"]
# Never part of a snapshot: VCS data, caches, gatebench's own state.
DEFAULT_IGNORE = [
    ".git/**",
    ".claude/gatebench/**",
    "**/__pycache__/**",
    "**/*.pyc",
    ".pytest_cache/**",
    ".ruff_cache/**",
    ".mypy_cache/**",
    "**/.DS_Store",
]

DEFAULT_SELF_CHECK = """Before you finish, check your own work once:
1. Re-read the task. List each thing it asks for.
2. For each item, point to the line of your change that does it. Anything missing: do it now.
3. Run the project's tests and read the output; fix what fails.
4. Think of one input the tests do not cover (an edge, an empty value, a boundary) and check it.
If all of this holds, say so briefly and stop."""
# The same checklist where there is no task: a developer's own repo (installed mode).
DEFAULT_SELF_CHECK_INSTALLED = DEFAULT_SELF_CHECK.replace(
    "Re-read the task. List each thing it asks for.", "Re-read what the user asked. List each thing it asks for.")
