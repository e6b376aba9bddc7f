"""The real suite: recipes in `suites/real/`, materialized from PyPI sdists into the bench home's task folders.

No third-party code is committed: a recipe names the project, its licence, the fix commit, the two sdists
(base = release X, fix = release X+1, pinned by sha256), the fix's files and hidden test files, a prompt
written here, and what an earlier import measured. `materialize` downloads the sdists (the index's file list, else pip; cached in
`sdist_cache()`: an XDG cache dir, never the checkout), lays them as a two-commit git history in a temp folder (X; X with the fix's
files and tests as in X+1) and imports the second commit with the recipe's facts: nothing is measured or
judged again (selftest proves it). The tasks land in `tasks/R<n>`, `hidden/R<n>`, `reference/R<n>`,
`inject/R<n>` (git-ignored), with `source.recipe` holding the recipe's hash: a changed recipe is laid again.

`curate` is the other way round: a draft recipe (no measurements) is imported in full, in a temp home, and
the recipe is written back with what the import measured and what it cost.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from gatebench.common import proc
from gatebench.common.environ import environ
from gatebench.errors import UsageError
from gatebench.models.loading import load_model
from gatebench.models.recipe import Recipe, Sdist, SuiteSamples
from gatebench.models.task import TaskEnv
from gatebench.paths import bench_configs, project_root
from gatebench.suite.taskenv import dep_files
from gatebench.suite.taskimport import DEFAULT_TEST_GLOBS, Facts, import_task

SUITE = Path("suites") / "real"
GIT = ["git", "-c", "user.name=gatebench", "-c", "user.email=gatebench@localhost", "-c", "init.defaultBranch=main",
       "-c", "commit.gpgsign=false"]
GIT_ENV = {"GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}


def checkout() -> Path:
    """Recipes and the sdist cache live in the checkout (the bench home may be elsewhere)."""
    return Path(__file__).resolve().parent.parent.parent


def suite_dir() -> Path:
    """`suites/real` of the checkout, or `$GATEBENCH_SUITE_DIR` (tests use a suite of their own)."""
    env = os.environ.get("GATEBENCH_SUITE_DIR")
    return Path(env).resolve() if env else checkout() / SUITE


def recipe_paths() -> dict[str, Path]:
    d = suite_dir()
    out = {p.stem: p for p in d.glob("R*.yaml")} if d.is_dir() else {}
    return dict(sorted(out.items(), key=lambda kv: int(kv[0][1:]) if kv[0][1:].isdigit() else 0))


def load_recipe(rid: str) -> Recipe:
    paths = recipe_paths()
    if rid not in paths:
        raise UsageError(f"no recipe {rid!r} in {suite_dir()} (known: {', '.join(paths) or 'none'})")
    r = load_model(paths[rid], Recipe)
    if r.id != rid:
        raise UsageError(f"{paths[rid]}: id: {r.id!r} does not match its file name {rid!r}")
    return r


def samples() -> SuiteSamples:
    return load_model(suite_dir() / "suite.yaml", SuiteSamples)


def recipe_hash(r: Recipe) -> str:
    # An empty canaries_exclude is left out so that recipes written before the field keep their hash (and stay laid).
    skip = {"cost"} | (set() if r.canaries_exclude else {"canaries_exclude"}) | \
        (set() if r.canaries_proof is not None else {"canaries_proof"}) | (set() if r.test_env else {"test_env"})
    return hashlib.sha256(json.dumps(r.model_dump(mode="json", exclude=skip), sort_keys=True).encode()).hexdigest()[:16]


# --- sdists --------------------------------------------------------------------------------------------

SDIST_CACHE_ENV = "GATEBENCH_SDIST_CACHE"


def sdist_cache() -> Path:
    """$GATEBENCH_SDIST_CACHE, else `$XDG_CACHE_HOME/gatebench/sdists` (default `~/.cache`): never in a checkout,
    where a copy of the bench beside the agent would hold the fixed release (the reference) in plain sight."""
    if os.environ.get(SDIST_CACHE_ENV):
        return Path(os.environ[SDIST_CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gatebench" / "sdists"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


_SDIST_SUFFIXES = (".tar.gz", ".zip", ".tar.bz2")


def download_sdist(project: str, version: str, where: str, name: str | None = None) -> Path:
    """The release's sdist into `sdist_cache()`, from the index's file list (`pypi_files`: no build step) or else
    with pip download: the file `name`, or the one sdist found when None (`task mine`, which learns the name
    here). Its path in the cache."""
    from gatebench.suite import pypi_files

    cache = sdist_cache()
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gatebench-sdist-") as tmp:
        try:
            got = pypi_files.fetch(project, version, Path(tmp), name)
        except ValueError as e:
            raise UsageError(f"{where}: {e}") from None
        if got is not None:
            path = cache / got.name
            part = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.part")
            shutil.move(str(got), part)
            os.replace(part, path)
            return path
        # `--no-binary PROJECT`, not `:all:`: the sdist of the project only; pip prepares its metadata with build
        # dependencies as wheels (`:all:` built setuptools and the rest from source: minutes per sdist). proc.run
        # owns pip's process group, so a timeout ends the build backend it started too.
        r = proc.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", project,
                      f"{project}=={version}", "-d", tmp], cwd=tmp, timeout_s=600)
        said = (r.stderr or r.stdout).strip()
        if name is None:
            sdists = [p.name for p in Path(tmp).iterdir() if p.name.endswith(_SDIST_SUFFIXES)]
            if not sdists:
                raise UsageError(f"{where}: pip download gave no sdist: {said[-400:]}")
            name = sdists[0]
        elif not (Path(tmp) / name).is_file():
            found = ", ".join(p.name for p in Path(tmp).iterdir()) or "nothing"
            raise UsageError(f"{where}: pip download {project}=={version} gave {found}, not {name}: {said[-600:]}")
        # Parallel materializers read the cache: the file appears whole or not at all.
        path = cache / name
        part = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.part")
        shutil.move(str(Path(tmp) / name), part)
        os.replace(part, path)
        return path


def fetch_sdist(project: str, sd: Sdist, where: str = "") -> Path:
    """The sdist file from the cache, else from PyPI (`download_sdist`); its hash must be the recipe's."""
    path = sdist_cache() / sd.file
    if not path.is_file():
        download_sdist(project, sd.version, where, sd.file)
    digest = sha256_of(path)
    if digest != sd.sha256:
        raise UsageError(f"{where}: {path} has sha256 {digest}, the recipe pins {sd.sha256}: the download is not the "
                         "release the recipe was made from (delete the file to download it again)")
    return path


def extract(archive: Path, dest: Path) -> None:
    """An sdist's files into dest, without its top folder."""
    dest.mkdir(parents=True, exist_ok=True)
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                rel = info.filename.split("/", 1)[1] if "/" in info.filename else ""
                if rel and not info.is_dir() and ".." not in rel.split("/"):
                    (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                    (dest / rel).write_bytes(z.read(info))
        return
    with tarfile.open(archive) as tf:
        members = []
        for m in tf.getmembers():
            m.name = m.name.split("/", 1)[1] if "/" in m.name else ""
            if m.name and (m.isfile() or m.isdir()):
                members.append(m)
        tf.extractall(dest, members=members, filter="data")


def _git(repo: Path, *args: str) -> str:
    r = subprocess.run([*GIT, *args], cwd=repo, capture_output=True, text=True, env={**os.environ, **GIT_ENV})
    if r.returncode != 0:
        raise UsageError(f"git {' '.join(args)} in {repo}: {r.stderr.strip()[:300]}")
    return r.stdout.strip()


def lay_history(r: Recipe, repo: Path, where: str) -> str:
    """Commit 1: the base sdist. Commit 2: it with the fix's files and tests as in the fix sdist. The second's id."""
    base, fix = fetch_sdist(r.project, r.base, where), fetch_sdist(r.project, r.fix, where)
    extract(base, repo)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A", "-f")
    _git(repo, "commit", "-q", "-m", f"{r.project} {r.base.version}")
    with tempfile.TemporaryDirectory(prefix="gatebench-fix-") as tmp:
        extract(fix, Path(tmp))
        for rel in [*r.files, *r.tests]:
            src = Path(tmp) / rel
            if not src.is_file():
                raise UsageError(f"{where}: {rel} is not in {r.fix.file}")
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, repo / rel)
    _git(repo, "add", "-A", "-f")
    _git(repo, "commit", "-q", "--allow-empty", "-m", f"{r.project} {r.fix.version}: the fix ({r.provenance_label()})")
    return _git(repo, "rev-parse", "HEAD")


# --- materialize ---------------------------------------------------------------------------------------

def materialized(rid: str, home: Path | None = None) -> str | None:
    """The recipe hash a materialized task was laid from, or None."""
    path = (home or project_root()) / "tasks" / rid / "task.yaml"
    try:
        data = yaml.safe_load(path.read_text())
        return str(data["source"]["recipe"]).rsplit("@", 1)[-1]
    except (OSError, KeyError, TypeError, yaml.YAMLError):
        return None


def remove_task(rid: str, home: Path) -> None:
    for base in ("tasks", "hidden", "reference", "inject"):
        shutil.rmtree(home / base / rid, ignore_errors=True)


def materialize(rid: str, home: Path | None = None, log=lambda _m: None) -> dict:
    """Lay one recipe's task in the bench home (again if its recipe changed). Returns what it cost."""
    home = home or project_root()
    r = load_recipe(rid)
    where = str(recipe_paths()[rid])
    h = recipe_hash(r)
    if materialized(rid, home) == h and (home / "hidden" / rid).is_dir():
        return {"id": rid, "laid": False, "seconds": 0.0}
    if not r.fail_to_pass or not r.injections or not r.visible:
        raise UsageError(f"{where}: the recipe has no measurements yet (fail_to_pass, visible, injections): "
                         f"run `gatebench task curate {where}` first")
    t0 = time.monotonic()
    remove_task(rid, home)
    home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"gatebench-recipe-{rid}-") as tmp:
        repo = Path(tmp) / r.project
        cached = all((sdist_cache() / sd.file).is_file() for sd in (r.base, r.fix))
        t_fetch = time.monotonic()
        sha = lay_history(r, repo, where)
        fetch_s = round(time.monotonic() - t_fetch, 2)
        facts = Facts(r.fail_to_pass, r.pass_to_pass, r.visible, [i.model_dump(mode="json") for i in r.injections],
                      list(r.excluded), list(r.canaries_exclude), r.canaries_proof)
        spec = TaskEnv(python=r.python, requirements=r.requirements, deps=dep_files(repo))
        res = import_task(repo, sha, home, task_id=rid, prompt=r.prompt, test_globs=r.test_globs or DEFAULT_TEST_GLOBS,
                          code_files=r.files, facts=facts, env_spec=spec, log=log,
                          source={"repo": r.repo, "commit": r.provenance_label(), "parent": f"{r.project} {r.base.version} (sdist)",
                                  "project": r.project, "license": r.license, "recipe": f"{SUITE / rid}.yaml@{h}"})
    seconds = round(time.monotonic() - t0, 2)
    log(f"{rid}: laid from {r.base.file} and {r.fix.file} in {seconds:.1f} s (sdists {'cached' if cached else 'downloaded'}"
        f" and laid as history in {fetch_s:.1f} s; environment {res.env['key']}: "
        f"{'built' if res.env['built'] else 'reused'} in {res.env['seconds']:.1f} s)")
    return {"id": rid, "laid": True, "seconds": seconds, "env": res.env, "fetch_seconds": fetch_s, "downloaded": not cached}


MATERIALIZE_JOBS_ENV = "GATEBENCH_MATERIALIZE_JOBS"


def default_jobs() -> int:
    """`$GATEBENCH_MATERIALIZE_JOBS`, else 2 (bounded: the work is pytest and builds, CPU-bound on a 2-core machine)."""
    raw = os.environ.get(MATERIALIZE_JOBS_ENV, "")
    if raw and not (raw.isdigit() and int(raw) >= 1):
        raise UsageError(f"${MATERIALIZE_JOBS_ENV}={raw!r}: expected a whole number >= 1")
    return int(raw) if raw else max(1, min(2, os.cpu_count() or 1))


def ensure_tasks(ids: list[str], home: Path | None = None, log=lambda _m: None, jobs: int | None = None) -> list[dict]:
    """Materialize the recipes among `ids` that are not laid yet (bundled ids are left alone), `jobs` at a time.
    Recipes are grouped by project so that tasks sharing an environment wait on its build, not race to it.
    The first failure is raised once the running ones end (the others are not started)."""
    paths = recipe_paths()
    todo = [i for i in ids if i in paths]
    jobs = max(1, jobs or default_jobs())
    done: dict[str, dict] = {}
    lock = threading.Lock()

    def one(rid: str) -> dict:
        res = materialize(rid, home, log)
        with lock:
            done[rid] = res
            if res["laid"]:
                print(f"[real suite] {len(done)}/{len(todo)} {rid} laid in {res['seconds']:.1f} s", file=sys.stderr)
        return res

    if jobs == 1 or len(todo) < 2:
        for rid in todo:
            one(rid)
    else:
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="materialize") as pool:
            futures = [pool.submit(one, rid) for rid in _by_project(todo)]
            for f in futures:
                if f.exception() is not None:
                    for g in futures:
                        g.cancel()
                    raise f.exception()  # type: ignore[misc]
    return [done[rid] for rid in todo if rid in done]


def _by_project(ids: list[str]) -> list[str]:
    """Round robin over projects: two workers rarely wait on the same environment build at once."""
    groups: dict[str, list[str]] = {}
    for rid in ids:
        groups.setdefault(load_recipe(rid).project, []).append(rid)
    out: list[str] = []
    while any(groups.values()):
        for g in groups.values():
            if g:
                out.append(g.pop(0))
    return out


# --- curate --------------------------------------------------------------------------------------------

def curate(path: Path, log=lambda _m: None, timeout_s: float = 300) -> tuple[Recipe, list[str]]:
    """Import a recipe in full (measure everything) and write it back with the measurements. Returns the
    recipe and the import's warnings."""
    r = load_model(path, Recipe)
    where = str(path)
    with tempfile.TemporaryDirectory(prefix=f"gatebench-curate-{r.id}-") as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(bench_configs(), home / "configs")
        repo = Path(tmp) / r.project
        sha = lay_history(r, repo, where)
        with environ({"GATEBENCH_HOME": str(home)}, {"GATEBENCH_ENV_CACHE": str(checkout() / ".cache" / "envs")}):
            res = import_task(repo, sha, home, task_id=r.id, prompt=r.prompt, test_globs=r.test_globs or DEFAULT_TEST_GLOBS,
                              code_files=r.files, python=r.python, extra_env=r.test_env, timeout_s=timeout_s, log=log,
                              canaries_exclude=list(r.canaries_exclude),
                              source={"repo": r.repo, "commit": r.provenance_label(), "project": r.project, "license": r.license})
    data = r.model_dump(mode="json", exclude_none=True)
    data.update(requirements=res.env["requirements"], fail_to_pass=res.fail_to_pass, pass_to_pass=res.pass_to_pass,
                excluded=res.excluded, visible=res.visible,
                canaries_proof=sorted(set(res.no_twin) - set(r.canaries_exclude)),
                injections=[{k: v for k, v in i.items() if k in ("name", "kind", "description", "mutant", "delete",
                                                                  "fails", "blocked_by")} for i in res.recipe_injections],
                cost={"seconds": res.seconds, "env_seconds": res.env["seconds"] if res.env["built"] else 0.0,
                      "disk_bytes": res.disk_bytes})
    plausible = sum(1 for i in data["injections"] if i["kind"] in ("plausible", "partial"))
    data.pop("few_plausible", None)
    if plausible < 2:
        crude = sum(1 for i in data["injections"] if i["kind"] == "crude")
        data["few_plausible"] = (f"the import found {plausible} mechanical wrong fix(es) that pass the visible tests "
                                 f"and fail a FAIL_TO_PASS test; the visible tests catch the others it tried ({crude} "
                                 "kept as crude)")
    out = Recipe.model_validate(data)
    path.write_text(yaml.safe_dump(out.model_dump(mode="json", exclude_none=True), sort_keys=False, width=110,
                                   allow_unicode=True))
    warnings = list(res.warnings) + [f"prompt gap: {g}" for g in res.prompt_gaps]
    return out, warnings


# --- prompt checks -------------------------------------------------------------------------------------

def prompt_flags(rid: str) -> list[str]:
    """A recipe's prompt checks (suite/promptcheck.py: flags) on its two sdists, without an environment: the base
    sdist is the base, the fix's files and tests as in the fix sdist the reference and the hidden tests."""
    from gatebench.suite.promptcheck import flags
    from gatebench.suite.taskimport.files import is_test_module
    from gatebench.tree.globs import GlobSet

    r = load_recipe(rid)
    where = str(recipe_paths()[rid])
    with tempfile.TemporaryDirectory(prefix=f"gatebench-prompt-{rid}-") as tmp:
        base, fix = Path(tmp) / "base", Path(tmp) / "fix"
        extract(fetch_sdist(r.project, r.base, where), base)
        extract(fetch_sdist(r.project, r.fix, where), fix)

        def read(root: Path, rels) -> dict[str, str]:
            return {rel: (root / rel).read_text(encoding="utf-8", errors="replace") for rel in rels
                    if (root / rel).is_file()}
        base_src = read(base, (str(p.relative_to(base)) for p in base.rglob("*.py")))
        globs = GlobSet(r.test_globs or DEFAULT_TEST_GLOBS)
        visible = {k: v for k, v in base_src.items() if globs.match(k) and is_test_module(k)}
        return flags(r.prompt, [*r.fail_to_pass, *r.pass_to_pass], read(fix, [t for t in r.tests if is_test_module(t)]),
                     base_src, read(fix, r.files), visible)
