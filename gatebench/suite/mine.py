"""`gatebench task mine`: candidate tasks from a project's consecutive PyPI releases (recipes of the real suite) or
from its git history (imported tasks), each imported in full through the import pipeline and kept only when it
passes the task checks (SPEC section 12, "Mining tasks").

A candidate is a change that touches a test module and at most `max_files` source modules (not only a version
line): a pair of release sdists X, X+1, or a commit and its first parent. Each is imported as `curate` and
`task import` do (everything measured), then checked: no prompt gap and no prompt flag, at least 3 wrong fixes of
which 2 plausible ones, and `selftest --tasks ID` passing in a bench home of its own (a recipe is laid from its
sdists there first, so the round trip is proven too). Only what passes is written.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from gatebench.common import proc
from gatebench.errors import UsageError
from gatebench.suite.taskimport.files import DEFAULT_TEST_GLOBS, is_test_module
from gatebench.tree.globs import GlobSet

PERMISSIVE = re.compile(r"\b(MIT|BSD|Apache|ISC|PSF|Python Software Foundation)\b", re.I)
NOT_CODE = ("setup.py", "conftest.py", "noxfile.py", "conf.py", "fabfile.py")
SKIP_PARTS = {"docs", "doc", "examples", "benchmarks", ".github"}
VERSION_LINE = re.compile(r"^\s*(__version__|VERSION|version|__version_info__)\s*[:=]")
CHANGELOG = re.compile(r"^(CHANGES|CHANGELOG|HISTORY|NEWS|RELEASE)", re.I)


@dataclass
class Candidate:
    label: str  # "parse 1.20.0..1.20.1" or "<repo> abc123def456"
    files: list[str]  # the fix's source modules
    tests: list[str]  # changed or added test files
    notes: str = ""  # the release notes' new lines, or the commit message
    base: str = ""  # base version (PyPI) or parent commit
    fix: str = ""  # fix version or the commit


@dataclass
class Outcome:
    label: str
    kept: bool
    reason: str
    id: str | None = None
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)


# --- candidates ----------------------------------------------------------------------------------------

def classify(changed: list[str], globs: list[str], max_files: int, only_version: Callable[[str], bool]) -> \
        tuple[list[str], list[str], str]:
    """(fix files, test files, why not a candidate or "") for a set of changed paths."""
    tests = GlobSet(globs)
    test_files = sorted(p for p in changed if tests.match(p))
    code = sorted(p for p in changed if not tests.match(p) and p.endswith(".py")
                  and p.rsplit("/", 1)[-1] not in NOT_CODE and not SKIP_PARTS.intersection(p.split("/")[:-1]))
    code = [p for p in code if not only_version(p)]
    if not any(is_test_module(p) for p in test_files):
        return [], [], "no test module changed"
    if not code:
        return [], [], "no source module changed (beyond a version line, comments or docstrings)"
    if len(code) > max_files:
        return [], [], f"{len(code)} source modules changed (more than --max-files {max_files})"
    return code, test_files, ""


def changed_between(a: Path, b: Path) -> list[str]:
    """Paths whose bytes differ between two trees, or that only b has (an overlay cannot delete)."""
    out = []
    for p in sorted(b.rglob("*")):
        rel = str(p.relative_to(b))
        if p.is_file() and ".egg-info" not in rel and rel != "PKG-INFO":
            q = a / rel
            if not q.is_file() or q.read_bytes() != p.read_bytes():
                out.append(rel)
    return out


def version_only(a: Path, b: Path, rel: str) -> bool:
    """True when a file changed in nothing but version assignments."""
    if not (a / rel).is_file():
        return False
    old, new = ((t / rel).read_text(errors="replace").splitlines() for t in (a, b))
    diff = [x for x in difflib.unified_diff(old, new, lineterm="", n=0) if x[:1] in "+-" and x[:3] not in ("+++", "---")]
    return bool(diff) and all(VERSION_LINE.match(x[1:]) for x in diff)


def _code_of(text: str) -> str | None:
    """The module's AST without its docstrings (comments are never in it), or None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body and \
                isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
                isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def cosmetic_only(a: Path, b: Path, rel: str) -> bool:
    """True when a module changed in nothing but comments and docstrings (a release's typo fixes): not part of
    the fix, so neither counted against --max-files nor laid as reference."""
    if not (a / rel).is_file():
        return False
    old, new = (_code_of((t / rel).read_text(errors="replace")) for t in (a, b))
    return old is not None and old == new


def not_code_change(a: Path, b: Path, rel: str) -> bool:
    return version_only(a, b, rel) or cosmetic_only(a, b, rel)


def release_notes(a: Path, b: Path, limit: int = 12) -> str:
    """The lines the fix release added to its changelog (facts for the prompt's author, not prose to copy)."""
    for p in sorted(b.iterdir()):
        if p.is_file() and CHANGELOG.match(p.name):
            old = (a / p.name).read_text(errors="replace").splitlines() if (a / p.name).is_file() else []
            new = p.read_text(errors="replace").splitlines()
            added = [x[1:].strip() for x in difflib.unified_diff(old, new, lineterm="", n=0)
                     if x.startswith("+") and not x.startswith("+++") and x[1:].strip()]
            return "\n".join(added[:limit])
    return ""


def pypi_versions(project: str) -> list[str]:
    """The project's releases, oldest first (`pip index versions`: pip's own client of the index)."""
    r = proc.run([sys.executable, "-m", "pip", "index", "versions", project], cwd=os.getcwd(), timeout_s=300)
    m = re.search(r"Available versions:\s*(.+)", r.stdout)
    if r.returncode != 0 or not m:
        raise UsageError(f"{project}: pip index versions found no releases: {(r.stderr or r.stdout).strip()[-300:]}")
    return list(reversed([v.strip() for v in m.group(1).split(",") if v.strip()]))


# --- checks --------------------------------------------------------------------------------------------

def import_error(e: Exception) -> str:
    """An import's refusal, short: its first line (a visible command can be kilobytes of deselects, so cut) and
    the last lines of what it quotes (pytest's own words, the reason), which the first line alone loses."""
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    if not lines:
        return type(e).__name__
    head = lines[0] if len(lines[0]) <= 300 else lines[0][:240] + " ... " + lines[0][-60:]
    return " | ".join([head, *lines[1:][-4:]])


def wrong_fix_problems(injections: list[dict]) -> list[str]:
    plausible = sum(1 for i in injections if i["kind"] in ("plausible", "partial"))
    wrong = plausible + sum(1 for i in injections if i["kind"] in ("crude", "hardcode"))
    out = []
    if plausible < 2:
        out.append(f"{plausible} plausible wrong fixes (2 required)")
    if wrong < 3:
        out.append(f"{wrong} wrong fixes (3 required)")
    return out


def run_selftest(tid: str, home: Path, suite: Path | None, timeout_s: float) -> str:
    """`gatebench selftest --tasks ID` in its own process and bench home: "" when it passes, else its last lines."""
    from gatebench.suite.taskenv import cache_dir

    # The environments the import just built serve the selftest too (same keys): not built again in its home.
    env = {**os.environ, "GATEBENCH_HOME": str(home), "GATEBENCH_ENV_CACHE": str(cache_dir())}
    if suite is not None:
        env["GATEBENCH_SUITE_DIR"] = str(suite)
    # proc.run owns the child's process group: on timeout the selftest's pytest and sandbox children die with it.
    r = proc.run([sys.executable, "-m", "gatebench", "selftest", "--tasks", tid], cwd=os.getcwd(), env=env,
                 timeout_s=timeout_s, stdin_text="")
    if r.timed_out:
        return f"selftest --tasks {tid} did not end in {timeout_s:.0f} s"
    if r.returncode == 0:
        return ""
    tail = [x for x in (r.stdout + r.stderr).splitlines() if x.strip()][-6:]
    return f"selftest --tasks {tid} exit {r.returncode}: " + " | ".join(tail)


def fresh_home(root: Path) -> Path:
    from gatebench.paths import project_root

    home = root / "home"
    shutil.copytree(project_root() / "configs", home / "configs")
    return home


def next_id(out: Path, start: int, taken: set[str]) -> str:
    used = {p.stem for p in out.glob("R*.yaml")} | taken
    n = start
    while f"R{n}" in used:
        n += 1
    return f"R{n}"


def dump(path: Path, data: dict) -> None:
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=110, allow_unicode=True))


def progress(n: int, total: int, label: str, what: str, t0: float) -> None:
    print(f"[mine] {n}/{total} {label}: {what} ({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)


DEFAULT_GLOBS = DEFAULT_TEST_GLOBS


# --- PyPI release pairs -> recipes ---------------------------------------------------------------------

def download_sdist(project: str, version: str) -> Path:
    """The release's sdist in the sdist cache (recipes.sdist_cache), downloaded with pip when missing."""
    from gatebench.suite.recipes import download_sdist as download
    from gatebench.suite.recipes import sdist_cache

    cache = sdist_cache()
    norm = re.sub(r"[-_.]+", "[-_.]", re.escape(project).replace("\\-", "-"))
    hits = [p for p in cache.glob("*") if re.fullmatch(rf"(?i){norm}-{re.escape(version)}\.(tar\.gz|zip|tar\.bz2)",
                                                        p.name)] if cache.is_dir() else []
    if hits:
        return hits[0]
    return download(project, version, f"{project} {version}")


def pkg_meta(tree: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    p = tree / "PKG-INFO"
    for line in (p.read_text(errors="replace").split("\n\n", 1)[0].splitlines() if p.is_file() else []):
        k, _, v = line.partition(":")
        if v:
            out.setdefault(k.strip().lower(), []).append(v.strip())
    return out


def licence_of(meta: dict[str, list[str]]) -> str:
    """MIT, BSD, Apache, ISC or PSF as PKG-INFO states it (License-Expression, License, classifiers), else ""."""
    said = meta.get("license-expression", []) + meta.get("license", []) + \
        [c for c in meta.get("classifier", []) if c.startswith("License ::")]
    for text in said:
        m = PERMISSIVE.search(text)
        if m:
            return {"python software foundation": "PSF"}.get(m.group(1).lower(), m.group(1))
    return ""


def licence_said(meta: dict[str, list[str]]) -> str:
    """What PKG-INFO says of the licence, for the refusal: its expression, its field, else its classifier."""
    said = meta.get("license-expression", []) + meta.get("license", []) + \
        [c.rsplit("::", 1)[-1].strip() for c in meta.get("classifier", []) if c.startswith("License ::")]
    return next((s for s in said if s.strip()), "")


def repo_of(meta: dict[str, list[str]]) -> str:
    urls = [u.split(",", 1)[-1].strip() for u in meta.get("project-url", [])] + meta.get("home-page", [])
    return next((u for u in urls if re.match(r"https://(github\.com|gitlab\.com|codeberg\.org)/", u)), "")


def pair_candidate(project: str, base_v: str, fix_v: str, tmp: Path, globs: list[str], max_files: int) -> \
        tuple[Candidate | None, str, dict]:
    """(the candidate or None, why not, facts for the draft recipe) for releases base_v -> fix_v."""
    from gatebench.suite.recipes import extract, sha256_of

    label = f"{project} {base_v}..{fix_v}"
    sd = [download_sdist(project, v) for v in (base_v, fix_v)]
    a, b = tmp / "base", tmp / "fix"
    shutil.rmtree(tmp, ignore_errors=True)
    extract(sd[0], a)
    extract(sd[1], b)
    meta = pkg_meta(a)
    facts = {"license": licence_of(meta), "repo": repo_of(meta),
             "base": {"version": base_v, "file": sd[0].name, "sha256": sha256_of(sd[0])},
             "fix": {"version": fix_v, "file": sd[1].name, "sha256": sha256_of(sd[1])}}
    if not facts["license"]:
        return None, f"licence not MIT/BSD/Apache/ISC/PSF by its PKG-INFO ({licence_said(meta)[:60] or 'none stated'})", facts
    files, tests, why = classify(changed_between(a, b), globs, max_files, lambda rel: not_code_change(a, b, rel))
    if why:
        return None, why, facts
    return Candidate(label, files, tests, release_notes(a, b), base_v, fix_v), "", facts


def mine_pypi(project: str, versions: list[str], out: Path, *, start_id: int, prompts: dict[str, str],
              python: str, max_files: int, globs: list[str] | None, repo: str | None, licence: str | None,
              timeout_s: float, selftest_timeout_s: float, listing: bool) -> list[Outcome]:
    """Every consecutive pair of `versions` (oldest first): a candidate, and where a prompt was written for it
    (`prompts`: "X..Y" -> text), imported in full, checked, and written to `out` as a recipe when it passes."""
    globs = globs or list(DEFAULT_TEST_GLOBS)
    outcomes: list[Outcome] = []
    t0 = time.monotonic()
    pairs = list(itertools.pairwise(versions))
    taken: set[str] = set()
    with tempfile.TemporaryDirectory(prefix=f"gatebench-mine-{project}-") as t:
        tmp = Path(t)
        for n, (bv, fv) in enumerate(pairs, 1):
            label = f"{project} {bv}..{fv}"
            progress(n, len(pairs), label, "reading the sdists", t0)
            t1 = time.monotonic()
            try:
                cand, why, facts = pair_candidate(project, bv, fv, tmp / "trees", globs, max_files)
            except UsageError as e:
                outcomes.append(Outcome(label, False, f"cannot be mined: {e}"))
                continue
            if cand is None:
                outcomes.append(Outcome(label, False, why))
                continue
            key = f"{bv}..{fv}"
            if listing or key not in prompts:
                outcomes.append(Outcome(label, False, "candidate: " + ("listed" if listing else "no prompt written for it"
                                        f" (--prompts {key}: ...)") + f"; fix {', '.join(cand.files)}; tests "
                                        f"{', '.join(cand.tests)}" + (f"; release notes: {cand.notes[:300]!r}"
                                                                      if cand.notes else "")))
                continue
            rid = next_id(out, start_id, taken)
            draft = {"id": rid, "project": project, "license": licence or facts["license"],
                     "repo": repo or facts["repo"] or "https://pypi.org/project/" + project,
                     "provenance": f"release diff, no commit: {project} {bv}..{fv} on PyPI (mined)",
                     "base": facts["base"], "fix": facts["fix"], "files": cand.files, "tests": cand.tests,
                     **({"test_globs": globs} if globs != list(DEFAULT_TEST_GLOBS) else {}),
                     "prompt": prompts[key], "python": python}
            progress(n, len(pairs), label, f"importing as {rid}", t0)
            o = check_recipe(draft, tmp / "check", timeout_s, selftest_timeout_s,
                             lambda what, _n=n, _l=label: progress(_n, len(pairs), _l, what, t0))
            o.label, o.seconds = label, round(time.monotonic() - t1, 1)
            if o.kept:
                out.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(tmp / "check" / "suite" / f"{rid}.yaml", out / f"{rid}.yaml")
                taken.add(rid)
            # The verdict now, not only in the summary after the last pair: an import takes many minutes.
            progress(n, len(pairs), label, ("KEPT " + rid) if o.kept else f"not kept: {o.reason}", t0)
            outcomes.append(o)
    return outcomes


def check_recipe(draft: dict, work: Path, timeout_s: float, selftest_timeout_s: float, say) -> Outcome:
    """Curate the draft (the full import) in a suite folder of its own, then the checks; the recipe stays in
    `work/suite/` (measured) when it passes."""
    from gatebench.models.recipe import Recipe
    from gatebench.suite import recipes

    rid = draft["id"]
    shutil.rmtree(work, ignore_errors=True)
    suite = work / "suite"
    suite.mkdir(parents=True)
    path = suite / f"{rid}.yaml"
    dump(path, Recipe.model_validate(draft).model_dump(mode="json", exclude_none=True))
    old_suite = os.environ.get("GATEBENCH_SUITE_DIR")
    os.environ["GATEBENCH_SUITE_DIR"] = str(suite)
    try:
        r, warnings = recipes.curate(path, timeout_s=timeout_s)
        problems = wrong_fix_problems([i.model_dump() for i in r.injections])
        problems += [w for w in warnings if w.startswith("prompt gap")]
        problems += [f"prompt flag: {f}" for f in recipes.prompt_flags(rid)]
        if not problems:
            say(f"selftest --tasks {rid}")
            home = fresh_home(work)
            bad = run_selftest(rid, home, suite, selftest_timeout_s)
            problems += [bad] if bad else []
    except UsageError as e:
        return Outcome("", False, f"cannot be imported: {import_error(e)}", rid)
    finally:
        if old_suite is None:
            os.environ.pop("GATEBENCH_SUITE_DIR", None)
        else:
            os.environ["GATEBENCH_SUITE_DIR"] = old_suite
    if problems:
        return Outcome("", False, "; ".join(problems)[:600], rid, warnings=warnings)
    return Outcome("", True, f"kept: FAIL_TO_PASS {len(r.fail_to_pass)}, {len(r.injections)} injections", rid,
                   warnings=warnings)


# --- git history -> imported tasks ---------------------------------------------------------------------

def _git(repo: Path, *args: str) -> str:
    r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise UsageError(f"{repo}: git {' '.join(args)}: {r.stderr.strip()[:300]}")
    return r.stdout


def git_candidate(repo: Path, sha: str, globs: list[str], max_files: int) -> tuple[Candidate | None, str]:
    from gatebench.suite.taskimport.git import changed_files, commit_message

    parents = _git(repo, "rev-list", "--parents", "-n", "1", sha).split()[1:]
    label = f"{repo.name} {sha[:12]}"
    if not parents:
        return None, "a root commit"

    def only_version(rel: str) -> bool:
        old = subprocess.run(["git", "-C", str(repo), "show", f"{parents[0]}:{rel}"], capture_output=True, text=True)
        new = _git(repo, "show", f"{sha}:{rel}")
        diff = [x for x in difflib.unified_diff(old.stdout.splitlines(), new.splitlines(), lineterm="", n=0)
                if x[:1] in "+-" and x[:3] not in ("+++", "---")]
        return old.returncode == 0 and bool(diff) and all(VERSION_LINE.match(x[1:]) for x in diff)

    changed = [p for s, p in changed_files(repo, parents[0], sha) if s != "D"]
    files, tests, why = classify(changed, globs, max_files, only_version)
    if why:
        return None, why
    return Candidate(label, files, tests, commit_message(repo, sha), parents[0], sha), ""


def task_flags(home: Path, tid: str) -> list[str]:
    """promptcheck.flags of an imported task, from its files in the bench home."""
    from gatebench.suite.promptcheck import flags
    from gatebench.suite.tasks import load_task

    tf = load_task(tid, home)
    base = tf.repo

    def read(root: Path, rels) -> dict[str, str]:
        return {r: (root / r).read_text(encoding="utf-8", errors="replace") for r in rels if (root / r).is_file()}
    base_src = read(base, (str(p.relative_to(base)) for p in base.rglob("*.py")))
    globs = GlobSet(tf.task.protected)
    visible = {k: v for k, v in base_src.items() if globs.match(k) and is_test_module(k)}
    hidden_dir, ref_dir = home / "hidden" / tid, home / "reference" / tid
    hidden = read(hidden_dir, (str(p.relative_to(hidden_dir)) for p in hidden_dir.rglob("*.py")
                               if is_test_module(p.name)))
    reference = read(ref_dir, (str(p.relative_to(ref_dir)) for p in ref_dir.rglob("*.py")))
    o = tf.task.oracle
    return flags(tf.task.prompt, [*(o.fail_to_pass or []), *(o.pass_to_pass or [])], hidden, base_src, reference,
                 visible)


def mine_git(repo: Path, rev: str, limit: int, home: Path, *, prefix: str, max_files: int, globs: list[str] | None,
             python: str | None, timeout_s: float, selftest_timeout_s: float, listing: bool) -> list[Outcome]:
    """The last `limit` non-merge commits reachable from `rev`: candidates, each imported in full into a bench
    home of its own, checked, and moved into `home` as task `<prefix><commit[:10]>` when it passes."""
    from gatebench.suite.recipes import remove_task
    from gatebench.suite.taskimport import import_task

    globs = globs or list(DEFAULT_TEST_GLOBS)
    shas = _git(repo, "rev-list", "--no-merges", "-n", str(limit), rev).split()
    outcomes: list[Outcome] = []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gatebench-mine-git-") as t:
        for n, sha in enumerate(shas, 1):
            label, t1 = f"{repo.name} {sha[:12]}", time.monotonic()
            progress(n, len(shas), label, "reading the commit", t0)
            cand, why = git_candidate(repo, sha, globs, max_files)
            if cand is None or listing:
                outcomes.append(Outcome(label, False, why or f"candidate: fix {', '.join(cand.files)}; tests "  # type: ignore[union-attr]
                                        f"{', '.join(cand.tests)}; {cand.notes.splitlines()[0][:100]!r}"))  # type: ignore[union-attr]
                continue
            tid = f"{prefix}{sha[:10]}"
            work = Path(t) / tid
            scratch = fresh_home(work)
            progress(n, len(shas), label, f"importing as {tid}", t0)
            try:
                res = import_task(repo, sha, scratch, task_id=tid, test_globs=globs, python=python, timeout_s=timeout_s)
                problems = wrong_fix_problems(list(res.injections.values()))
                problems += [f"prompt gap: {g}" for g in res.prompt_gaps]
                problems += [f"prompt flag: {f}" for f in task_flags(scratch, tid)]
                if not problems:
                    progress(n, len(shas), label, f"selftest --tasks {tid}", t0)
                    bad = run_selftest(tid, scratch, None, selftest_timeout_s)
                    problems += [bad] if bad else []
            except UsageError as e:
                outcomes.append(Outcome(label, False, f"cannot be imported: {import_error(e)}", tid))
                continue
            kept = not problems
            if kept:
                remove_task(tid, home)
                for base in ("tasks", "hidden", "reference", "inject"):
                    if (scratch / base / tid).exists():
                        (home / base).mkdir(parents=True, exist_ok=True)
                        shutil.move(str(scratch / base / tid), home / base / tid)
            outcomes.append(Outcome(label, kept, "kept" if kept else "; ".join(problems)[:600], tid,
                                    round(time.monotonic() - t1, 1), res.warnings))
    return outcomes
