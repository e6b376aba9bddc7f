"""`gatebench prep`: make one cell — a fresh work copy of a task with the hook installed in bench mode.

The cell is built in a hidden sibling folder and renamed into place at the end, so a failure at any
step leaves nothing behind (and a half-built cell can never be mistaken for a prepared one). Paths
written into the cell (the resolved config, the hook command, the deny rules) name the final
location, not the temporary one; the baseline snapshot is path-free, so the rename keeps it valid.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

from gatebench.cell import arms, seal, world
from gatebench.cell.arms import Arm
from gatebench.cell.cell import CellPaths
from gatebench.common.defaults import SETTINGS_TIMEOUT_MARGIN_S
from gatebench.errors import UsageError
from gatebench.installer import settings as st
from gatebench.installer.configs import load_config
from gatebench.installer.install import read_settings, write_settings
from gatebench.installer.statedir import write_state
from gatebench.models.cell import ArmMeta, CellMeta
from gatebench.paths import project_root
from gatebench.suite import variants
from gatebench.suite.benchstate import bench_resolved
from gatebench.suite.taskenv import path_with
from gatebench.suite.tasks import TaskFiles, copy_tree, load_task, tree_hash

# A task repo with at most this many files gets the walker's baseline (taken before the work copy's git exists),
# a larger one the git path's: for a few dozen files the walker's whole stop costs less than starting one git
# (prep's baseline ~50 ms less, each stop and finalize ~15-25 ms less, measured side by side); git's stat cache
# wins from a few thousand files (SPEC.md section 5).
WALKER_MAX_FILES = 1000

GIT_ID = ["-c", "user.name=gatebench", "-c", "user.email=gatebench@localhost", "-c", "commit.gpgsign=false",
          "-c", "core.hooksPath=/dev/null", "-c", "init.defaultBranch=main"]
# Fixed dates make the baseline commit id a function of the content alone.
GIT_ENV = {"GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0"}


def seed_for(task: str, rep: int, base: int = 0) -> int:
    """The sim agent's seed: the same for a (task, rep) under every config, so configs are compared on
    identical first attempts (a paired design), and different across reps."""
    digest = hashlib.sha256(f"{base}:{task}:{rep}".encode()).hexdigest()
    return int(digest[:8], 16)


def deny_rules(paths: list[Path]) -> list[str]:
    """Claude Code permission rules that keep the agent's file tools out of the bench's private folders.

    `//` marks an absolute path in Claude Code's rule syntax. Bash is fenced by the sandbox and the file
    tools by the guard (gatebench/cell/seal.py); these rules are one more layer for the task's own folders.
    """
    return seal.folder_rules(str(p.resolve()) for p in paths)


def work_settings(current: dict, python: str, state: Path, timeout_s: int, deny: list[str]) -> dict:
    return seal.add_deny(st.add(current, python, str(state), timeout_s), deny)


def seal_paths(cell: CellPaths, python: str, tf: TaskFiles | None = None,
               readable: tuple[Path, ...] = ()) -> seal.SealPaths:
    """The seal's paths for a cell at its final place, links resolved (the sandbox binds real paths).

    `python` is the interpreter the task's tests run with (a task environment's, or the bench's): the agent
    gets it back wherever it lives. A matrix cell (`<runs>/<run-id>/cells/<config>/<task>/r<rep>`) also hides
    its run folder (the ledger names hidden tests, the other cells hold other agents' work) and the runs folder:
    --runs-dir may lie outside the bench home. An imported task hides the repository it came from: its
    history holds the fix. `readable`: more folders given back to read only (a plugin arm's copy under the cell,
    and the dependency folders its copy links to, wherever they are).
    """
    root = cell.root.parent.resolve() / cell.root.name
    up = root.parents
    private = [up[3], up[4]] if len(up) > 4 and up[2].name == "cells" else []
    source = tf.task.source if tf is not None else None
    if source is not None:
        repo = Path(source.repo).resolve()
        private += [repo, *seal.git_dirs(repo)]
    return seal.SealPaths(bench=project_root(), cell=root, repo=root / "repo", state=root / "state",
                          home=root / "home", python=python, also_private=tuple(private),
                          readable=tuple(root / p.relative_to(cell.root) if p.is_relative_to(cell.root) else p
                                         for p in readable))


def small_tree(root: Path) -> bool:
    """At most WALKER_MAX_FILES files under root (counting stops there)."""
    limit, n = WALKER_MAX_FILES, 0
    for _dirpath, _dirnames, filenames in os.walk(root):
        n += len(filenames)
        if n > limit:
            return False
    return True


def git_baseline(repo: Path) -> str:
    env = {**os.environ, **GIT_ENV}

    def git(*args: str) -> str:
        r = subprocess.run(["git", *GIT_ID, *args], cwd=repo, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise OSError(f"git {args[0]} failed in {repo}: {r.stderr.strip()[:500]}")
        return r.stdout.strip()

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "--no-verify", "-m", "baseline")
    try:  # the commit's id without one more git process (prep runs once per cell)
        return (repo / ".git" / "refs" / "heads" / "main").read_text().strip()
    except OSError:
        return git("rev-parse", "HEAD")


def _build(tmp: CellPaths, final: CellPaths, tf: TaskFiles, cfg_name: str, cfg, *, rep: int,
           run_id: str | None, seed: int, python: str, arm: ArmMeta | None = None,
           variant: str = variants.NORMAL, mutated: dict[str, str] | None = None) -> CellMeta:
    copy_tree(tf.repo, tmp.repo)
    variants.lay(mutated or {}, tmp.repo)  # an impossible variant's visible tests, before the baseline is taken
    resolved = bench_resolved(cfg, tf, final.repo, final.state, python)
    sfile = tmp.repo / ".claude" / "settings.json"
    current = read_settings(sfile)
    timeout = int(cfg.budget.hook_seconds + SETTINGS_TIMEOUT_MARGIN_S)
    deny = deny_rules([tf.hidden, tf.reference, tf.inject, final.state])
    resolved = arms.with_state_ignore(resolved, arm)  # what a plugin writes into its state folder is not the agent's
    sp = seal_paths(final, resolved.python, tf, readable=tuple(Path(p) for p in arm.readable) if arm else ())
    settings = seal.seal_settings(work_settings(current, python, final.state, timeout, deny), sp, python)
    settings = seal.client_hooks(settings, python, world.stop_socket(sp.tmp))
    if tf.task.env is not None:  # the agent's own `python` is the task environment's
        env_dir = Path(resolved.python).parent.parent
        settings["env"] = {**settings.get("env", {}), "PATH": path_with(env_dir), "VIRTUAL_ENV": str(env_dir)}
    write_settings(sfile, settings)
    # After the settings, so they do not show up as the agent's change (nor does .git/: always ignored). Before
    # the commit for a small tree: the work copy is not a git work tree yet, so the walker takes the baseline,
    # and every later snapshot goes the baseline's way (snapshot.compare).
    if small_tree(tmp.repo):
        write_state(resolved, tmp.repo, tmp.state, strict=True)
        commit = git_baseline(tmp.repo)
    else:
        commit = git_baseline(tmp.repo)
        write_state(resolved, tmp.repo, tmp.state, strict=True)
    seal.write_policy(sp, tmp.state)
    world.write_world(tmp.state, seal.world_of(sp, python))
    tmp.home.mkdir()
    (tmp.root / "tmp").mkdir()
    meta = CellMeta(
        task=tf.id, config=cfg_name, rep=rep, run_id=run_id, seed=seed,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        task_hash=tree_hash(tf.dir, tf.hidden), config_hash=resolved.config_hash,
        hidden_dir=str(tf.hidden.resolve()), reference_dir=str(tf.reference.resolve()),
        inject_dir=str(tf.inject.resolve()), baseline_commit=commit, arm=arm, variant=variant,
    )
    tmp.meta.write_text(meta.model_dump_json(indent=1) + "\n")
    return meta


def prep(task_id: str, config: str, out: Path, *, rep: int = 0, run_id: str | None = None,
         seed: int | None = None, python: str | None = None, force: bool = False, arm: Arm | None = None,
         variant: str = variants.NORMAL) -> CellMeta:
    """Make the cell `out` (see gatebench/cell.py for its layout). Bad input raises UsageError, nothing written.

    With `arm` (a plugin arm, gatebench/cell/arms.py) the cell runs `config` (none) with the plugin's copy
    loaded; its records carry the arm's name as their config. `variant`: `normal`, or `impossible` (the
    task's visible tests mutated to contradict its prompt).
    """
    tf = load_task(task_id)
    cfg = load_config(config)
    plugin_hash = arms.check(arm, []) if arm is not None else None
    variants.check_kind(variant)
    mutated = variants.mutated_files(tf, variants.load_variant(tf, variant)) if variant != variants.NORMAL else {}
    if not tf.hidden.is_dir():
        raise UsageError(f"task {task_id}: hidden tests {tf.hidden} not found")
    out = out.absolute()
    if out.exists() and not force:
        raise UsageError(f"{out} already exists; pass --force to replace it")
    out.parent.mkdir(parents=True, exist_ok=True)
    if force:
        # Debris of a prep or replace that was killed half-way (kill -9 of the matrix): nobody else owns it.
        for stale in [*out.parent.glob(f".{out.name}.prep-*"), *out.parent.glob(f".{out.name}.old-*")]:
            shutil.rmtree(stale, ignore_errors=True)
        seal.drop_worker_tmp(out)  # a short TMPDIR of a run that was killed (seal.worker_tmp)
    tmp = CellPaths(out.parent / f".{out.name}.prep-{os.getpid()}-{uuid.uuid4().hex[:6]}")
    tmp.root.mkdir()
    try:
        arm_meta = None
        if arm is not None:  # before the settings: the seal gives the copy back to read
            copy = arms.copy_into(arm, tmp.root)
            final_copy = out / copy.relative_to(tmp.root)
            arm_meta = ArmMeta(name=arm.name, plugin_source=str(arm.plugin), plugin_dir=str(final_copy),
                               plugin_hash=str(plugin_hash), plugin_name=arms.manifest_name(arm.plugin),
                               readable=[str(p) for p in arms.readable(arm, final_copy)])
        meta = _build(tmp, CellPaths(out), tf, cfg.name, cfg, rep=rep, run_id=run_id,
                      seed=seed_for(task_id, rep) if seed is None else seed, python=python or sys.executable,
                      arm=arm_meta, variant=variant, mutated=mutated)
        if out.exists():
            trash = out.parent / f".{out.name}.old-{uuid.uuid4().hex[:6]}"
            out.rename(trash)
            shutil.rmtree(trash, ignore_errors=True)
        tmp.root.rename(out)
    except BaseException:
        shutil.rmtree(tmp.root, ignore_errors=True)
        raise
    return meta
