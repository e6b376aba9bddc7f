"""`import_task`: the import's steps in order, and what a recipe hands it (`Facts`) and gets back."""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from gatebench.errors import UsageError
from gatebench.models.loading import describe
from gatebench.models.task import Canaries, ImportSource, Oracle, Task, TaskEnv, VisibleTests
from gatebench.suite.promptcheck import gaps as prompt_gaps
from gatebench.suite.taskenv import EnvInfo, ensure_env
from gatebench.suite.taskimport.environment import environment
from gatebench.suite.taskimport.files import (
    DEFAULT_TEST_GLOBS,
    dump_yaml,
    harness_files,
    is_test_module,
    split_changes,
    tree_bytes,
    write_file,
)
from gatebench.suite.taskimport.git import changed_files, commit_message, export_tree, resolve_commit
from gatebench.suite.taskimport.injections import lay_injections, make_injections
from gatebench.suite.taskimport.measure import measure, prove_canaries
from gatebench.suite.taskimport.runs import PYTEST
from gatebench.suite.taskimport.visible import deselected, visible_tests
from gatebench.suite.tasks import TaskFiles, load_task
from gatebench.tree.globs import GlobSet

THIN_WORDS = 12  # a commit message under this many words rarely states the behaviour the tests check
PROMPT_TAIL = ("\n\nMake this change in the repository. The existing tests describe behaviour that must keep "
               "working unless the change itself requires updating them.")


@dataclass
class Facts:
    """What an earlier import measured (a recipe holds it): given, the import runs nothing to find it."""

    fail_to_pass: list[str]
    pass_to_pass: list[str]
    visible: str
    injections: list[dict]  # {name, kind, description, mutant: {file, op, hunk, edits} | None, omit, delete, fails, blocked_by}
    excluded: list[str] = field(default_factory=list)
    canaries_exclude: list[str] = field(default_factory=list)  # beyond the proof's: selftest's injections found them
    proven: list[str] | None = None  # the canary proof's own exclusions as curate recorded them: not run again


@dataclass
class ImportResult:
    id: str
    parent: str
    commit: str
    prompt_from: str
    fail_to_pass: list[str]
    pass_to_pass: list[str]
    hidden: list[str]
    reference: list[str]
    injections: dict[str, dict]
    env: dict
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0  # the import without the environment build
    excluded: list[str] = field(default_factory=list)
    prompt_gaps: list[str] = field(default_factory=list)
    visible: str = ""
    recipe_injections: list[dict] = field(default_factory=list)  # the injections as a recipe names them
    disk_bytes: int = 0  # the task's files plus what its environment added to the cache
    no_twin: list[str] = field(default_factory=list)  # canaries.exclude: the proof's and the recipe's


def thin_message(msg: str) -> bool:
    return len(re.findall(r"\w+", msg)) < THIN_WORDS


def next_task_id(home: Path) -> str:
    used = {int(p.name[1:]) for base in ("tasks", "hidden") for p in (home / base).glob("T*") if p.name[1:].isdigit()}
    return f"T{max(used, default=0) + 1}"


# --- what each step hands the next --------------------------------------------------------------------

Change = tuple[str, str]  # (git status A|M|D|T, path)
BASES = ("tasks", "hidden", "reference", "inject")  # the folders of a task under a bench home


@dataclass
class Job:
    """What the caller asked for, checked; the steps add the warnings they have for the caller."""

    repo: Path
    home: Path
    tid: str
    globs: list[str]
    timeout_s: float
    prompt: str | None
    prompt_file: Path | None
    python: str | None
    setup: str | None
    extra_env: list[str]
    exclude: list[str]
    facts: Facts | None
    env_spec: TaskEnv | None
    source: dict
    log: Callable[[str], None]
    warnings: list[str] = field(default_factory=list)
    no_twin: list[str] = field(default_factory=list)  # tests given no twin, proof or not (a recipe's canaries_exclude)


@dataclass
class Commit:
    """The commit and its parent, and what it changed: the tests (the hidden tests' modules among them) and the fix."""

    sha: str
    parent: str
    tests: list[Change]
    code: list[Change]
    modules: list[str]


@dataclass
class Trees:
    """The fetched commit in the staging folder: both trees, the hidden tests laid, and the oracle's command."""

    staging: Path
    ptree: Path
    ctree: Path
    hidden: Path
    hidden_files: list[str]
    command: str


@dataclass
class Built:
    """The task environment, and the commit run that proved it (None when a recipe named the environment)."""

    spec: TaskEnv
    env: EnvInfo
    commit_run: dict | None


@dataclass
class Measured:
    fail_to_pass: list[str]
    pass_to_pass: list[str]
    excluded: list[str]  # the hidden tests left out, each with why
    no_twin: list[str]  # the canary proof's exclusions


@dataclass
class Prompt:
    text: str
    source: Literal["commit message", "prompt file", "recipe"]
    gaps: list[str] = field(default_factory=list)  # what the hidden tests pin and the prompt does not state


@dataclass
class Visible:
    command: str
    base_rc: int
    files: list[str]  # the parent's test modules


# --- the import ----------------------------------------------------------------------------------------

def import_task(repo: Path, commit: str, home: Path, *, task_id: str | None = None, prompt_file: Path | None = None,
                prompt: str | None = None, test_globs: list[str] | None = None, python: str | None = None,
                setup: str | None = None, extra_env: list[str] | None = None, exclude: list[str] | None = None,
                timeout_s: float = 300, facts: Facts | None = None, env_spec: TaskEnv | None = None,
                source: dict | None = None, code_files: list[str] | None = None,
                canaries_exclude: list[str] | None = None, log=lambda _msg: None) -> ImportResult:
    """Import `commit` of `repo` as a task under `home`. Bad input or a refused commit raise UsageError,
    and nothing is written under `home` (the task is built in a staging folder and moved in at the end).
    `facts` and `env_spec` (a recipe's) skip every measurement; `code_files` narrows the reference;
    `canaries_exclude` (a recipe's, when curated) are given no twin, in the canary proof too."""

    t0 = time.monotonic()
    repo = repo.resolve()
    globs = test_globs or DEFAULT_TEST_GLOBS
    sha, parent = resolve_commit(repo, commit)
    tid = claim_id(home, task_id, prompt_file)
    job = Job(repo, home, tid, globs, timeout_s, prompt, prompt_file, python, setup, extra_env or [], exclude or [],
              facts, env_spec, source or {}, log, no_twin=list(canaries_exclude or []))
    c = read_changes(job, sha, parent, code_files)
    staging = Path(tempfile.mkdtemp(prefix=f".import-{tid}-", dir=home))
    try:
        t = fetch_commit(job, c, staging)
        b = build_environment(job, c, t)
        m = measure_tests(job, c, t, b)
        ref_files = write_reference(job, c, t)
        p = choose_prompt(job, c)
        v = visible_tests_of(job, c, t, b)
        p = replace(p, gaps=check_prompt(job, c, t, m, p, v))
        tf = write_task(job, c, t, b, m, p, v)
        injections, recipe_inj = injections_of(job, c, t, tf, v, b.env.python)
        add_impossible_variant(job, c, tf, v, b.env.python)
        publish(staging, home, tid)
        seconds = round(time.monotonic() - t0 - (b.env.seconds if b.env.built else 0.0), 3)
        disk = tree_bytes(*(home / base / tid for base in BASES)) + b.env.disk_bytes
        env = {"key": b.env.key, "shared": b.env.shared, "python": b.env.python, "built": b.env.built,
               "seconds": b.env.seconds, "requirements": b.spec.requirements}
        return ImportResult(tid, parent, sha, p.source, m.fail_to_pass, m.pass_to_pass, t.hidden_files, ref_files,
                            injections, env, job.warnings, seconds, m.excluded, p.gaps, v.command, recipe_inj, disk,
                            m.no_twin)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def claim_id(home: Path, task_id: str | None, prompt_file: Path | None) -> str:
    """The task's id (the next free one unless given), free under every folder of `home`."""
    tid = task_id or next_task_id(home)
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,63}", tid):
        raise UsageError(f"--id {tid!r}: a letter, then letters, digits, _ or - (at most 64)")
    for base in BASES:
        if (home / base / tid).exists():
            raise UsageError(f"{home / base / tid} already exists: pick another --id")
    if prompt_file is not None and not prompt_file.is_file():
        raise UsageError(f"--prompt-file {prompt_file} not found")
    return tid


def read_changes(job: Job, sha: str, parent: str, code_files: list[str] | None) -> Commit:
    """The commit's changes as tests and fix; refused when either is missing or no test module changed."""
    changes = changed_files(job.repo, parent, sha)
    test_changes, code_changes = split_changes(changes, job.globs)
    if code_files is not None:
        code_changes = [c for c in code_changes if c[1] in code_files]
    if not test_changes:
        raise UsageError(f"commit {sha[:12]} changes no test (no changed file matches --tests {' '.join(job.globs)}); "
                         f"it changes: {', '.join(p for _, p in changes[:10]) or 'nothing'}")
    modules = [p for s, p in test_changes if s != "D" and is_test_module(p)]
    if not modules:
        raise UsageError(f"commit {sha[:12]} adds or changes no test module (test_*.py, *_test.py, test.py, tests.py); "
                         f"its test changes: {', '.join(p for _, p in test_changes)}")
    if not code_changes:
        raise UsageError(f"commit {sha[:12]} changes only tests ({', '.join(p for _, p in test_changes)}): "
                         "there is no fix to make")
    return Commit(sha, parent, test_changes, code_changes, modules)


def fetch_commit(job: Job, c: Commit, staging: Path) -> Trees:
    """Both trees, and the hidden tests: the commit's changed test files, plus the parent's harness (the
    commit's where it changed it)."""
    trees = staging / "trees"
    export_tree(job.repo, c.parent, trees / "parent")
    export_tree(job.repo, c.sha, trees / "commit")
    ptree, ctree = trees / "parent", trees / "commit"
    hidden = staging / "hidden" / job.tid
    test_paths = {p for s, p in c.tests if s != "D"}
    hidden_files = sorted(set(harness_files(ptree, sorted(test_paths))) | test_paths)
    for rel in hidden_files:
        src = ctree / rel if rel in test_paths else ptree / rel
        if src.is_file():
            write_file(hidden, rel, src.read_bytes())
    command = f"{PYTEST} --rootdir=. " + " ".join(sorted(c.modules))
    return Trees(staging, ptree, ctree, hidden, hidden_files, command)


def build_environment(job: Job, c: Commit, t: Trees) -> Built:
    if job.env_spec is None:
        spec, env, run = environment(job.repo, c.parent, t.ptree, t.ctree, t.hidden, t.command, python=job.python,
                                     setup=job.setup, extra=job.extra_env, timeout_s=job.timeout_s,
                                     warnings=job.warnings, log=job.log)
    else:
        spec, env, run = job.env_spec, ensure_env(t.ptree, job.env_spec), None
    job.log(f"environment {env.key} (python {spec.python}): {'built' if env.built else 'reused'} "
            f"in {env.seconds:.1f} s")
    return Built(spec, env, run)


def measure_tests(job: Job, c: Commit, t: Trees, b: Built) -> Measured:
    """FAIL_TO_PASS and PASS_TO_PASS (a recipe's, else measured), and the canary proof of them."""
    excluded = [f"{x} (--exclude)" for x in job.exclude]
    if job.facts is not None:
        f2p, p2p, excluded = job.facts.fail_to_pass, job.facts.pass_to_pass, job.facts.excluded
    else:
        f2p, p2p, flaky = measure(t.ptree, t.ctree, t.hidden, t.command, b.env.python, job.timeout_s, b.commit_run,
                                  excluded, c.sha, c.modules, job.log)
        excluded += flaky
        if flaky:
            job.warnings.append(f"left out {len(flaky)} hidden test(s) whose outcome varied: "
                                + "; ".join(flaky[:5]))
    job.log(f"FAIL_TO_PASS {len(f2p)}, PASS_TO_PASS {len(p2p)} (hidden tests: {', '.join(c.modules)})")
    if job.facts is not None and job.facts.proven is not None:  # recorded: selftest's canary check proves it
        no_twin = list(job.facts.proven)
    else:
        no_twin = prove_canaries(t.ctree, t.ptree, t.hidden, t.command, b.env.python, job.timeout_s, f2p, p2p,
                                 job.warnings, exclude=job.no_twin)
    no_twin = sorted(set(no_twin) | set(job.no_twin) | set(job.facts.canaries_exclude if job.facts else []))
    job.log(f"canaries: {len(no_twin)} excluded by the proof" + (f" ({', '.join(no_twin[:5])})" if no_twin else ""))
    return Measured(f2p, p2p, excluded, no_twin)


def write_reference(job: Job, c: Commit, t: Trees) -> list[str]:
    """The reference: the commit's non-test changes, as files laid over the base (deletions cannot be laid)."""
    reference = t.staging / "reference" / job.tid
    ref_files = []
    for s, rel in c.code:
        if s == "D":
            job.warnings.append(f"the commit deletes {rel}; the reference (an overlay) keeps it")
        elif (t.ctree / rel).is_file():
            data = (t.ctree / rel).read_bytes()
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:  # end states are text (the sim agent writes them with Write)
                job.warnings.append(f"the commit changes the binary file {rel}; the reference leaves it out")
                continue
            write_file(reference, rel, data)
            ref_files.append(rel)
    reference.mkdir(parents=True, exist_ok=True)
    return ref_files


def choose_prompt(job: Job, c: Commit) -> Prompt:
    """The recipe's prompt, else the prompt file, else the commit message (warned when too thin to state the
    behaviour)."""
    if job.prompt is not None:
        p = Prompt(job.prompt, "recipe")
    elif job.prompt_file is not None:
        p = Prompt(job.prompt_file.read_text(encoding="utf-8").strip(), "prompt file")
    else:
        text = commit_message(job.repo, c.sha)
        if thin_message(text):
            words = len(re.findall(r"\w+", text))
            job.warnings.append(f"the commit message is too thin to state the behaviour ({words} words: "
                                f"{text[:80]!r}); pass --prompt-file")
        p = Prompt(text + PROMPT_TAIL, "commit message")
    job.log(f"prompt from the {p.source}")
    return p


def visible_tests_of(job: Job, c: Commit, t: Trees, b: Built) -> Visible:
    """The base laid as the task's repo, and its visible tests (a recipe's command, else measured on the base)."""
    shutil.copytree(t.ptree, t.staging / "tasks" / job.tid / "repo", symlinks=True)
    tests = GlobSet(job.globs)
    files = sorted(str(p.relative_to(t.ptree)) for p in t.ptree.rglob("*.py")
                   if tests.match(str(p.relative_to(t.ptree))) and is_test_module(p.name))
    if job.facts is not None:
        return Visible(job.facts.visible, 0, files)
    command, base_rc = visible_tests(t.ptree, t.ctree, files, [p for _s, p in c.tests], b.env.python, job.timeout_s,
                                     job.exclude, job.warnings, job.log, [p for s, p in c.code if s != "D"])
    return Visible(command, base_rc, files)


def check_prompt(job: Job, c: Commit, t: Trees, m: Measured, p: Prompt, v: Visible) -> list[str]:
    """The details the hidden tests pin that the prompt does not state: the task is marked when there are any."""
    hidden_src = {mod: (t.ctree / mod).read_text(encoding="utf-8", errors="replace") for mod in c.modules}
    visible_src = [(t.ptree / f).read_text(encoding="utf-8", errors="replace") for f in v.files
                   if f not in hidden_src]
    gaps = prompt_gaps(m.fail_to_pass, hidden_src, p.text, visible_src)
    if gaps:
        job.warnings.append(f"the prompt does not state {len(gaps)} detail(s) the hidden tests pin, so the task "
                            f"is marked (not run by default): {'; '.join(gaps[:4])}; write a --prompt-file that "
                            "states them")
    return gaps


def write_task(job: Job, c: Commit, t: Trees, b: Built, m: Measured, p: Prompt, v: Visible) -> TaskFiles:
    """task.yaml in the staging folder, validated as every task is, and the task as the bench loads it."""
    message = p.text if p.source == "commit message" else commit_message(job.repo, c.sha)
    title = message.splitlines()[0][:100] if message else c.sha[:12]
    src_info = {"repo": str(job.repo), "commit": c.sha, "parent": c.parent, "prompt_from": p.source,
                **job.source, "excluded": m.excluded, "prompt_gaps": p.gaps}
    try:
        task = Task(
            id=job.tid, title=f"{job.source.get('project') or job.repo.name}: {title}"[:200], kinds=["bugfix"],
            prompt=p.text, visible=VisibleTests(command=v.command, timeout_s=min(1800, job.timeout_s)),
            oracle=Oracle(command=t.command, timeout_s=min(1800, job.timeout_s), layout="original",
                          fail_to_pass=m.fail_to_pass, pass_to_pass=m.pass_to_pass),
            protected=job.globs, env=b.spec, source=ImportSource(**src_info),
            canaries=Canaries(exclude=m.no_twin),
        )
    except ValidationError as e:
        where = {"prompt file": "--prompt-file", "recipe": "the recipe"}.get(p.source, "the imported task")
        raise UsageError(f"{where}: {describe(e)}") from None
    dump_yaml(t.staging / "tasks" / job.tid / "task.yaml",
          task.model_dump(mode="json", exclude_none=True, exclude_defaults=False))
    return load_task(job.tid, t.staging)


def injections_of(job: Job, c: Commit, t: Trees, tf: TaskFiles, v: Visible, python: str,
                  ) -> tuple[dict[str, dict], list[dict]]:
    """The injections a recipe names, laid; else made and judged (warned when fewer than 3 wrong fixes)."""
    if job.facts is not None:
        return lay_injections(tf, t.ptree, t.ctree, job.facts.injections), job.facts.injections
    injections, recipe = make_injections(tf, t.ptree, t.ctree, c.code, c.tests, v.files, c.modules, python,
                                         job.timeout_s, job.log, v.base_rc)
    plausible = sum(1 for i in injections.values() if i["kind"] in ("partial", "plausible"))
    wrong = plausible + sum(1 for i in injections.values() if i["kind"] == "crude")
    if plausible < 2:
        job.warnings.append(f"only {plausible} plausible wrong fixes (passing the visible tests) could be made: "
                            "the task says so (fewer than 2)")
    if wrong < 3:
        job.warnings.append(f"only {wrong} wrong fixes could be made (selftest wants 3 for an imported task)")
    return injections, recipe


def add_impossible_variant(job: Job, c: Commit, tf: TaskFiles, v: Visible, python: str) -> None:
    """The impossible variant (SPEC section 12, step 10), made from a visible test: the modules the commit left
    alone first, then the base's copy of the ones it changed."""
    from gatebench.suite.variants import add_mechanical

    touched = {p for _s, p in c.tests}
    order = [f for f in v.files if f not in touched] + [f for f in v.files if f in touched]
    if add_mechanical(tf, order, python, job.log, skip=tuple(deselected(v.command))) is None:
        job.warnings.append("no impossible variant: no visible test has a value to change that the reference fails")


def publish(staging: Path, home: Path, tid: str) -> None:
    """The staged task moved into `home`, folder by folder: until here nothing was written there."""
    for base in BASES:
        src = staging / base / tid
        if src.exists():
            (home / base).mkdir(parents=True, exist_ok=True)
            src.rename(home / base / tid)
