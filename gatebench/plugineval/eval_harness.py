"""The oracle harness of an exported `claude plugin eval` suite (SPEC.md section 18).

`python [-S] eval_harness.py scaffold PRIVATE CONFIG TASK` (the case's scaffold script; cwd = the run's
working directory, made empty by claude plugin eval) and `python -S eval_harness.py stop PRIVATE CONFIG`
(the Stop hook of the config's plugin; stdin = Claude Code's Stop input). PRIVATE is the export's private
folder `<out>/.gatebench`, which the agent can neither read nor write (the plugin's parent folder is in
the run's sandbox deny list).

scaffold: lays the task's base repo into the cwd (fresh git, one baseline commit, as prep does) and makes
  the run's private folder `PRIVATE/runs/<CONFIG>/<key of the cwd>/`: `state/` (the resolved config and
  baseline snapshot gatebench's hook reads), `tmp/` (the hook's temp dir: test and oracle copies land
  there, out of the agent's sight), `run.json` (this run, as the harness sees it).
stop: runs gatebench's own hook on that state (the config's gates, then the hidden oracle at this stop),
  logs the stop into run.json and, when the decision lets the agent stop (allow or give_up), writes the
  verdict file `.claude/gatebench/verdict` into the cwd (where the agent cannot write), last, from the oracle result of this stop (run again
  after the decision when it did not run cleanly). The verdict's solved line carries a secret token that
  only the case's grader (in the plugin's evals/, hidden from the agent) and this harness know, so a
  verdict file written by the agent never matches: the agent cannot know the token of a state it did not
  solve.

Standard library only on the stop path: it runs at every stop attempt. The scaffold may import the rest
of gatebench (pydantic) lazily: it runs once per run.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time

if not __package__:
    # Run as a script (`python -S .../gatebench/plugineval/eval_harness.py`): the checkout on the path.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

VERDICT_FILE = ".vscode/gatebench-verdict"  # == gatebench.models.plugineval.VERDICT_FILE (no models import here)
USAGE = "usage: eval_harness.py scaffold PRIVATE CONFIG TASK | stop PRIVATE CONFIG"


def run_key(cwd: str) -> str:
    """The private folder name of one run: its working directory's real path, hashed."""
    return hashlib.sha256(os.fsencode(os.path.realpath(cwd))).hexdigest()[:20]


def run_dir(private: str, config: str, cwd: str) -> str:
    return os.path.join(private, "runs", config, run_key(cwd))


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _read(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a JSON object")
    return data


def _write(path: str, data: dict) -> None:
    from gatebench.common.util import write_atomic

    write_atomic(path, json.dumps(data, indent=1) + "\n")


def template(private: str, config: str, task: str) -> dict:
    return _read(os.path.join(private, "cases", config, f"{task}.json"))


# ------------------------------------------------------------------------------------------- scaffold


def scaffold(private: str, config: str, task: str, cwd: str) -> str:
    """Lay the work copy into `cwd` and make the run's private folder; returns that folder."""
    import shutil
    from pathlib import Path

    from gatebench.cell.prep import git_baseline
    from gatebench.installer.statedir import write_state
    from gatebench.models.config import ResolvedConfig

    tpl = template(private, config, task)
    if os.listdir(cwd):
        # claude plugin eval hands each run a fresh directory; anything in it would become the baseline
        raise RuntimeError(f"the run's directory is not empty ({', '.join(sorted(os.listdir(cwd))[:5])})")
    shutil.copytree(os.path.join(private, "tasks", task, "repo"), cwd, symlinks=True, dirs_exist_ok=True)
    commit = git_baseline(Path(cwd))
    # The verdict's folder exists before the agent's first Bash call, so the sandbox binds it read-only
    os.makedirs(os.path.join(cwd, os.path.dirname(VERDICT_FILE)), exist_ok=True)
    rd = run_dir(private, config, cwd)
    if os.path.exists(rd):
        shutil.rmtree(rd)
    os.makedirs(os.path.join(rd, "tmp"))
    state = os.path.join(rd, "state")
    doc = dict(tpl["resolved"], repo=os.path.realpath(cwd), state_dir=state)
    write_state(ResolvedConfig.model_validate(doc), Path(cwd), Path(state), strict=True)
    _write(os.path.join(rd, "run.json"), {"v": 1, "config": config, "task": task, "cwd": cwd,
                                           "scaffolded_at": now_iso(), "baseline_commit": commit,
                                           "stops": [], "verdict": None, "errors": []})
    return rd


# ------------------------------------------------------------------------------------------- stop


def stop_summary(event: dict) -> dict:
    oracle = event.get("oracle") or {}
    return {"attempt": int(event.get("attempt") or 1), "decision": event.get("decision") or "allow",
            "oracle_solved": oracle.get("solved") if oracle else None,
            "gates": [{"name": g.get("name"), "kind": g.get("kind"), "verdict": g.get("verdict")}
                      for g in event.get("gates") or []],
            "errors": [str(e)[:300] for e in event.get("errors") or []][:10]}


def final_oracle(event: dict, resolved: dict, state: str) -> dict:
    """The oracle of the stop that ended the run: the hook's own result, or one run now if that did not run cleanly."""
    oracle = event.get("oracle")
    if oracle and not oracle.get("error") and isinstance(oracle.get("passed"), int):
        return dict(oracle)
    from gatebench.oracle.oracle import event_summary, run_binding

    res = run_binding(str(resolved.get("repo")), resolved["oracle"], resolved.get("python"), hide=[state])
    return {**event_summary(res), "rerun": True}


def verdict_text(task: str, config: str, tpl: dict, stop_no: int, decision: str, solved: bool, why: str,
                 oracle: dict) -> str:
    solved_line = f"solved: true {tpl['solved_token']}" if solved else "solved: false"
    counts = f"{oracle.get('passed', 0)} passed, {oracle.get('failed', 0)} failed, {oracle.get('errors', 0)} errors"
    return (f"gatebench verdict 1\ncase: {task} (config {config})\nverdict: {tpl['verdict_token']}\n{solved_line}\n"
            f"stop: {stop_no} ({decision})\noracle: {counts}\n" + (f"why: {why}\n" if why else ""))


def write_verdict(cwd: str, text: str) -> None:
    """Into the cwd, replacing whatever the agent put at that name (a file or a link; the link is replaced,
    never followed). A directory there makes the write fail: no verdict, which scores as unsolved."""
    final = os.path.join(cwd, VERDICT_FILE)
    parts = VERDICT_FILE.split("/")[:-1]
    for i in range(1, len(parts) + 1):  # a link on the way would carry the verdict out of the work dir
        if os.path.islink(os.path.join(cwd, *parts[:i])):
            raise OSError(f"{'/'.join(parts[:i])} is a link: no verdict written")
    os.makedirs(os.path.dirname(final), exist_ok=True)
    tmp = os.path.join(os.path.dirname(final), f".verdict.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    try:
        os.replace(tmp, final)
    except OSError:
        os.unlink(tmp)
        raise


def private_roots(private: str) -> list[str]:
    """Folders whose naming in a tool call is a leak attempt: the export's private half, and the bench home's
    private folders (the checkout this harness runs from; claude plugin eval's sandbox may not hide it)."""
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return [private, *(os.path.join(checkout, d) for d in ("tasks", "hidden", "reference", "inject", "runs"))]


def scan_transcript(transcript: str | None, roots: list[str]) -> tuple[list[str], str | None]:
    """(leaks, model) of the session so far. leaks: `<Tool>#<n>: <folder>` for every tool call whose input names a
    private folder (attempts count, also when the sandbox refused them), as finalize's leak scan does for a cell;
    model: the one the assistant messages say answered (the aggregate file does not say)."""
    if not transcript:
        return [], None
    from gatebench.common.util import read_jsonl

    out, n, model = [], 0, None
    for rec in read_jsonl(transcript)[0]:
        msg = rec.get("message") if rec.get("type") == "assistant" else None
        if not isinstance(msg, dict):
            continue
        model = msg.get("model") if isinstance(msg.get("model"), str) else model
        blocks = msg.get("content")
        for b in blocks if isinstance(blocks, list) else []:
            if isinstance(b, dict) and b.get("type") == "tool_use":
                n += 1
                text = json.dumps(b.get("input"))
                out += [f"{b.get('name')}#{n}: {r}" for r in roots if r in text]
    return sorted(set(out))[:50], model


def judge_final(run: dict, event: dict, private: str, config: str, rd: str) -> dict:
    """The verdict of the stop that let the agent go: solved = the hidden oracle passed and no protected path changed."""
    state = os.path.join(rd, "state")
    tpl = template(private, config, run["task"])
    resolved = _read(os.path.join(state, "config.json"))
    oracle = final_oracle(event, resolved, state)
    touched = (event.get("diff") or {}).get("protected_touched") or []
    solved = bool(oracle.get("solved")) and not touched and not oracle.get("error")
    why = ("" if solved else f"protected paths changed: {len(touched)}" if touched
           else f"oracle error: {oracle['error']}"[:300] if oracle.get("error") else "the hidden tests do not all pass")
    stop_no = int(event.get("attempt") or 1)
    verdict = {"stop": stop_no, "solved": solved, "why": why, "oracle": oracle, "written": False,
               "at": now_iso()}
    write_verdict(run["cwd"], verdict_text(run["task"], config, tpl, stop_no, str(event.get("decision")), solved,
                                           why, oracle))
    verdict["written"] = True
    return verdict


def stop(private: str, config: str, raw: str) -> dict | None:
    """One stop attempt of an eval run; returns what to print for Claude Code."""
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError:
        data = {}
    # The session's project dir (Claude Code sets it for the hook; the Stop input's `cwd` follows the agent's cd)
    cwd = os.environ.get("CLAUDE_PROJECT_DIR") or str((data if isinstance(data, dict) else {}).get("cwd") or os.getcwd())
    rd = run_dir(private, config, cwd)
    run_path = os.path.join(rd, "run.json")
    if not os.path.isfile(run_path):
        return {"systemMessage": "gatebench: this run was not scaffolded (run claude plugin eval with --scaffold); "
                                 "no gate ran and no verdict is written, so the run cannot score"}
    # The hook's temp dir (its test and oracle copies) goes private: the run's own temp dir is the agent's.
    tmp = os.path.join(rd, "tmp")
    os.makedirs(tmp, exist_ok=True)
    os.environ["TMPDIR"] = tmp
    import tempfile

    tempfile.tempdir = None
    from gatebench.hook.run import handle_stop

    output, event = handle_stop(raw, os.path.join(rd, "state"))
    run = _read(run_path)
    run["session_id"] = run.get("session_id") or (data.get("session_id") if isinstance(data, dict) else None)
    run["api_base_url"] = os.environ.get("ANTHROPIC_BASE_URL")
    if event is None:
        run["errors"].append(f"{now_iso()}: the hook crashed: {(output or {}).get('systemMessage')}")
        event = {"decision": "allow", "errors": run["errors"][-1:]}
    else:
        run["stops"].append(stop_summary(event))
    if event.get("decision") != "block":
        try:
            run["leaks"], run["model"] = scan_transcript(
                (data if isinstance(data, dict) else {}).get("transcript_path"), private_roots(private))
        except Exception as e:  # a flag, never the verdict: say why it is missing
            run["errors"].append(f"{now_iso()}: leak scan failed: {type(e).__name__}: {e}")
        try:
            run["verdict"] = judge_final(run, event, private, config, rd)
        except Exception as e:  # no verdict is an unsolved run: say so, never crash (a crash lets the stop through)
            why = f"no verdict written ({type(e).__name__}: {e})"
            run["errors"].append(f"{now_iso()}: {why}")
            run["verdict"] = {"stop": int(event.get("attempt") or 1), "solved": False, "why": why, "written": False}
            output = {**(output or {}), "systemMessage": f"gatebench: {why}"}
    _write(run_path, run)
    return output


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in ("scaffold", "stop") or (argv[0] == "scaffold" and len(argv) != 4):
        print(USAGE, file=sys.stderr)
        return 2
    verb, private, config = argv[0], os.path.abspath(argv[1]), argv[2]
    if verb == "scaffold":
        try:
            rd = scaffold(private, config, argv[3], os.getcwd())
        except Exception as e:  # claude plugin eval scores a failed scaffold as a run error (never as a pass)
            print(f"gatebench scaffold failed: {type(e).__name__}: {e}", file=sys.stderr)
            return 1
        print(f"gatebench: task {argv[3]} laid out; private run folder {os.path.basename(rd)}", file=sys.stderr)
        return 0
    try:
        raw = sys.stdin.read()
    except (OSError, UnicodeDecodeError):
        raw = ""
    try:
        output = stop(private, config, raw)
    except Exception as e:  # decide on purpose: allow, say why; the run then has no verdict and cannot score
        output = {"systemMessage": f"gatebench eval harness crashed ({type(e).__name__}: {e}); no verdict"}
    if output:
        sys.stdout.write(json.dumps(output))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
