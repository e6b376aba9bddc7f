"""`gatebench selftest`: free proof that the suite measures what it claims.

Every end state (base, reference, each injection) is judged by running the real Stop hook
(`python -m gatebench.hook stop`, a cold process, as Claude Code runs it) on a bench-mode work copy
whose config runs the `diff`, `tests` and `oracle` gates without short-circuit. The self-test reads
the verdicts from the hook's own event line: it has no grader of its own to drift from the bench's.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from gatebench.common.proc import die_with_parent
from gatebench.common.util import read_jsonl
from gatebench.errors import UsageError
from gatebench.models.config import Budget, DiffGate, GateConfig, OracleGate, TestsGate
from gatebench.models.task import Inject
from gatebench.oracle.oracle import run_binding
from gatebench.suite import canaries as proof
from gatebench.suite import variants
from gatebench.suite.benchstate import oracle_binding, write_bench_state
from gatebench.suite.failure import Failure
from gatebench.suite.tasks import TaskFiles, apply_state, copy_tree

JUDGED_GATES = ("diff", "tests", "oracle")
SELFTEST_CONFIG = GateConfig(
    name="selftest",
    description="the gates selftest judges end states with",
    gates=[DiffGate(kind="diff"), TestsGate(kind="tests"), OracleGate(kind="oracle")],
    short_circuit=False,
    budget=Budget(blocks=7, hook_seconds=900),
)
MIN_INJECTIONS = 3
WRONG_FIXES = ("partial", "plausible", "hardcode", "crude")  # an imported task needs MIN_INJECTIONS of these: code, not noop


@dataclass
class VariantJudged:
    """A variant proven on the task's end states: the mutated visible tests run, pristine, on each."""

    task: str
    kind: str
    mutated: list[str]
    reference: dict  # run_mutated on the reference: must fail exactly the mutated tests
    special_case: dict | None = None  # run_mutated on the special-case end state, if the variant has one: must pass


@dataclass
class Judged:
    state: str
    verdicts: dict[str, str]  # gate -> pass | block | error
    oracle: dict  # the hook's oracle summary for this stop
    tests: list[str]  # hidden test ids seen
    errors: list[str] = field(default_factory=list)
    second: dict | None = None  # a second oracle run on the same tree (flake check)
    proof_run: dict | None = None  # that second run, whose canaries are placed on purpose (suite/canaries.py)
    # How many hidden tests the task leaves out of both sets (source.excluded: flaky, order-dependent): they still
    # run, so the pass count may differ by them between two runs while no judged outcome does.
    unjudged: int = 0

    def flaky(self) -> list[str]:
        if self.second is None:
            return []
        first = set(self.oracle.get("failing", []))
        again_all = sorted(self.second.get("failing", []))
        # The hook's event keeps the first 50 (sorted) of a long list and its total (oracle.event_summary).
        total = self.oracle.get("failing_total")
        again = set(again_all[:len(first)] if total else again_all)
        diff = sorted(first ^ again)
        if total and total != len(again_all):
            diff = diff or [f"failing {total} then {len(again_all)}"]
        if not diff and abs((self.oracle.get("passed") or 0) - (self.second.get("passed") or 0)) > self.unjudged:
            diff = [f"passed {self.oracle.get('passed')} then {self.second.get('passed')}"]
        return diff


def base_id(test_id: str) -> str:
    return test_id.split("[", 1)[0]


def run_hook(argv: list[str], stdin: str) -> subprocess.CompletedProcess:
    """The hook as a child that dies with the thread that started it: a selftest or a mine that is killed
    leaves no hook (and no oracle under it) running on as an orphan."""
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=1200,
                          preexec_fn=die_with_parent())


def judge(tf: TaskFiles, state: str, flake_check: bool, rerun: bool = True, canaries: dict | None = None) -> Judged:
    """The hook's verdicts on one end state; then (`rerun`) the oracle once more on the same tree, its canaries
    placed by `canaries` (a proof run), for the flake check and the canary proof."""
    with tempfile.TemporaryDirectory(prefix=f"gatebench-selftest-{tf.id}-") as tmp:
        repo, st = Path(tmp) / "repo", Path(tmp) / "state"
        copy_tree(tf.repo, repo)
        resolved = write_bench_state(SELFTEST_CONFIG, tf, repo, st)
        apply_state(tf, state, repo)
        stdin = json.dumps({"session_id": f"selftest-{state}", "cwd": str(repo), "prompt_id": "selftest",
                            "hook_event_name": "Stop", "stop_hook_active": False,
                            "last_assistant_message": "done"})
        r = run_hook([sys.executable, "-m", "gatebench.hook", "stop", "--state", str(st)], stdin)
        events = read_jsonl(st / "events.jsonl")[0]
        if r.returncode != 0 or not events:
            return Judged(state, {}, {}, [], [f"hook exited {r.returncode} with no event: {r.stderr[-500:]}"])
        ev = events[-1]
        verdicts = {g["name"]: g["verdict"] for g in ev.get("gates", [])}
        errs = list(ev.get("errors", [])) + [
            f"gate {g['name']} errored: {g['details'].get('error')}" for g in ev.get("gates", [])
            if g["verdict"] == "error"
        ]
        oracle = ev.get("oracle") or {}
        if not oracle:
            errs.append("the hook logged no oracle result")
        if not rerun:  # the caller needs the hook's verdicts only (task import measuring an injection)
            return Judged(state, verdicts, oracle, [], errs)
        # The same oracle once more on the same tree: the flake check, and the list of hidden test ids.
        second = run_binding(str(repo), oracle_binding(tf).model_dump(), resolved.python, hide=[str(st)],
                             canaries=canaries)
        j = Judged(state, verdicts, oracle, sorted(second["tests"]), errs, second if flake_check else None, second,
                   len(tf.task.source.excluded) if tf.task.source else 0)
        if second.get("error") and not oracle.get("error"):
            j.errors.append(f"oracle error on re-run: {second['error']}")
        return j


def static_checks(tf: TaskFiles, hidden_ids: list[str]) -> list[Failure]:
    """What can be checked without running: injections count, trace coverage, no quoting of hidden tests."""
    out: list[Failure] = []
    if tf.task.source is not None:
        out += imported_checks(tf, hidden_ids)
    return out + trace_checks(tf, hidden_ids) + quote_checks(tf) + injection_count_checks(tf)


def trace_checks(tf: TaskFiles, hidden_ids: list[str]) -> list[Failure]:
    """A bundled task traces every hidden test to a phrase of its prompt; every trace names a hidden test."""
    out: list[Failure] = []
    ty = f"tasks/{tf.id}/task.yaml"
    tests = sorted({base_id(t) for t in hidden_ids})
    for t in tests if tf.task.source is None else []:
        if t not in tf.task.trace:
            out.append(Failure(tf.id, ty, "trace", f"hidden test {t} has no trace entry: the prompt may not state it"))
    for t, phrase in tf.task.trace.items():
        if t not in tests:
            out.append(Failure(tf.id, ty, "trace", f"trace names {t}, which is not a hidden test"))
        if _norm(phrase) not in _norm(tf.task.prompt):
            out.append(Failure(tf.id, ty, "trace", f"trace phrase for {t} is not in the prompt: {phrase!r}"))
    return out


def quote_checks(tf: TaskFiles) -> list[Failure]:
    """The prompt names no hidden test function and quotes no long line of the hidden tests."""
    out: list[Failure] = []
    ty, prompt = f"tasks/{tf.id}/task.yaml", tf.task.prompt
    for f in sorted(tf.hidden.glob("**/*.py")):
        src = f.read_text(encoding="utf-8")
        for name in _functions(src):
            if name.startswith("test_") and name in prompt:
                out.append(Failure(tf.id, ty, "no-quote", f"the prompt names hidden test {name}"))
        for line in src.splitlines():
            s = line.strip()
            if len(s) >= 40 and s in prompt:
                out.append(Failure(tf.id, ty, "no-quote", f"the prompt quotes {f.name}: {s[:60]!r}"))
    return out


def injection_count_checks(tf: TaskFiles) -> list[Failure]:
    out: list[Failure] = []
    n = len(tf.injections())
    if n < MIN_INJECTIONS:
        out.append(Failure(tf.id, f"inject/{tf.id}/", "injections", f"{n} injections, at least {MIN_INJECTIONS} needed"))
    wrong = sum(1 for i in tf.injections().values() if i.kind in WRONG_FIXES)
    if tf.task.source is not None and wrong < MIN_INJECTIONS:
        out.append(Failure(tf.id, f"inject/{tf.id}/", "injections", f"{wrong} wrong fixes ({', '.join(WRONG_FIXES)}), "
                           f"at least {MIN_INJECTIONS} needed for an imported task"))
    return out


def imported_checks(tf: TaskFiles, hidden_ids: list[str]) -> list[Failure]:
    """An imported task has no trace: instead, its FAIL_TO_PASS and PASS_TO_PASS must name hidden tests that ran."""
    o, seen = tf.task.oracle, set(hidden_ids)
    out = []
    if not o.fail_to_pass:
        out.append(Failure(tf.id, f"tasks/{tf.id}/task.yaml", "sets", "oracle.fail_to_pass is empty"))
    for t in sorted(set(o.fail_to_pass) | set(o.pass_to_pass)):
        if t not in seen:
            out.append(Failure(tf.id, f"tasks/{tf.id}/task.yaml", "sets", f"{t} did not run on the reference"))
    return out


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().lower()


def _functions(src: str) -> list[str]:
    try:
        return [n.name for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef)]
    except SyntaxError:
        return []


def judge_variant(tf: TaskFiles, kind: str) -> VariantJudged:
    """Run the variant's mutated visible tests on the reference (and on its special-case end state) in the
    oracle's sandbox, exactly as finalize judges a final work copy. Raises UsageError for a bad variant."""
    from gatebench.suite.taskenv import task_env

    v = variants.load_variant(tf, kind)
    files = variants.mutated_files(tf, v)
    out = VariantJudged(tf.id, kind, v.test_ids(), {})
    env = task_env(tf)  # an imported task's tests need its environment, as finalize runs them
    python = env.python if env else sys.executable
    with tempfile.TemporaryDirectory(prefix=f"gatebench-selftest-{tf.id}-{kind}-") as tmp:
        repo = Path(tmp) / "repo"
        variants.copy_repo(tf, repo, files)
        apply_state(tf, "reference", repo)
        out.reference = variants.run_mutated(repo, tf, v, python, files=files)
        if variants.special_case_dir(tf, kind).is_dir():
            variants.copy_repo(tf, repo, files)
            variants.special_case_state(tf, repo)
            out.special_case = variants.run_mutated(repo, tf, v, python, files=files)
    return out


def variant_checks(tf: TaskFiles, vj: VariantJudged) -> list[Failure]:
    """An impossible variant is proven, never assumed: the reference (which passes every original test and the
    hidden oracle) must fail exactly the mutated tests, each of which ran; a special-case end state must pass them."""
    where = str(variants.variant_file(tf, vj.kind).relative_to(tf.dir.parent.parent))
    ref, out = vj.reference, []
    if ref.get("error") or ref.get("missing"):
        out.append(Failure(tf.id, where, "variant-runs", f"the mutated tests did not run on the reference: "
                           f"{ref.get('error') or ref.get('missing')}"))
    elif ref.get("solved"):
        out.append(Failure(tf.id, where, "variant-impossible", f"the reference passes the mutated test(s) "
                           f"{', '.join(vj.mutated)}: the variant is possible, so passing it proves nothing"))
    elif {base_id(t) for t in ref.get("failing", [])} != set(vj.mutated):
        out.append(Failure(tf.id, where, "variant-impossible", f"the reference fails {sorted(ref.get('failing', []))}, "
                           f"not exactly the mutated {vj.mutated}"))
    sc = vj.special_case
    if sc is not None and not sc.get("solved"):
        out.append(Failure(tf.id, f"{where.rsplit('/', 1)[0]}/{variants.SPECIAL_CASE}/", "variant-special-case",
                           f"the special-case end state does not pass the mutated tests: "
                           f"{sc.get('failing') or sc.get('error')}"))
    return out


def check_variants(tf: TaskFiles) -> tuple[list[VariantJudged], list[Failure]]:
    """Every variant of the task, proven (run beside check_task: it needs nothing of its results)."""
    fails: list[Failure] = []
    kinds = [k for k in variants.VARIANTS if k != variants.NORMAL and variants.has_variant(tf, k)]
    if tf.task.source is None and variants.IMPOSSIBLE not in kinds:
        fails.append(Failure(tf.id, f"tasks/{tf.id}/variants/", "variant-exists",
                             "a bundled task needs an impossible variant (variants/impossible/variant.yaml)"))
    vjs = []
    for kind in kinds:
        try:
            vj = judge_variant(tf, kind)
        except UsageError as e:
            fails.append(Failure(tf.id, f"tasks/{tf.id}/variants/{kind}/", "variant", str(e)))
            continue
        vjs.append(vj)
        fails += variant_checks(tf, vj)
    return vjs, fails


def reference_run(tf: TaskFiles, canaries: dict) -> dict:
    """One more oracle run on the reference, its canaries placed by `canaries` (the proof's other runs)."""
    from gatebench.suite.taskenv import task_env

    env = task_env(tf)
    with tempfile.TemporaryDirectory(prefix=f"gatebench-selftest-{tf.id}-") as tmp:
        repo = Path(tmp) / "repo"
        copy_tree(tf.repo, repo)
        apply_state(tf, "reference", repo)
        return run_binding(str(repo), oracle_binding(tf).model_dump(), env.python if env else sys.executable,
                           canaries=canaries)


def canary_failures(tf: TaskFiles, p: proof.Proof) -> list[Failure]:
    where = f"tasks/{tf.id}/task.yaml"
    out = [Failure(tf.id, where, "canary", f"{tid}: {why}") for tid, why in sorted(p.failures.items())]
    if out:
        out.append(Failure(tf.id, where, "canary", proof.exclusion_hint(p.failures, tf.task.source.recipe if tf.task.source else None)))
    out += [Failure(tf.id, f"reference/{tf.id}/", "canary", f"the proof could not run: {m}") for m in p.problems]
    return out


def check_task(tf: TaskFiles, jobs: int = 2) -> tuple[list[Judged], list[Failure], proof.Proof | None]:
    try:
        injections = tf.injections()
    except UsageError as e:
        return [], [Failure(tf.id, f"inject/{tf.id}/", "validate", str(e))], None
    if not tf.hidden.is_dir():
        return [], [Failure(tf.id, f"hidden/{tf.id}/", "exists", "no hidden tests")], None
    judged, ref_runs = judge_states(tf, ["base", "reference", *(f"inject:{n}" for n in injections)], jobs)
    by = {j.state: j for j in judged}
    ref = by["reference"]
    fails = run_failures(tf, judged) + end_state_failures(tf, by["base"], ref)
    for name, inj in injections.items():
        fails += injection_failures(tf, name, inj, by[f"inject:{name}"])
    fails += static_checks(tf, ref.tests)
    p = proof.prove([r for r in [ref.proof_run, *ref_runs] if r is not None],
                    {j.state: j.proof_run for j in judged if j.state != "reference" and j.proof_run is not None},
                    tf.task.canaries.exclude)
    proof.odds(p, oracle_binding(tf).model_dump(), {j.state: list(j.oracle.get("failing") or []) for j in judged
                                                    if j.state != "reference"})
    fails += canary_failures(tf, p)
    return judged, fails, p


def judge_states(tf: TaskFiles, states: list[str], jobs: int) -> tuple[list[Judged], list[dict]]:
    """Every end state judged by the hook, beside the reference's further proof runs: (judged, those runs)."""
    first, more = proof.PROOF_RUNS[0], proof.PROOF_RUNS[1:]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        extra = [pool.submit(reference_run, tf, dict(opts)) for opts in more]
        judged = list(pool.map(lambda s: judge(tf, s, True, canaries=dict(first if s == "reference"
                                                                           else proof.OTHER_RUN)), states))
        return judged, [f.result() for f in extra]


def run_failures(tf: TaskFiles, judged: list[Judged]) -> list[Failure]:
    """The runs themselves: hook or oracle errors, and an oracle that answered differently twice."""
    fails: list[Failure] = []
    for j in judged:
        where = file_of(tf, j.state)
        for msg in j.errors:
            fails.append(Failure(tf.id, where, "runs", msg))
        if j.flaky():
            fails.append(Failure(tf.id, f"hidden/{tf.id}/", "flake",
                                 f"the oracle gave different outcomes twice on {j.state}: {j.flaky()[:5]}"))
    return fails


def end_state_failures(tf: TaskFiles, base: Judged, ref: Judged) -> list[Failure]:
    """The base fails the oracle; the reference passes it and the diff and tests gates allow it."""
    fails: list[Failure] = []
    if base.oracle.get("solved"):
        fails.append(Failure(tf.id, f"tasks/{tf.id}/repo/", "base-fails", "the base repo passes the hidden oracle"))
    if not ref.oracle.get("solved"):
        fails.append(Failure(tf.id, f"reference/{tf.id}/", "reference-solves",
                             f"the reference fails hidden tests: {ref.oracle.get('failing')} {ref.oracle.get('error') or ''}"))
    for g in ("diff", "tests"):
        if ref.verdicts.get(g) != "pass":
            fails.append(Failure(tf.id, f"reference/{tf.id}/", "reference-allowed",
                                 f"gate {g} does not allow the reference ({ref.verdicts.get(g)})"))
    return fails


def injection_failures(tf: TaskFiles, name: str, inj: Inject, j: Judged) -> list[Failure]:
    """An injection fails exactly the hidden tests it declares and is blocked by exactly the gates it names."""
    fails: list[Failure] = []
    where = f"inject/{tf.id}/{name}/inject.yaml"
    failing = set(j.oracle.get("failing", []))
    if j.oracle.get("solved"):
        fails.append(Failure(tf.id, where, "fails-oracle", "the injection passes the hidden oracle"))
    elif failing != set(inj.fails):
        fails.append(Failure(tf.id, where, "fails-as-declared",
                             f"declared {sorted(inj.fails)}, oracle failed {sorted(failing)}"))
    if tf.task.source is not None and inj.kind in ("plausible", "partial", "crude") \
            and (inj.kind != "crude") == ("tests" in inj.blocked_by):
        fails.append(Failure(tf.id, where, "wrong-fix-kind",
                             f"a {inj.kind} wrong fix of an imported task must "
                             f"{'pass' if inj.kind != 'crude' else 'fail'} the visible tests (blocked_by: "
                             f"{inj.blocked_by}); the ones the visible tests catch are crude"))
    for g in JUDGED_GATES:
        want = "block" if (g in inj.blocked_by or g == "oracle") else "pass"
        got = j.verdicts.get(g)
        if got != want:
            fails.append(Failure(tf.id, where, f"gate-{g}", f"declared {want}, the {g} gate said {got}"))
    return fails


def file_of(tf: TaskFiles, state: str) -> str:
    if state == "base":
        return f"tasks/{tf.id}/repo/"
    if state == "reference":
        return f"reference/{tf.id}/"
    return f"inject/{tf.id}/{state.split(':', 1)[1]}/"


MARK = {"pass": ".", "block": "B", "error": "E", None: "?"}


def variant_table(vjs: list[VariantJudged], failed: set[tuple[str, str]]) -> str:
    """task x variant: the mutated tests and their outcome on the reference (and the special case)."""
    head = f"{'task':5} {'variant':11} {'reference':9} {'special':8} check  mutated"
    lines = [head, "-" * len(head)]
    for v in vjs:
        ref = "fails" if not v.reference.get("solved") else "PASSES"
        sc = "-" if v.special_case is None else ("passes" if v.special_case.get("solved") else "FAILS")
        ok = "FAIL" if (v.task, v.kind) in failed else "ok"
        lines.append(f"{v.task:5} {v.kind:11} {ref:9} {sc:8} {ok:5}  {', '.join(v.mutated)}")
    return "\n".join(lines)


def table(rows: list[tuple[str, str, str, dict[str, str], str]]) -> str:
    """task x end state x gate: B = blocks, . = allows, E = error."""
    head = f"{'task':5} {'end state':34} {'kind':10} " + " ".join(f"{g:>6}" for g in JUDGED_GATES) + "  check"
    lines = [head, "-" * len(head)]
    for task, state, kind, verdicts, ok in rows:
        cells = " ".join(f"{MARK.get(verdicts.get(g), '?'):>6}" for g in JUDGED_GATES)
        lines.append(f"{task:5} {state[:34]:34} {kind:10} {cells}  {ok}")
    return "\n".join(lines)
