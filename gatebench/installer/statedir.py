"""Write a hook state dir: the resolved config and the baseline snapshot, in that order.

One function for install, prep and selftest, so every state dir the hook reads is made the same way.
"""

from __future__ import annotations

from pathlib import Path

from gatebench.hook.state import Paths
from gatebench.installer.configs import write_resolved
from gatebench.models.config import ResolvedConfig
from gatebench.tree.globs import GlobSet
from gatebench.tree.snapshot import take_baseline


def write_state(resolved: ResolvedConfig, repo: Path, state: Path, *, strict: bool) -> dict:
    """state/config.json from `resolved`, then the baseline of `repo` as it is now.

    `repo` and `state` are where to write now; the paths inside `resolved` are where the hook will
    find them (prep builds in a temporary folder and renames it). With `strict`, a file the snapshot
    could not read is an OSError; otherwise the errors are returned in the summary.
    """
    paths = Paths(str(state))
    write_resolved(resolved, Path(paths.config))
    summary = take_baseline(str(repo), GlobSet(resolved.ignore), str(Path(paths.baseline).parent),
                            GlobSet(resolved.protected), paths.blobs)
    if strict and summary["errors"]:
        raise OSError(f"baseline snapshot of {repo} incomplete: {summary['errors'][:3]}")
    return summary
