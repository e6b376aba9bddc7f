"""Find, load and resolve gate configs (pydantic side; the hook only ever reads the resolved JSON)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from gatebench.common.defaults import DEFAULT_IGNORE, HOOK_SETTINGS_GLOBS, INSTALLED_IGNORE
from gatebench.common.util import write_atomic
from gatebench.models.config import GateConfig, OracleBinding, ResolvedConfig, TaskBinding
from gatebench.models.loading import load_model
from gatebench.models.reviewer import ReviewerDef
from gatebench.paths import configs_dir, named_file


def config_path(name_or_path: str) -> Path:
    return named_file(name_or_path, configs_dir(), ".yaml", "config", also=(".yml", ".json"))


def load_config(name_or_path: str) -> GateConfig:
    return load_model(config_path(name_or_path), GateConfig)


def content_hash(data: object) -> str:
    blob = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def resolve(
    cfg: GateConfig,
    *,
    mode: str,
    repo: Path,
    state_dir: Path,
    task: TaskBinding | None = None,
    oracle: OracleBinding | None = None,
    task_protected: list[str] | None = None,
    task_ignore: list[str] | None = None,
    python: str | None = None,
    free_tests: list[str] | None = None,
) -> ResolvedConfig:
    """Everything the stdlib hook needs, in one validated document.

    In bench mode the task's protected globs replace the config's: the task knows which of its files
    are tests (a task whose visible test is wrong leaves that file unprotected on purpose).
    """
    protected = list(task_protected) if task_protected is not None else list(cfg.protected)
    protected += [g for g in HOOK_SETTINGS_GLOBS if g not in protected]
    ignore = [*DEFAULT_IGNORE, *cfg.ignore, *(task_ignore or [])]
    ignore += [g for g in INSTALLED_IGNORE if mode == "installed" and g not in ignore]
    reviewers = resolve_reviewers(cfg)
    cfg_data = cfg.model_dump(mode="json")
    # A reviewer's prompt is part of what a config is: editing it must change the hash.
    hashed = {"config": cfg_data, "reviewers": {n: d.model_dump(mode="json", exclude={"source"})
                                                for n, d in reviewers.items()}} if reviewers else cfg_data
    return ResolvedConfig(
        mode=mode,  # type: ignore[arg-type]
        repo=str(repo.resolve()),
        state_dir=str(state_dir.resolve()),
        python=python or sys.executable,
        config=cfg,
        config_hash=content_hash(hashed),
        task=task,
        oracle=oracle,
        protected=protected,
        ignore=ignore,
        reviewers=reviewers,
        free_tests=list(free_tests or []),
    )


def resolve_reviewers(cfg: GateConfig) -> dict[str, ReviewerDef]:
    """Every reviewer the config's review gates name, read from configs/reviewers/ (or a .md path)."""
    from gatebench.review.defs import load_reviewers

    names = [n for g in cfg.gates if g.kind == "review" for n in g.reviewers]
    return load_reviewers(list(dict.fromkeys(names)))


def write_resolved(resolved: ResolvedConfig, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, resolved.model_dump_json(by_alias=True, indent=1))
