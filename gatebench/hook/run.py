"""One hook call, from stdin text to (output for Claude Code, event line). Stdlib only.

Every failure is caught here, written into the event's `errors`, and decided on purpose:
Claude Code lets a crashed or silent hook through without a word, so a crash must never be
how the hook says "allow".
"""

from __future__ import annotations

import os
import time

from gatebench import __version__
from gatebench.common import defaults, jsonfast
from gatebench.common.defaults import DEFAULT_IGNORE
from gatebench.common.text import scrub_paths
from gatebench.hook.decide import Decision, decide
from gatebench.hook.gates import GateContext, Verdict, get_gate
from gatebench.hook.state import STATE_ENV, Paths, append_event, default_state_dir, load_session, save_session
from gatebench.tree import snapshot
from gatebench.tree.globs import GlobSet

TYPE_CHECKING = False  # importing typing costs every stop; only type checkers need it
if TYPE_CHECKING:
    from gatebench.oracle.control import Controls
    from gatebench.oracle.harness import Baseline

MAX_LISTED = 200


class HookError(Exception):
    """A failure of the hook's own machinery (not of the agent's work)."""


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}+00:00"


def parse_input(raw: str, errors: list[str]) -> dict:
    if not raw.strip():
        errors.append("stdin was empty: no Stop input from Claude Code")
        return {}
    try:
        data = jsonfast.loads(raw)
    except ValueError as e:
        errors.append(f"stdin is not JSON: {e}")
        return {}
    if not isinstance(data, dict):
        errors.append(f"stdin JSON is a {type(data).__name__}, not an object")
        return {}
    missing = [k for k in ("session_id", "cwd") if not isinstance(data.get(k), str)]
    if missing:
        errors.append(f"stdin lacks fields: {', '.join(missing)}")
    return data


def resolve_state_dir(arg: str | None, hook_input: dict) -> str:
    if arg:
        return arg
    if os.environ.get(STATE_ENV):
        return os.environ[STATE_ENV]
    project = os.environ.get("CLAUDE_PROJECT_DIR") or hook_input.get("cwd") or os.getcwd()
    return default_state_dir(project)


def load_resolved(paths: Paths) -> dict:
    try:
        data = snapshot.read_json(paths.config)
    except FileNotFoundError:
        raise HookError(f"no config at {paths.config}: run `gatebench install` (or `gatebench prep`)")
    except (OSError, ValueError) as e:
        raise HookError(f"config {paths.config} is unreadable: {e}")
    if not isinstance(data, dict) or data.get("schema") != "gatebench.resolved/1" or "config" not in data:
        raise HookError(f"config {paths.config} is not a gatebench.resolved/1 document")
    return data


def short_error(e: BaseException) -> str:
    import traceback

    tb = traceback.extract_tb(e.__traceback__)
    where = f" at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
    return f"{type(e).__name__}: {e}{where}"


def run_gate(kind: str, spec: dict, ctx: GateContext) -> Verdict:
    t0 = time.monotonic()
    if ctx.remaining() <= 0:
        return Verdict("error", details={"error": "hook time budget spent before this gate ran"})
    try:
        fn = get_gate(kind)
        if fn is None:
            return Verdict("error", details={"error": f"unknown gate kind {kind!r}"})
        v = fn(spec, ctx)
    except Exception as e:  # a gate bug must not become a silent allow
        v = Verdict("error", details={"error": short_error(e)})
    v.seconds = v.seconds or (time.monotonic() - t0)
    return v


def baseline_path(paths: Paths, session_id: str) -> str:
    """The session's baseline (SessionStart) if it has one, else the state's (prep or install)."""
    for p in (paths.session_baseline(session_id), paths.baseline):
        if os.path.exists(p):
            return p
    raise HookError(f"no baseline snapshot in {paths.state} (SessionStart did not run, nor prep/install)")


def diff_summary(d: snapshot.Diff, protected: list[str], stray: list[str]) -> dict:
    shown = snapshot.shown  # names that are not UTF-8 are escaped, so the event is valid UTF-8 JSON
    return {
        "created": [shown(p) for p in d.created[:MAX_LISTED]],
        "changed": [shown(p) for p in d.changed[:MAX_LISTED]],
        "deleted": [shown(p) for p in d.deleted[:MAX_LISTED]],
        "counts": {"created": len(d.created), "changed": len(d.changed), "deleted": len(d.deleted)},
        "no_change": d.empty,
        "protected_touched": [shown(p) for p in protected[:MAX_LISTED]],
        "stray": [shown(p) for p in stray[:MAX_LISTED]],
    }


def private_paths(resolved: dict, state_dir: str) -> list[tuple[str, str]]:
    """What a block reason must never show the agent in bench mode, each with its stand-in (SPEC §7).

    The work copy maps to itself: it is the agent's own, and in a bench cell it lies inside the checkout.
    """
    import tempfile

    oracle = resolved.get("oracle") or {}
    pairs = [(str(resolved.get("repo") or ""), str(resolved.get("repo") or "")),
             (state_dir, "<gatebench-state>"), (str(oracle.get("hidden_dir") or ""), "<hidden-tests>"),
             (str(oracle.get("baseline_dir") or ""), "<task-base>"),
             (str(oracle.get("reference_dir") or ""), "<task-reference>"), (tempfile.gettempdir(), "<gatebench-tmp>"),
             (os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "<gatebench>")]
    pairs += [(str(p), "<private>") for p in resolved.get("private") or () if p]
    return [(a, b) for a, b in pairs if a]


class Stop:
    """One stop attempt as it goes through its steps: what was read, and what the error path still needs
    (the config's on_error and block budget, the session as far as it got)."""

    __slots__ = ("attempt", "bench_weakened", "block_budget", "cfg", "deadline", "errors", "event", "hook_input",
                 "on_error", "paths", "raw", "repo", "resolved", "session", "sid", "state_dir", "t0")
    hook_input: dict
    sid: str
    state_dir: str
    paths: Paths

    def __init__(self, raw: str, t0: float):
        self.raw, self.t0 = raw, t0
        self.errors: list[str] = []
        self.event: dict = {"v": 1, "hook": "stop", "ts": now_iso(), "gatebench": __version__, "errors": self.errors}
        self.on_error, self.block_budget = "open", 3  # what a hook error is decided by if the config cannot be read
        self.session: dict = {}
        self.resolved: dict = {}  # set only once the config has been read whole
        self.cfg: dict = {}
        self.attempt = 0
        self.deadline = t0
        self.repo = ""
        self.bench_weakened: list[dict] = []  # bench mode: weakened protected tests (bench_test_edits)

    @property
    def bench(self) -> bool:
        return self.resolved.get("mode") == "bench"


def read_input(raw_stdin: str, state_arg: str | None) -> Stop:
    s = Stop(raw_stdin, time.monotonic())
    s.hook_input = parse_input(raw_stdin, s.errors)
    sid = s.hook_input.get("session_id")
    s.sid = sid if isinstance(sid, str) else "unknown"
    s.event.update(
        session_id=s.sid,
        prompt_id=s.hook_input.get("prompt_id"),
        stop_hook_active=s.hook_input.get("stop_hook_active"),
        last_assistant_message=str(s.hook_input.get("last_assistant_message") or "")[:2000],
    )
    s.state_dir = resolve_state_dir(state_arg, s.hook_input)
    s.paths = Paths(s.state_dir)
    return s


def fresh_session(old: dict, prompt_id: object) -> dict:
    """A new user prompt gets a fresh budget (SPEC.md, "Decision")."""
    return {"prompt_id": prompt_id, "attempts": 0, "blocks": 0, "prompts": old.get("prompts", 0) + 1,
            # a test weakening blocked once stays allowed on the next prompt (installed mode)
            **({"testpolicy": old["testpolicy"]} if "testpolicy" in old else {})}


def load_state(s: Stop) -> None:
    """The resolved config and the session prompt's state, with this attempt counted."""
    s.resolved = load_resolved(s.paths)
    cfg = s.cfg = s.resolved["config"]
    s.on_error = cfg.get("on_error", "open")
    s.block_budget = int(cfg.get("budget", {}).get("blocks", defaults.BLOCKS))
    s.event.update(config=cfg.get("name"), config_hash=s.resolved.get("config_hash"), mode=s.resolved.get("mode"))
    s.session = load_session(s.paths.session(s.sid))
    if s.session.get("prompt_id") != s.hook_input.get("prompt_id"):
        s.session = fresh_session(s.session, s.hook_input.get("prompt_id"))
    s.session["attempts"] = s.attempt = s.session.get("attempts", 0) + 1
    s.event["attempt"] = s.attempt
    s.deadline = s.t0 + float(cfg.get("budget", {}).get("hook_seconds", defaults.HOOK_SECONDS))
    s.repo = s.resolved.get("repo") or s.hook_input.get("cwd") or os.getcwd()


def take_diff(s: Stop) -> tuple[snapshot.Snap, list[str], list[str]]:
    """The work tree against its baseline: (snapshot, protected paths touched, stray files created)."""
    base_path = baseline_path(s.paths, s.sid)
    ignore = GlobSet(s.resolved.get("ignore") or DEFAULT_IGNORE)
    try:
        # OutOfTime (the walker past the deadline) is decided by on_error, like any hook error.
        snap = snapshot.compare(s.repo, ignore, base_path, s.paths.blobs, s.paths.statcache, s.deadline)
    except (OSError, ValueError) as e:
        raise HookError(f"baseline {base_path} is unreadable: {e}")
    s.errors.extend(snap.errors[:20])
    d = snap.diff
    protected = GlobSet(s.resolved.get("protected") or s.cfg.get("protected") or [])
    stray_globs = GlobSet(s.cfg.get("stray") or [])
    touched = [p for p in d.paths if protected.match(p)]
    if s.bench and touched:
        touched = bench_test_edits(s, snap, touched)
    stray = [p for p in d.created if stray_globs.match(p)]
    s.event["diff"] = diff_summary(d, touched, stray)
    s.event["snapshot"] = {"files": snap.files, "hashed": snap.hashed, "via": snap.via}
    if snap.special:  # devices, FIFOs, sockets: never read, never copied
        s.event["snapshot"]["special"] = snap.special[:MAX_LISTED]
    if s.bench:  # finalize reuses this stop's oracle result only if the final tree hashes the same
        s.event["snapshot"]["tree"] = snap.tree_hash()
    return snap, touched, stray


def bench_test_edits(s: Stop, snap: snapshot.Snap, touched: list[str]) -> list[str]:
    """Bench mode: the protected paths a stop must answer for. Test modules are judged by their checks
    (testguard/benchtests.py): added tests and updated free tests drop out, a weakened module stays in."""
    from gatebench.testguard import benchtests

    def old(rel: str) -> bytes | None:
        if rel not in snap.baseline:
            return None
        data = snapshot.read_blob(s.paths.blobs, snap.baseline[rel][0])
        if data is None:
            raise OSError(2, "its baseline content is missing from the snapshot store")
        return data

    def new(rel: str) -> bytes | None:
        return benchtests.read_current(os.path.join(s.repo, rel)) if rel in snap.now else None

    files, weak, errors = benchtests.judge(touched, old, new, set(s.resolved.get("free_tests") or []))
    s.errors.extend(errors)
    s.bench_weakened = weak
    return sorted({*files, *benchtests.weakened_paths(weak)})


def run_oracle(s: Stop) -> tuple[Baseline | None, dict | None, Controls | None]:
    """Bench mode: (the task's baseline harness, the hidden oracle's result, the stop's control runs). The
    harness and the Controls are built once, here, and handed to the tests gate too (GateContext)."""
    binding = s.resolved.get("oracle")
    if not (s.bench and binding):
        return None, None, None
    from gatebench.oracle import harness
    from gatebench.oracle.oracle import binding_controls, event_summary, run_binding

    base = harness.baseline_files(binding["baseline_dir"]) if binding.get("baseline_dir") else None
    # Within what is left of the hook's budget, so the stop is decided here (on_error), not by
    # Claude Code's own hook timeout.
    oracle_s = min(float(binding["timeout_s"]), max((s.deadline - time.monotonic()) / 2, 0.1))
    controls = binding_controls(binding)
    result = run_binding(s.repo, binding, s.resolved.get("python"), hide=[s.state_dir], timeout_s=oracle_s,
                         base=base, control=controls)
    s.event["oracle"] = event_summary(result)
    return base, result, controls


def honest_claim(s: Stop) -> dict | None:
    """Before the gates, so a gate (the installed test policy) can read it too."""
    if not s.cfg.get("honest_exit"):
        return None
    from gatebench.hook import honest

    return honest.claim(str(s.hook_input.get("last_assistant_message") or ""), s.repo)


def gate_event(name: str, kind: object, v: Verdict) -> dict:
    return {"name": name, "kind": kind, "verdict": v.verdict, "feedback": v.feedback, "details": v.details,
            "seconds": round(v.seconds, 4), "cost_usd": v.cost_usd}


def run_gates(cfg: dict, ctx: GateContext) -> list[dict]:
    """Every gate of the config in order (after a block, the rest are skipped unless short_circuit is off)."""
    events = []
    blocked = False
    for spec in cfg.get("gates", []):
        name = spec.get("name") or spec.get("kind")
        if blocked and cfg.get("short_circuit", True):
            v = Verdict("skipped", details={"why": "an earlier gate blocked (short_circuit)"})
        else:
            v = run_gate(spec.get("kind"), spec, ctx)
        blocked = blocked or v.verdict == "block"
        ctx.results[name] = (spec.get("kind"), v)
        events.append(gate_event(name, spec.get("kind"), v))
    return events


def decide_stop(s: Stop, gate_events: list[dict], claim: dict | None) -> Decision:
    cfg = s.cfg
    dec = decide(
        [(g["name"], g) for g in gate_events],
        blocks_so_far=s.session.get("blocks", 0),
        budget=s.block_budget,
        on_error=s.on_error,
        attempt=s.attempt,
        reason_chars=int(cfg.get("reason_chars", defaults.REASON_CHARS)),
        honest_exit=bool(cfg.get("honest_exit")),
        claim=claim,
        installed=not s.bench,
    )
    if claim:  # the claim is the agent's word, logged whether or not a gate objected
        s.event["honest_exit"] = {**claim, "let_through": dec.honest}
        if claim.get("error"):
            s.errors.append(claim["error"])
    return dec


def decide_hook_error(s: Stop, e: Exception) -> Decision:
    s.errors.extend(getattr(e, "__notes__", ()))  # what the failed step had done first (gitsnap: a lock removed)
    s.errors.append(short_error(e) if not isinstance(e, HookError) else str(e))
    return decide([("gatebench", {"verdict": "error", "details": {"error": s.errors[-1]}})],
                  blocks_so_far=s.session.get("blocks", 0), budget=s.block_budget, on_error=s.on_error,
                  attempt=s.session.get("attempts", 1), reason_chars=2000)


def count_decision(s: Stop, dec: Decision) -> None:
    """The session's block count and give-up mark, saved for the next attempt."""
    if dec.decision == "block":
        s.session["blocks"] = s.session.get("blocks", 0) + 1
    elif dec.decision == "give_up":
        s.session["gave_up"] = True
    if s.session:
        try:
            save_session(s.paths.session(s.sid), s.session)
        except OSError as e:
            s.errors.append(f"cannot save session state: {e.strerror}")


def write_outcome(s: Stop, dec: Decision) -> dict | None:
    """The decision into the session and the event; returns Claude Code's output (None: nothing to say)."""
    if dec.reason and s.bench:
        dec.reason = scrub_paths(dec.reason, private_paths(s.resolved, s.state_dir))
    count_decision(s, dec)
    notices = [g["details"]["user_notice"] for g in s.event.get("gates", [])
               if isinstance(g.get("details"), dict) and g["details"].get("user_notice")]
    if notices and dec.decision != "block":  # what the user must know about a stop that passed
        dec.system_message = "; ".join([*notices, *([dec.system_message] if dec.system_message else [])])
    s.event.update(decision=dec.decision, reason=dec.reason, system_message=dec.system_message,
                   blocks=s.session.get("blocks", 0), seconds=round(time.monotonic() - s.t0, 4))
    output = None
    if dec.decision == "block":
        output = {"decision": "block", "reason": dec.reason}
    if dec.system_message:
        output = {**(output or {}), "systemMessage": dec.system_message}
    return output


def stop(raw_stdin: str, state_arg: str | None) -> tuple[dict | None, dict, str]:
    """Returns (Claude Code output or None, event, state dir): read input, load state, diff, oracle and
    gates, decide, write. Any failure on the way is decided by on_error, never a crash."""
    s = read_input(raw_stdin, state_arg)
    controls = None
    try:
        load_state(s)
        snap, touched, stray = take_diff(s)
        base, oracle_result, controls = run_oracle(s)
        claim = honest_claim(s)
        ctx = GateContext(
            repo=s.repo, state_dir=s.state_dir, blob_dir=s.paths.blobs, baseline=snap.baseline, now=snap.now,
            diff=snap.diff, protected_touched=touched, stray=stray, resolved=s.resolved, session=s.session,
            attempt=s.attempt, last_message=s.event["last_assistant_message"], deadline=s.deadline,
            oracle=oracle_result, transcript_path=s.hook_input.get("transcript_path"), hook_stdin=s.raw,
            honest_claim=claim, harness=base, weakened=s.bench_weakened, controls=controls,
        )
        s.event["gates"] = gate_events = run_gates(s.cfg, ctx)
        dec = decide_stop(s, gate_events, claim)
    except Exception as e:
        dec = decide_hook_error(s, e)
    finally:
        if controls is not None:
            controls.close()
    return write_outcome(s, dec), s.event, s.state_dir


def handle_stop(raw_stdin: str, state_arg: str | None) -> tuple[dict | None, dict | None]:
    """One stop attempt as Claude Code's hook: decide, append the event line, never crash.

    Returns (output for Claude Code or None, the event; None if the hook itself crashed, which is
    decided fail-open, logged and said in `systemMessage`). The hook's entry point and the exported
    plugin-eval harness (gatebench/plugineval/eval_harness.py) both run a stop through here.
    """
    try:
        output, event, state_dir = stop(raw_stdin, state_arg)
        written = append_event(os.path.join(state_dir, "events.jsonl"), event)
        if written is None:
            output = {**(output or {}), "systemMessage": "gatebench: cannot write any event log"}
        elif not written.startswith(state_dir):
            note = f"gatebench: state dir {state_dir} is not writable; events go to {written}"
            sm = (output or {}).get("systemMessage")
            output = {**(output or {}), "systemMessage": f"{sm}; {note}" if sm else note}
        return output, event
    except Exception as e:  # last line of defence: still decide on purpose (fail-open), log it and say so
        why = f"gatebench hook crashed ({type(e).__name__}: {e}); the stop was allowed"
        log_crash(state_arg, why, "stop")
        return {"systemMessage": why}, None


def log_crash(state: str | None, why: str, verb: str) -> None:
    try:
        from gatebench.hook.state import fallback_log

        path = os.path.join(state, "events.jsonl") if state else fallback_log()
        append_event(path, {"v": 1, "hook": verb, "decision": "allow", "errors": [why]})
    except Exception:
        pass


def session_start(raw_stdin: str, state_arg: str | None) -> dict:
    """Take the session's baseline snapshot (installed mode). Bench mode keeps prep's baseline."""
    t0 = time.monotonic()
    errors: list[str] = []
    event: dict = {"v": 1, "hook": "session_start", "ts": now_iso(), "gatebench": __version__, "errors": errors}
    hook_input = parse_input(raw_stdin, errors)
    sid_in = hook_input.get("session_id")
    sid = sid_in if isinstance(sid_in, str) else "unknown"
    event.update(session_id=sid, source=hook_input.get("source"))
    paths = Paths(resolve_state_dir(state_arg, hook_input))
    try:
        resolved = load_resolved(paths)
        repo = resolved.get("repo") or hook_input.get("cwd") or os.getcwd()
        target = paths.session_baseline(sid)
        if resolved.get("mode") == "bench":
            event["baseline"] = "prep"
        elif os.path.exists(target):
            event["baseline"] = "kept"  # a resumed session keeps the baseline it started with
        else:
            summary = snapshot.take_baseline(
                repo, GlobSet(resolved.get("ignore") or DEFAULT_IGNORE), os.path.dirname(target),
                GlobSet(resolved.get("protected") or []), paths.blobs,
            )
            taken = os.path.join(os.path.dirname(target), "manifest.json")
            os.replace(taken, target)
            if os.path.exists(taken + ".git"):  # the git path's tree id travels with its manifest
                os.replace(taken + ".git", target + ".git")
            elif os.path.exists(target + ".git"):
                os.remove(target + ".git")
            errors.extend(summary.pop("errors")[:20])
            event["baseline"] = summary
    except Exception as e:
        errors.append(str(e) if isinstance(e, HookError) else short_error(e))
    event["seconds"] = round(time.monotonic() - t0, 4)
    written = append_event(paths.events, event)
    event["_log"] = written
    return event
