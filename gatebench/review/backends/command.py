"""Backend `command`: any executable as a reviewer (stdlib only).

It runs in the read-only copy of the work tree and gets one JSON object on stdin:
    {"reviewer", "prompt", "model", "task", "diff", "files": [{"path", "status"}], "test_output",
     "agent_message", "workdir"}
and must print one JSON verdict on stdout (gatebench.review.verdict), optionally with `cost_usd`.
A non-zero exit, a timeout, or anything but one readable verdict is an error.
"""

from __future__ import annotations

import json
import shlex
import time

from gatebench.review import runproc
from gatebench.review.backends import ReviewJob, keep_log
from gatebench.review.verdict import ReviewResult, VerdictError, decode, error, from_text


def stdin_payload(job: ReviewJob) -> bytes:
    data = {"reviewer": job.name, "prompt": job.prompt, "model": job.spec.get("model"),
            **job.inputs.to_dict(), "workdir": job.workdir}
    return json.dumps(data).encode("utf-8")


def run(job: ReviewJob) -> ReviewResult:
    t0 = time.monotonic()
    meta = {"backend": "command", "model": job.spec.get("model")}
    command = (job.spec.get("command") or "").replace("{python}", shlex.quote(job.python))
    if not command.strip():
        return error(job.name, "no command to run (the definition's `command` is empty)", **meta)  # type: ignore[arg-type]
    env = {**job.env, "GATEBENCH_REVIEW_WORKDIR": job.workdir}
    r = runproc.run(command, cwd=job.workdir, env=env, timeout_s=job.timeout_s, stdin=stdin_payload(job))
    keep_log(job.log_path, r.stdout + (b"\n--- stderr ---\n" + r.stderr if r.stderr.strip() else b""))
    meta["seconds"] = round(time.monotonic() - t0, 3)
    stderr = r.stderr.decode("utf-8", "replace").strip()[-400:]
    raw = r.stdout[-1500:].decode("utf-8", "replace")
    if r.start_error:
        return error(job.name, r.start_error, **meta)  # type: ignore[arg-type]
    if r.timed_out:
        return error(job.name, f"timed out after {job.timeout_s:.0f} s (process group killed)", raw, **meta)
    if r.overflow:
        return error(job.name, f"output too large (over {runproc.OUTPUT_CAP} bytes)", raw, **meta)
    if r.returncode != 0:
        return error(job.name, f"exit {r.returncode}: {stderr or '(no stderr)'}", raw, **meta)
    try:
        text = decode(r.stdout)
    except VerdictError as e:
        return error(job.name, str(e), raw, **meta)
    return from_text(job.name, text, require_evidence=bool(job.spec.get("require_evidence", True)), **meta)
