"""`gatebench matrix --executor ray`: each cell's attempt is a Ray task on some node of a cluster.

The driver is the local matrix with one method replaced (`_attempt`): the ledger, the progress line,
the cost ceiling, infra retries and resume are the local matrix's own code, so they keep its guarantees
(one record per cell, appended by the driver only; a cell is done when its record is in the ledger).

On the node, one attempt = prep into a private scratch folder, then `gatebench run --finalize` as a
child process (agent code never runs inside the Ray worker), then the whole cell folder goes back to the
driver as a tar archive beside the record. The driver unpacks it under the cell's usual name in the run
folder and only then appends the record, so `analyze` and the report's links work as for a local run.

Failures:
- a node lost mid-cell (or its Ray worker killed): Ray reruns the task on another node (`max_retries`),
  in a fresh scratch folder; the lost attempt's folder never reaches the driver;
- the driver killed: Ray ends the job's tasks, each cell's launcher sees its parent die and stops the CLI;
  rerunning the matrix resumes from the ledger like a local run.

What travels with the job: the bench home's folders (`BENCH_DIRS`, copied into Ray's runtime environment
as its working dir) and the credential variables in the job's `env_vars`. Nothing else of the driver's
machine, and the secrets are never written into a cell or a record: the node's `gatebench run` gets them
in its environment only. A node needs the gatebench package and the pinned Claude Code CLI installed.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from gatebench.matrix.matrix import Cell, Matrix, MatrixSpec, rescue_result

# What a node needs of the bench home; the rest (runs/, work/, the venv, tests) stays on the driver.
BENCH_DIRS = ("tasks", "hidden", "reference", "inject", "configs")
# Ray reruns a task whose node or worker process died; an error inside the task is an infra error
# that the matrix's own retry loop handles (and records in infra.jsonl).
NODE_RETRIES = 3
SCRATCH_ENV = "GATEBENCH_RAY_SCRATCH"
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray keeps every address on loopback
POLL_S = 0.2


def require_ray() -> None:
    """Bad input (exit 2) when the extra is missing; looked up without importing Ray, which reads its
    address settings once, at import (see `connect`)."""
    import importlib.util

    from gatebench.errors import UsageError

    if importlib.util.find_spec("ray") is None:
        raise UsageError("--executor ray needs Ray: pip install 'gatebench[ray]'")


def job_env(env: dict[str, str]) -> dict[str, str]:
    """The variables a node's cells need from the driver: credentials and the API endpoint, nothing else."""
    from gatebench.cell.workers.claude import credentials

    keep = credentials(env)
    for k in ("ANTHROPIC_BASE_URL", SCRATCH_ENV):
        if env.get(k):
            keep[k] = env[k]
    return keep


TASK_DIRS = ("tasks", "hidden", "reference", "inject")  # one sub-folder per task


def stage_bench_home(home: Path, dest: Path, tasks: list[str] | None = None) -> Path:
    """A copy of the bench home's shared folders: Ray uploads a working dir whole, so give it only these, and of
    the per-task folders only the run's tasks (a materialized real task is a whole project's sdist tree: with
    every one of them staged, the upload failed and each cell died with FileNotFoundError)."""
    dest.mkdir(parents=True, exist_ok=True)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for name in BENCH_DIRS:
        src = home / name
        if not src.is_dir():
            continue
        if name in TASK_DIRS and tasks is not None:
            (dest / name).mkdir(parents=True, exist_ok=True)
            for tid in tasks:
                if (src / tid).is_dir():
                    shutil.copytree(src / tid, dest / name / tid, symlinks=True, ignore=skip)
            continue
        shutil.copytree(src, dest / name, symlinks=True, ignore=skip)
    return dest


def pack(folder: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", compresslevel=1) as tar:
        tar.add(str(folder), arcname=".")
    return buf.getvalue()


def unpack(data: bytes, dest: Path) -> None:
    """Put the cell folder at `dest` whole or not at all: extract beside it, then swap it in."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.ray-", dir=dest.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(tmp, filter="tar")
        if dest.exists():
            old = dest.with_name(f".{dest.name}.old-{os.getpid()}-{time.monotonic_ns()}")
            os.replace(dest, old)
            shutil.rmtree(old, ignore_errors=True)
        os.replace(tmp, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def rebase_paths(paths: dict[str, str], node_cell: str, cell_dir: Path) -> dict[str, str]:
    """Record paths written on the node, moved to where the driver unpacked the cell."""
    out = {}
    for k, v in (paths or {}).items():
        rel = os.path.relpath(v, node_cell)
        out[k] = str(cell_dir / rel) if not rel.startswith("..") else v
    return out


def run_cell_on_node(payload: dict[str, Any]) -> dict[str, Any]:
    """The body of one Ray task. Plain data in, plain data out (the record, the packed cell, where it ran)."""
    import json

    home = os.getcwd()  # Ray's runtime environment unpacked the staged bench home here
    os.environ["GATEBENCH_HOME"] = home
    scratch_root = os.environ.get(SCRATCH_ENV) or None
    if scratch_root:
        os.makedirs(scratch_root, exist_ok=True)
    import ray

    node = ray.get_runtime_context().get_node_id()
    # Named by node, so a folder left behind by a node that died says which node it was.
    scratch = tempfile.mkdtemp(prefix=f"gatebench-cell-{node[:12]}-", dir=scratch_root)
    try:
        from gatebench.cell.prep import prep, seed_for
        from gatebench.matrix.matrix import rep_dir

        variant = payload.get("variant", "normal")
        cell_dir = Path(scratch) / "runs" / payload["run_id"] / "cells" / payload["config"] / payload["task"] / \
            rep_dir(payload["rep"], variant)
        t0 = time.monotonic()
        prep(payload["task"], payload["config"], cell_dir, rep=payload["rep"], run_id=payload["run_id"],
             force=True, seed=seed_for(payload["task"], payload["rep"], payload["seed"]), variant=variant)
        prep_s = round(time.monotonic() - t0, 4)
        o = payload["opts"]
        argv = [sys.executable, "-m", "gatebench", "run", str(cell_dir), "--finalize", "--quiet",
                "--worker", payload["worker"], "--model", o["model"], "--max-turns", str(o["max_turns"]),
                "--timeout-s", str(o["timeout_s"]), "--max-budget-usd", str(o["max_budget_usd"]),
                "--policy", o["policy"], "--attempt", str(payload["attempt"]), "--prep-s", str(prep_s)]
        if not o.get("sealed"):
            argv.append("--unsealed")  # a sealed run proves the seal on each node (its probe, cached per machine)
        env = {**os.environ, "GATEBENCH_HOME": home}
        log = cell_dir / "run.log"
        rc = _child(argv, log, env, float(o["timeout_s"]) + 300, "wb")
        # A run that died (or wedged past its own wall cap) before finalize is scored as the local matrix does.
        tail = rescue_result(cell_dir, lambda: _child([sys.executable, "-m", "gatebench", "finalize", str(cell_dir),
                                                       "--fresh-oracle"], log, env, 600, "ab"))
        if tail is not None:
            return {"record": None, "error": f"the cell's run exited {rc} with no result: {tail}"}
        return {"record": json.loads((cell_dir / "result.json").read_text()), "tar": pack(cell_dir),
                "node_cell": str(cell_dir), "node": node, "pid": os.getpid()}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _child(argv: list[str], log: Path, env: dict, timeout_s: float, mode: str) -> int | None:
    """A gatebench child on the node, its output to `log`; None when it ran past `timeout_s` and was killed.
    Its cwd is the folder holding this gatebench package: `-m` puts the cwd first on the path, and the Ray
    worker's own cwd (the job's working dir) must never decide which gatebench runs."""
    from gatebench.paths import package_parent

    with open(log, mode) as out:
        try:
            return subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                  timeout=timeout_s, check=False, cwd=package_parent()).returncode
        except subprocess.TimeoutExpired:
            return None


class RayMatrix(Matrix):
    """The local matrix, with each attempt sent to the cluster instead of a local child."""

    def __init__(self, spec: MatrixSpec, out=sys.stderr, address: str | None = None):
        super().__init__(spec, out)
        self.address = address
        self.refs: dict[str, Any] = {}
        self.refs_lock = threading.Lock()
        self._remote: Any = None  # the cell as a Ray remote function, made at open
        self._staging: tempfile.TemporaryDirectory | None = None

    def connect(self) -> None:
        require_ray()
        if not self.address:
            # A private cluster on loopback. Ray reads this once, when it is imported, and otherwise
            # rewrites 127.0.0.1 to the host's outward address when it dials its own GCS.
            os.environ.setdefault(LOOPBACK_ENV, "0")
        import ray

        from gatebench.paths import project_root

        self._staging = tempfile.TemporaryDirectory(prefix="gatebench-ray-home-")
        staged = stage_bench_home(project_root(), Path(self._staging.name) / "home", list(self.spec.tasks))
        runtime_env = {"working_dir": str(staged), "env_vars": job_env(dict(os.environ))}
        kwargs: dict[str, Any] = {"runtime_env": runtime_env, "log_to_driver": False, "logging_level": "ERROR",
                                  "configure_logging": True}
        if self.address:
            kwargs["address"] = self.address
        else:
            # A private single-node cluster: the same code path as a real cluster, no network.
            kwargs.update(include_dashboard=False, _node_ip_address="127.0.0.1",
                          num_cpus=max(self.spec.jobs, 1))
        ray.init(**kwargs)
        self._remote = ray.remote(num_cpus=1, max_retries=NODE_RETRIES, retry_exceptions=False)(run_cell_on_node)
        print(f"[matrix] ray: {len(ray.nodes())} node(s), {ray.cluster_resources().get('CPU', 0):g} CPU "
              f"({self.address or 'a local cluster'})", file=self.out, flush=True)

    def close(self) -> None:
        import ray

        if ray.is_initialized():
            ray.shutdown()
        if self._staging is not None:
            self._staging.cleanup()

    def kill_all(self, sig: int = 15) -> None:
        self.stop.set()
        import ray

        with self.refs_lock:
            refs = list(self.refs.values())
        for ref in refs:
            try:
                ray.cancel(ref, force=True)
            except Exception:
                pass

    def _attempt(self, cell: Cell, attempt: int) -> dict | None:
        import ray

        spec = self.spec
        payload = {"run_id": spec.run_id, "config": cell.config, "task": cell.task, "rep": cell.rep,
                   "variant": cell.variant, "seed": spec.seed, "worker": spec.worker, "attempt": attempt,
                   "opts": spec.cell_opts()}
        t0 = time.monotonic()
        ref = self._remote.remote(payload)
        with self.refs_lock:
            self.refs[cell.id] = ref
        try:
            while True:
                ready, _ = ray.wait([ref], timeout=POLL_S)
                if ready:
                    break
                if self.stop.is_set():
                    ray.cancel(ref, force=True)
                    return None
            out = ray.get(ref)
        except ray.exceptions.RayError as e:
            if self.stop.is_set():
                return None  # cancelled by the user: not a result, rerun on resume
            return self._bare_record(cell, attempt, f"ray: {type(e).__name__}: {str(e)[:1500]}")
        finally:
            with self.refs_lock:
                self.refs.pop(cell.id, None)
        if self.stop.is_set():
            return None
        if out.get("record") is None:
            return self._bare_record(cell, attempt, out.get("error") or "the node returned no record")
        cell_dir = cell.dir(spec.run_dir)
        unpack(out["tar"], cell_dir)
        rec = out["record"]
        rec["paths"] = rebase_paths(rec.get("paths") or {}, out["node_cell"], cell_dir)
        (cell_dir / "result.json").write_text(_dump(rec))
        rec.setdefault("timing", {})["cell_wall_s"] = round(time.monotonic() - t0, 3)
        rec["paths"] = {k: os.path.relpath(v, spec.run_dir) for k, v in rec["paths"].items()}
        return rec

    def start_children(self) -> None:
        """Cells run on the cluster's nodes, each as a `gatebench run` child there: no local fork server."""

    def run(self) -> dict:
        self.connect()
        try:
            return super().run()
        finally:
            self.close()


def _dump(rec: dict) -> str:
    import json

    return json.dumps(rec, indent=1) + "\n"
