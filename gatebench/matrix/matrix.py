"""`gatebench matrix`: every (config, task, rep) cell, N at a time, each finished cell one ledger line.

Each cell is prepped here (atomically), then run and finalized by a child process in its own session
(forked from a server that has the worker and finalize modules loaded), which this process can stop
as a whole. Resume is the default: a cell
is done when its record is in the ledger. An infra error is retried (bounded, `retries`); its
attempts go to `infra.jsonl`, and only the last one reaches the ledger, so the ledger holds exactly
one record per cell. Once the dollars recorded reach the ceiling no new cell starts. SIGINT/SIGTERM
stop every cell's processes; cells cut that way are not recorded and rerun on resume.

One owner per run (RunOwner): a matrix holds `<run>/.owner` exclusively while it runs, and every
cell child it starts holds `<run>/.alive` shared for as long as it lives. A second matrix on the
same run refuses while the owner lives, and waits (printing what for) while processes of a dead
owner still run: its cell children (`.alive`) and anything carrying one of its attempt markers. It
never kills them itself: every attempt cleans up after itself (workers/launch.py), and a cleanup
only ever kills its own attempt's processes, named by a marker unique to the attempt.
"""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import multiprocessing.process
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from gatebench.cell.arms import BASE_CONFIG, Arm
from gatebench.cell.arms import check as check_arm
from gatebench.cell.cell import CellPaths
from gatebench.cell.prep import prep, seed_for
from gatebench.cell.workers import WORKERS, WorkerOptions
from gatebench.cell.workers.launch import attempt_marker, cell_processes, reap
from gatebench.common.util import signal_group, write_atomic
from gatebench.errors import UsageError
from gatebench.installer.configs import load_config
from gatebench.matrix import die_with_matrix, ledger
from gatebench.matrix.die_with_matrix import PARENT_ENV
from gatebench.oracle.control import oracle_judged
from gatebench.paths import PACKAGE_DIR, configs_dir, package_parent, project_root
from gatebench.suite.tasks import load_task

OWNER_WAIT_S = 30.0  # how long a new owner waits for a dead owner's processes before it refuses

# Options that must not change within a run: the same caps for every cell, or the comparison is confounded.
PINNED = ("worker", "model", "max_turns", "timeout_s", "max_budget_usd", "policy")


@dataclass
class MatrixSpec:
    configs: list[str]
    tasks: list[str]
    reps: int = 1
    jobs: int = 1
    worker: str = "sim"
    opts: WorkerOptions = field(default_factory=WorkerOptions)
    max_cost_usd: float | None = None
    run_id: str = ""
    runs_dir: Path = field(default_factory=lambda: project_root() / "runs")
    retries: int = 2
    seed: int = 0
    arms: dict[str, Path] = field(default_factory=dict)  # plugin arms (--arm NAME=PLUGIN_DIR): name -> plugin folder
    variants: list[str] = field(default_factory=lambda: ["normal"])

    @property
    def run_dir(self) -> Path:
        return self.runs_dir / self.run_id

    @property
    def ledger(self) -> Path:
        return self.run_dir / "results.jsonl"

    @property
    def infra_log(self) -> Path:
        return self.run_dir / "infra.jsonl"

    def cell_opts(self) -> dict:
        """The run's worker options as plain data, for a cell's child (here, or on a Ray node)."""
        o = self.opts
        return {"model": o.model, "max_turns": o.max_turns, "timeout_s": o.timeout_s,
                "max_budget_usd": o.max_budget_usd, "policy": o.policy, "sealed": o.sealed}

    def pinned(self) -> dict:
        o = self.opts
        pins = {"worker": self.worker, "model": o.model, "max_turns": o.max_turns, "timeout_s": o.timeout_s,
                "max_budget_usd": o.max_budget_usd, "policy": o.policy if self.worker == "sim" else None}
        if self.arms:  # only then: runs from before plugin arms resume as they were
            pins["arms"] = {n: check_arm(Arm(n, p), []) for n, p in sorted(self.arms.items())}
        return pins


@dataclass(frozen=True)
class Cell:
    config: str
    task: str
    rep: int
    variant: str = "normal"

    @property
    def id(self) -> str:
        return cell_id(self.config, self.task, self.rep, self.variant)

    def dir(self, run_dir: Path) -> Path:
        return run_dir / "cells" / self.config / self.task / rep_dir(self.rep, self.variant)


def cell_id(config: str, task: str, rep: int, variant: str = "normal") -> str:
    """`<config>/<task>/<rep>`; another variant than normal adds `/<variant>` (normal cells keep their old ids,
    so ledgers from before variants resume and compare as they were)."""
    return f"{config}/{task}/{rep}" + ("" if variant == "normal" else f"/{variant}")


def rep_dir(rep: int, variant: str = "normal") -> str:
    """The cell's folder name under cells/<config>/<task>/: `r<rep>`, or `r<rep>-<variant>` (same depth)."""
    return f"r{rep}" + ("" if variant == "normal" else f"-{variant}")


def default_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


def all_configs() -> list[str]:
    return sorted(p.stem for p in configs_dir().glob("*.yaml"))


def plan(spec: MatrixSpec) -> list[Cell]:
    return [Cell(c, t, r, v) for r in range(spec.reps) for t in spec.tasks for v in spec.variants
            for c in [*spec.configs, *spec.arms]]


def preflight(spec: MatrixSpec, env: dict | None = None) -> dict:
    """Everything checked before the first cell, above all before the first paid call. Raises UsageError."""
    env = dict(os.environ if env is None else env)
    _check_plan(spec)
    names, reviewer_models = _check_configs(spec)
    if spec.arms:
        load_config(BASE_CONFIG)
        for n, p in spec.arms.items():
            check_arm(Arm(n, p), list(names))
    _check_tasks(spec)
    if spec.worker == "sim":
        from gatebench.cell.workers.sim import load_policy

        load_policy(spec.opts.policy)
    version = _cli_version(env)
    if spec.worker == "claude":
        from gatebench.cell.workers.claude import credential_problem

        problem = credential_problem(env)
        if problem:
            raise UsageError(problem)
    return {"cli_version": version, "reviewer_models": {m: sorted(set(cs)) for m, cs in reviewer_models.items()}}


def _check_plan(spec: MatrixSpec) -> None:
    """The worker, the counts and the variant names."""
    if spec.worker not in WORKERS:
        raise UsageError(f"unknown worker {spec.worker!r} (known: {', '.join(sorted(WORKERS))})")
    if not spec.configs or not spec.tasks:
        raise UsageError("nothing to run: no configs or no tasks")
    if spec.reps < 1 or spec.jobs < 1:
        raise UsageError("--reps and --jobs must be at least 1")
    from gatebench.suite import variants

    if not spec.variants or len(set(spec.variants)) != len(spec.variants):
        raise UsageError(f"--variant: name each variant once (got {','.join(spec.variants) or 'none'})")
    for v in spec.variants:
        variants.check_kind(v)


def _check_configs(spec: MatrixSpec) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(config -> its name, model -> the configs whose reviewers run it on the CLI)."""
    from gatebench.installer.configs import resolve_reviewers

    names = {}
    reviewer_models: dict[str, list[str]] = {}
    for c in spec.configs:
        cfg = load_config(c)
        if cfg.name != Path(c).stem:
            raise UsageError(f"config {c}: its name {cfg.name!r} differs from the file name; cells are named by it")
        names[c] = cfg.name
        for d in resolve_reviewers(cfg).values():
            if d.backend == "claude":
                reviewer_models.setdefault(d.model or "(the CLI's default)", []).append(cfg.name)
    return names, reviewer_models


def _check_tasks(spec: MatrixSpec) -> None:
    """Each task loads, has its hidden tests and injections, and each variant of it can be made."""
    from gatebench.suite import variants

    for t in spec.tasks:
        tf = load_task(t)
        if not tf.hidden.is_dir():
            raise UsageError(f"task {t}: hidden tests {tf.hidden} not found")
        tf.injections()
        for v in spec.variants:
            if v != variants.NORMAL:
                variants.mutated_files(tf, variants.load_variant(tf, v))


def _cli_version(env: dict) -> str:
    from gatebench.claude_cli import ClaudeNotFoundError, cli_version, find_claude

    try:
        return cli_version(find_claude(env))
    except ClaudeNotFoundError as e:
        raise UsageError(str(e))


def check_pinned(spec: MatrixSpec) -> None:
    """A resumed run must keep its caps; a new run records them."""
    path = spec.run_dir / "run.json"
    if path.exists():
        old = json.loads(path.read_text()).get("pinned", {})
        diff = {k: (old.get(k), v) for k, v in spec.pinned().items() if old.get(k) != v}
        if diff:
            what = ", ".join(f"{k}: {a!r} -> {b!r}" for k, (a, b) in diff.items())
            raise UsageError(f"run {spec.run_id} was started with other settings ({what}); "
                             "the same caps must hold for every cell: use a new --run-id")


def write_run_json(spec: MatrixSpec, pre: dict) -> None:
    path = spec.run_dir / "run.json"
    if path.exists():
        return
    spec.run_dir.mkdir(parents=True, exist_ok=True)
    data = {"run_id": spec.run_id, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "pinned": spec.pinned(), "cli_version": pre.get("cli_version"), "seed": spec.seed}
    write_atomic(path, json.dumps(data, indent=1) + "\n")


def lock_holders(path: Path) -> list[int]:
    """Pids holding a flock on `path` (from /proc/locks; the pid is whoever took the lock)."""
    try:
        ino = os.stat(path).st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return []
    pids = []
    for line in lines:
        parts = line.split()
        if "->" in parts:
            continue  # a waiter, not a holder
        for i, part in enumerate(parts):
            bits = part.split(":")
            if len(bits) == 3 and bits[2].isdigit() and int(bits[2]) == ino and i > 0 and parts[i - 1].isdigit():
                pids.append(int(parts[i - 1]))
    return sorted(set(pids))


def describe(pids: list[int]) -> str:
    out = []
    for pid in pids[:8]:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        out.append(f"{pid} ({cmd[:70]})")
    more = f" and {len(pids) - 8} more" if len(pids) > 8 else ""
    return ", ".join(out) + more


class RunOwner:
    """The lock that makes one process tree at a time the owner of a run folder (see the module doc)."""

    def __init__(self, run_dir: Path, out: TextIO = sys.stderr, wait_s: float = OWNER_WAIT_S):
        self.run_dir, self.out, self.wait_s = run_dir, out, wait_s
        self.token = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"  # the owner part of every attempt marker
        self.fd: int | None = None

    @property
    def alive_path(self) -> Path:
        return self.run_dir / ".alive"

    def acquire(self) -> None:
        """Become the owner, or raise UsageError saying who owns the run or what still runs."""
        self.run_dir.mkdir(parents=True, exist_ok=True)
        path = self.run_dir / ".owner"
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            who = os.pread(fd, 200, 0).decode(errors="replace").strip()
            os.close(fd)
            raise UsageError(f"run {self.run_dir.name} is owned by a running matrix ({who or 'pid unknown'}); "
                             f"wait for it to finish, or stop it (SIGTERM), then rerun")
        try:
            self._wait_for_survivors()
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, owner {self.token}\n".encode(), 0)
        self.fd = fd

    def _wait_for_survivors(self) -> None:
        deadline = time.monotonic() + self.wait_s
        alive = os.open(self.alive_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        said = 0.0
        try:
            while True:
                try:
                    fcntl.flock(alive, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    left = cell_processes(f"{self.run_dir.resolve()}/")
                    fcntl.flock(alive, fcntl.LOCK_UN)
                except BlockingIOError:
                    left = lock_holders(self.alive_path) or [-1]
                if not left:
                    return
                now = time.monotonic()
                what = describe(left) or "cell processes"
                if now > deadline:
                    raise UsageError(f"run {self.run_dir.name}: processes of an earlier matrix on this run still "
                                     f"run after {self.wait_s:g} s: {what}; wait for them or kill them, then rerun")
                if now - said >= 2.0:
                    print(f"[matrix] waiting for {len(left)} process(es) of an earlier matrix on run "
                          f"{self.run_dir.name} to end: {what}", file=self.out, flush=True)
                    said = now
                time.sleep(0.1)
        finally:
            os.close(alive)

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def fmt_s(s: float) -> str:
    s = int(max(s, 0))
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    def __init__(self, total: int, done: list[dict], out: TextIO):
        self.total, self.out = total, out
        self.done = len(done)
        self.solved = sum(1 for r in done if r.get("solved"))
        self.cost = sum(float(r.get("cost_usd") or 0) + float(r.get("reviewer_cost_usd") or 0) for r in done)
        self.infra = sum(1 for r in done if r.get("status") == "infra_error")
        self.t0 = time.monotonic()
        self.finished_here = 0
        self.lock = threading.Lock()
        self.money = "$"

    def add_cost(self, usd: float) -> None:
        with self.lock:
            self.cost += usd

    def record(self, rec: dict) -> None:
        with self.lock:
            self.done += 1
            self.finished_here += 1
            self.solved += bool(rec.get("solved"))
            self.infra += rec.get("status") == "infra_error"
            left = self.total - self.done
            rate = (time.monotonic() - self.t0) / self.finished_here
            print(f"[matrix] {self.done}/{self.total} cells | solved {self.solved} | {self.money}{self.cost:.2f} | "
                  f"infra {self.infra} | ETA {fmt_s(rate * left)} | {rec.get('cell_id')}: {rec.get('status')}"
                  f"{' solved' if rec.get('solved') else ''}{' ' + rec['outcome'] if rec.get('outcome') else ''}",
                  file=self.out, flush=True)


class Matrix:
    def __init__(self, spec: MatrixSpec, out: TextIO = sys.stderr):
        self.spec, self.out = spec, out
        self.stop = threading.Event()
        self.procs: dict[int, multiprocessing.process.BaseProcess] = {}
        self.procs_lock = threading.Lock()
        self.progress: Progress | None = None
        self.not_started: list[str] = []
        self.owner = RunOwner(spec.run_dir, out)
        self.code: tuple = (str(PACKAGE_DIR), None)  # start_children sets it

    # ---------------------------------------------------------------- one cell

    def _child(self, target, args: tuple, name: str) -> int | None:
        """Run `target(*args)` in a child forked from a preloaded server: a fresh `gatebench run` process
        would spend a third of a second per cell importing what the server has imported once. Agent code
        (tests, the oracle) only ever runs under such a child, never in the matrix process."""
        proc = _forkserver().Process(target=target, args=(*args, self.code, str(self.owner.alive_path)),
                                     name=name, daemon=False)
        proc.start()
        with self.procs_lock:
            self.procs[proc.pid] = proc
        if self.stop.is_set():  # the stop came between the caller's check and the start
            signal_group(proc.pid, signal.SIGTERM, or_leader=True)
        try:
            # The child enforces the wall cap itself; this bound only guards against a wedged child.
            proc.join(timeout=self.spec.opts.timeout_s + 300)
            if proc.exitcode is None:
                signal_group(proc.pid, signal.SIGKILL, or_leader=True)
                proc.join()
        finally:
            with self.procs_lock:
                self.procs.pop(proc.pid, None)
        return proc.exitcode

    def _run_child(self, cell_dir: Path, attempt: int, prep_s: float) -> int | None:
        marker = attempt_marker(cell_dir, self.owner.token)
        opts = {**self.spec.cell_opts(), "attempt": attempt, "marker": marker}
        try:
            return self._child(cell_child, (str(cell_dir), self.spec.worker, opts, prep_s), f"cell {cell_dir.name}")
        finally:
            reap(marker)  # this attempt's processes only: another attempt on the cell is never touched

    def _attempt(self, cell: Cell, attempt: int) -> dict | None:
        spec = self.spec
        cell_dir = cell.dir(spec.run_dir)
        t0 = time.monotonic()
        # a plugin arm: the no-gate config with the plugin loaded (cell/arms.py)
        arm = Arm(cell.config, spec.arms[cell.config]) if cell.config in spec.arms else None
        try:
            prep(cell.task, BASE_CONFIG if arm else cell.config, cell_dir, rep=cell.rep, run_id=spec.run_id,
                 force=True, seed=seed_for(cell.task, cell.rep, spec.seed), arm=arm, variant=cell.variant)
        except UsageError:
            raise
        except Exception as e:
            return self._bare_record(cell, attempt, f"prep failed: {type(e).__name__}: {e}")
        prep_s = time.monotonic() - t0
        if self.stop.is_set():
            return None
        self._run_child(cell_dir, attempt, prep_s)
        if self.stop.is_set():
            return None  # cut by the user: not a result, rerun on resume
        # In a child too: finalize runs the oracle on the agent's work.
        tail = rescue_result(cell_dir, lambda: self._child(finalize_child, (str(cell_dir), attempt, prep_s),
                                                           f"finalize {cell_dir.name}"))
        if self.stop.is_set():
            return None
        if tail is not None:
            return self._bare_record(cell, attempt, f"the cell's run process failed and finalize could not "
                                                    f"score it: {tail}")
        rec = json.loads(CellPaths(cell_dir).result.read_text())
        rec.setdefault("timing", {})["cell_wall_s"] = round(time.monotonic() - t0, 3)
        paths = rec.get("paths") or {}
        rec["paths"] = {k: os.path.relpath(v, spec.run_dir) for k, v in paths.items()}
        return rec

    def _bare_record(self, cell: Cell, attempt: int, error: str) -> dict:
        """A valid infra_error record for a cell that never got as far as a worker."""
        from gatebench.cell.finalize import bare_record

        return bare_record(run_id=self.spec.run_id, cell_id=cell.id, config=cell.config, task=cell.task, rep=cell.rep,
                           variant=cell.variant, worker=self.spec.worker, attempt_no=attempt, error=error,
                           model=self.spec.opts.model).model_dump(mode="json")

    def run_cell(self, cell: Cell, prior_attempts: int) -> None:
        spec = self.spec
        attempt = prior_attempts + 1
        while not self.stop.is_set():
            if self._over_budget():
                self.not_started.append(cell.id)
                return
            rec = self._attempt(cell, attempt)
            if rec is None:
                return
            self.progress.add_cost(float(rec.get("cost_usd") or 0) + float(rec.get("reviewer_cost_usd") or 0))  # type: ignore[union-attr]
            last = attempt >= 1 + spec.retries
            if rec.get("status") == "infra_error" and not last:
                ledger.append(spec.infra_log, {**_infra_line(rec, cell, attempt), "final": False})
                print(f"[matrix] {cell.id}: infra error (attempt {attempt}), retrying: {rec.get('error')}",
                      file=self.out, flush=True)
                attempt += 1
                continue
            if rec.get("status") == "infra_error":
                ledger.append(spec.infra_log, {**_infra_line(rec, cell, attempt), "final": True})
            ledger.append(spec.ledger, rec)
            self.progress.record(rec)  # type: ignore[union-attr]
            return

    def _over_budget(self) -> bool:
        ceiling = self.spec.max_cost_usd
        return ceiling is not None and self.progress.cost >= ceiling  # type: ignore[union-attr]

    # ---------------------------------------------------------------- the whole run

    def kill_all(self, sig: int = signal.SIGTERM) -> None:
        self.stop.set()
        with self.procs_lock:
            procs = list(self.procs.values())
        for p in procs:
            signal_group(p.pid, sig, or_leader=True)  # type: ignore[arg-type]

    def run(self) -> dict:
        self.owner.acquire()  # before the ledger is read: a dead owner's last cells may still be recording
        try:
            self.start_children()
            return self._run()
        finally:
            self.owner.release()

    def start_children(self) -> None:
        """Start the fork server the cells' children come from, here in the calling thread (see _forkserver), and
        note the code they run: this package, and the checkout's git state now (what every record says)."""
        from gatebench.cell.versions import git_state

        self.code = (str(PACKAGE_DIR), git_state(project_root()))
        _forkserver()

    def _run(self) -> dict:
        spec = self.spec
        cells = plan(spec)
        if spec.ledger.exists():
            ledger.repair(spec.ledger)
        records = ledger.read(spec.ledger)
        done_ids = {r.get("cell_id") for r in records}
        wanted = {c.id for c in cells}
        done = [r for r in records if r.get("cell_id") in wanted]
        attempts: dict[str, int] = {}
        for line in ledger.read(spec.infra_log):
            attempts[line.get("cell_id")] = max(attempts.get(line.get("cell_id"), 0), int(line.get("attempt_no") or 0))  # type: ignore[arg-type, index]
        todo = [c for c in cells if c.id not in done_ids]
        self.progress = Progress(len(cells), done, self.out)
        self.progress.money = "sim $" if spec.worker == "sim" else "$"  # simulated dollars are never paid
        self.progress.add_cost(sum(float(x.get("cost_usd") or 0) for x in ledger.read(spec.infra_log)
                                   if not x.get("final")))
        print(f"[matrix] run {spec.run_id}: {len(cells)} cells, {len(done)} already in the ledger, "
              f"{len(todo)} to run, {spec.jobs} at a time", file=self.out, flush=True)
        interrupted = False
        old_term = signal.signal(signal.SIGTERM, lambda *_: self.kill_all()) \
            if threading.current_thread() is threading.main_thread() else None
        pool = ThreadPoolExecutor(max_workers=spec.jobs, thread_name_prefix="cell")
        try:
            futures = {pool.submit(self.run_cell, c, attempts.get(c.id, 0)) for c in todo}
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for f in finished:
                    f.result()
        except KeyboardInterrupt:
            interrupted = True
            self.kill_all()
        finally:
            if interrupted or self.stop.is_set():
                self.kill_all()
            pool.shutdown(wait=True, cancel_futures=True)
            if old_term is not None:
                signal.signal(signal.SIGTERM, old_term)
        final = [r for r in ledger.read(spec.ledger) if r.get("cell_id") in wanted]
        summary = {"run_id": spec.run_id, "cells": len(cells), "recorded": len({r["cell_id"] for r in final}),
                   "solved": sum(1 for r in final if r.get("solved")),
                   "infra_error": sum(1 for r in final if r.get("status") == "infra_error"),
                   "oracle_judged": sum(1 for r in final if oracle_judged(str(r.get("status")), r.get("oracle"))),
                   "cost_usd": round(self.progress.cost, 4), "not_started_cost_ceiling": sorted(self.not_started),
                   "interrupted": interrupted or self.stop.is_set(), "ledger": str(spec.ledger)}
        if self.not_started:
            print(f"[matrix] cost ceiling ${spec.max_cost_usd:g} reached: {len(self.not_started)} cell(s) not started",
                  file=self.out, flush=True)
        return summary


def rescue_result(cell_dir: Path, finalize: Callable[[], object]) -> str | None:
    """None once the cell has its result; else the tail of its run.log, what its process said last.

    A run that died before finalize (crash, OOM kill) is scored as it is, by `finalize`: an infra error.
    """
    result = CellPaths(cell_dir).result
    if not result.exists():
        finalize()
    if result.exists():
        return None
    return (cell_dir / "run.log").read_text(errors="replace")[-800:]


def _infra_line(rec: dict, cell: Cell, attempt: int) -> dict:
    return {"cell_id": cell.id, "attempt_no": attempt, "status": "infra_error", "error": rec.get("error"),
            "cost_usd": rec.get("cost_usd", 0.0), "ts": datetime.now(UTC).isoformat(timespec="seconds")}


_FORKSERVER = None
_FORKSERVER_LOCK = threading.Lock()


def _forkserver():
    """A multiprocessing context whose server has this gatebench's worker and finalize modules loaded.

    The server is `python -c ...`, so its sys.path starts with its cwd (Python 3.11's forkserver ignores the
    parent's sys.path), and the preload imports `gatebench` from there: from a bench home that is another copy
    of the repository, that would be the other copy's package. So the server is started from the folder that
    holds this package (the matrix calls this from its main thread, before any cell thread runs, since the
    working directory is the process's); cell children check the package they run (`_same_package`).

    When this process dies, even by kill -9, the kernel kills the server (PR_SET_PDEATHSIG, armed by the
    `die_with_matrix` preload; its "alive" pipe is only a second way); the cell children it forked then get
    SIGTERM (their own PR_SET_PDEATHSIG), which their launcher treats as "stop everything now".
    """
    global _FORKSERVER
    with _FORKSERVER_LOCK:
        if _FORKSERVER is None:
            import multiprocessing.forkserver

            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["gatebench.matrix.die_with_matrix", "gatebench.matrix.matrix", "gatebench.cell.workers.sim", "gatebench.cell.workers.claude",
                                        "gatebench.cell.finalize"])
            cwd = os.getcwd()
            os.chdir(package_parent())
            # PR_SET_PDEATHSIG fires when the starting *thread* ends: armed only from the main thread.
            if threading.current_thread() is threading.main_thread():
                os.environ[PARENT_ENV] = str(os.getpid())
            try:
                multiprocessing.forkserver.ensure_running()
            finally:
                os.environ.pop(PARENT_ENV, None)
                os.chdir(cwd)
            _FORKSERVER = ctx
        return _FORKSERVER


def _same_code(code: tuple) -> None:
    """Refuse to run a cell under another gatebench than the matrix's (exit 2: the record names both); record
    the checkout's git state as the matrix saw it."""
    package, state = code
    here = str(PACKAGE_DIR)
    if here != package:
        print(f"gatebench: error: this cell process runs the gatebench package in {here}, not the matrix's "
              f"{package}", flush=True)
        sys.exit(2)
    if state is not None:
        from gatebench.cell.versions import pin_git_state

        pin_git_state(project_root(), (state[0], state[1]))


def _term(*_: object) -> None:
    raise KeyboardInterrupt


def _child_setup(cell_dir: str, alive_path: str, log_mode: int) -> None:
    """Common start of a matrix child: own group, dies with the fork server (so with the matrix), holds
    the run's `.alive` lock while it lives, writes to <cell>/run.log."""
    os.setsid()  # its own group, which the matrix stops as a whole
    signal.signal(signal.SIGTERM, _term)
    signal.signal(signal.SIGINT, _term)
    # The server's pid as the server itself noted it: a getppid() read here could already be init's, if the
    # server died between the fork and this line, and the child would then run its cell as an orphan.
    parent = die_with_matrix.SERVER_PID or os.getppid()
    import multiprocessing.forkserver as mpfs
    import multiprocessing.resource_tracker as mprt

    from gatebench.common.proc import set_pdeathsig

    # The fork server hands each child the write ends of its "alive" pipe and of the resource tracker's
    # pipe; each exits only when every holder closed its pipe: a child keeping them would keep the server
    # and the tracker alive after the matrix, for as long as the child itself unwinds. Cells use no
    # multiprocessing resource, so neither is needed here.
    for holder, attr in ((getattr(mpfs, "_forkserver", None), "_forkserver_alive_fd"),
                         (getattr(mprt, "_resource_tracker", None), "_fd")):
        if holder is not None and getattr(holder, attr, None) is not None:
            try:
                os.close(getattr(holder, attr))
            except OSError:
                pass
            setattr(holder, attr, None)

    # The fork server exits when the matrix dies (even by kill -9): SIGTERM here then unwinds the
    # launcher, which kills the CLI and everything it started at once.
    set_pdeathsig(signal.SIGTERM)
    if os.getppid() != parent:
        sys.exit(130)
    alive = os.open(alive_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    fcntl.flock(alive, fcntl.LOCK_SH)  # released by the kernel when this process ends, however it ends
    from gatebench.cell.workers.launch import hold_for_life

    hold_for_life(alive)  # ... and its attempt's watchdog, which outlives it by one sweep
    fd = os.open(os.path.join(cell_dir, "run.log"), os.O_WRONLY | os.O_CREAT | log_mode, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def cell_child(cell_dir: str, worker: str, opts: dict, prep_s: float, code: tuple, alive_path: str) -> None:
    """The body of one cell's child process: run the worker, then finalize. Output goes to <cell>/run.log."""
    _child_setup(cell_dir, alive_path, os.O_TRUNC)
    _same_code(code)
    from gatebench.cell.finalize import finalize
    from gatebench.cell.workers import WorkerOptions, run_worker

    cell = CellPaths(Path(cell_dir))
    try:
        info = run_worker(worker, cell, WorkerOptions(**opts))
        print(f"worker {worker}: rc={info.get('rc')} wall={info.get('wall_s')} killed={info.get('killed')}", flush=True)
        finalize(cell, attempt_no=opts["attempt"], extra_timing={"prep_s": round(prep_s, 4)})
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
    except UsageError as e:
        print(f"gatebench: error: {e}", flush=True)
        sys.exit(2)


def finalize_child(cell_dir: str, attempt: int, prep_s: float, code: tuple, alive_path: str) -> None:
    """Score a cell whose run child died before finalize; the record names what the child said last."""
    log = Path(cell_dir) / "run.log"
    tail = log.read_text(errors="replace")[-800:].strip() if log.exists() else ""
    _child_setup(cell_dir, alive_path, os.O_APPEND)
    _same_code(code)
    from gatebench.cell.finalize import finalize

    try:
        rec = finalize(CellPaths(Path(cell_dir)), attempt_no=attempt, extra_timing={"prep_s": round(prep_s, 4)})
        if rec.status == "infra_error" and tail:
            rec.error = f"{rec.error}; the cell's process said: {tail}"
            cp = CellPaths(Path(cell_dir))
            cp.result.write_text(rec.model_dump_json(indent=1) + "\n")
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:
        print(f"finalize failed: {type(e).__name__}: {e}", flush=True)
        sys.exit(1)


def default_tasks() -> list[str]:
    """Every task in the bench home but the marked ones (suites.default_ids)."""
    from gatebench.suite.suites import default_ids

    return default_ids(project_root())
