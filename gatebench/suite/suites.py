"""Named task suites: `quick` (the bundled hand-made tasks), `real` (every recipe), `real-sample` (the bench's
sample of it), `ci` (the selftest sample CI runs), `all` (quick + real). Marked imported tasks (their prompt
does not state what the hidden tests pin) are in no suite and no default run: only named ids run them."""

from __future__ import annotations

from pathlib import Path

import yaml

from gatebench.errors import UsageError
from gatebench.paths import project_root
from gatebench.suite.recipes import ensure_tasks, recipe_paths, samples
from gatebench.suite.tasks import task_ids

SUITES = ("quick", "real", "real-sample", "ci", "all")


def _task_yaml(home: Path, tid: str) -> dict:
    try:
        data = yaml.safe_load((home / "tasks" / tid / "task.yaml").read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, yaml.YAMLError):
        return {}


def marked(home: Path, tid: str) -> list[str]:
    return list((_task_yaml(home, tid).get("source") or {}).get("prompt_gaps") or [])


def suite_ids(name: str, home: Path | None = None) -> list[str]:
    home = home or project_root()
    if name == "quick":
        return [t for t in task_ids(home) if not _task_yaml(home, t).get("source")]
    if name == "real":
        return list(recipe_paths())
    if name == "real-sample":
        return list(samples().bench)
    if name == "ci":
        return list(samples().ci)
    if name == "all":
        return suite_ids("quick", home) + suite_ids("real", home)
    raise UsageError(f"--suite {name!r}: one of {', '.join(SUITES)}")


def default_ids(home: Path | None = None, say=None) -> list[str]:
    """Every task in the bench home, less the marked ones (named on stderr: never left out silently)."""
    import sys

    home = home or project_root()
    left = [t for t in task_ids(home) if marked(home, t)]
    if left:
        (say or (lambda m: print(m, file=sys.stderr)))(
            f"left out {len(left)} marked task(s) (their prompt does not state what the hidden tests pin; name "
            f"them to run them): {', '.join(left)}")
    return [t for t in task_ids(home) if t not in left]


def select(suites: list[str] | None, tasks: list[str] | None, home: Path | None = None) -> list[str]:
    """Task ids for a run: named ids and suites, real ones materialized first; else the default."""
    home = home or project_root()
    ids = [t for s in suites or [] for t in suite_ids(s, home)] + list(tasks or [])
    if not suites and not tasks:
        return default_ids(home)
    ids = list(dict.fromkeys(ids))
    ensure_tasks(ids, home)
    return ids
