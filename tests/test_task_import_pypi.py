"""A task imported from a real public project: toml 0.10.1 -> 0.10.2 from PyPI sdists, laid as two commits.

0.10.2 fixed `copy.deepcopy` of a parsed datetime with a UTC offset (TomlTz had no `__deepcopy__`) and
added `test_deepcopy_timezone`. The sdists are fetched with pip once and kept in the checkout's
`.cache/sdists`; the task environment is cached in `.cache/envs`, so a rerun reaches neither PyPI nor pip.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path

import yaml
from test_task_import import ENV_CACHE, ROOT, cli, git, home  # noqa: F401  (home is a fixture)

from gatebench.cell.workers import require_claude

SDISTS = ROOT / ".cache" / "sdists"
PROJECT, OLD, NEW = "toml", "0.10.1", "0.10.2"
PROMPT = """Deep-copying a parsed TOML document fails when it holds a datetime with a UTC offset:
copy.deepcopy of the result of toml.loads on a document with an offset datetime (one eight hours behind UTC, say)
must give an equal, independent copy whose datetime is equal to the original's but not the same object. Fix toml
so that this works.
"""


def sdist(version: str) -> Path:
    path = SDISTS / f"{PROJECT}-{version}.tar.gz"
    if not path.is_file():
        SDISTS.mkdir(parents=True, exist_ok=True)
        # `--no-binary toml`, not `:all:`, which built setuptools from source to prepare the metadata (tests/
        # test_installed_semver.py: 106 s against 20 s for the same file)
        r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", PROJECT,
                            f"{PROJECT}=={version}", "-d", str(SDISTS)], capture_output=True, text=True, timeout=300)
        assert path.is_file(), f"could not fetch {PROJECT} {version} from PyPI: {r.stderr[-800:]}"
    return path


def lay_versions(repo: Path) -> list[str]:
    repo.mkdir()
    git(repo, "init", "-q")
    shas = []
    for version in (OLD, NEW):
        for p in repo.iterdir():
            if p.name != ".git":
                subprocess.run(["rm", "-rf", str(p)], check=True)
        with tarfile.open(sdist(version)) as tf:
            for m in tf.getmembers():
                m.name = m.name.split("/", 1)[1] if "/" in m.name else ""
            tf.extractall(repo, members=[m for m in tf.getmembers() if m.name], filter="data")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"{PROJECT} {version}")
        shas.append(git(repo, "rev-parse", "HEAD"))
    return shas


def test_toml_release_imports_passes_selftest_and_runs_a_sim_matrix(home: Path, tmp_path: Path):  # noqa: F811
    repo = tmp_path / "toml"
    _old, new = lay_versions(repo)
    prompt = tmp_path / "prompt.md"
    prompt.write_text(PROMPT)
    # The release changed more than the fix: --files names the fix's file (the reference is that file alone).
    res = json.loads(cli("task", "import", str(repo), new, "--id", "toml", "--prompt-file", str(prompt),
                         "--files", "toml/tz.py", "--json").stdout)
    assert res["prompt_from"] == "prompt file"
    assert res["fail_to_pass"] == ["tests/test_api.py::test_deepcopy_timezone"]
    assert len(res["pass_to_pass"]) >= 10
    assert res["reference"] == ["toml/tz.py"]
    assert {i["kind"] for i in res["injections"].values()} >= {"noop", "plausible", "tamper"}
    assert sum(i["kind"] in ("partial", "plausible", "crude") for i in res["injections"].values()) >= 3
    task = yaml.safe_load((home / "tasks" / "toml" / "task.yaml").read_text())
    assert task["prompt"] == PROMPT.strip() and task["env"]["python"]

    st = cli("selftest", "--tasks", "toml")
    assert "selftest passed" in st.stdout, st.stdout
    assert json.loads(cli("task", "check", "toml", "--json").stdout)["problems"] == []

    require_claude()
    runs = tmp_path / "runs"
    cli("matrix", "--worker", "sim", "--configs", "none", "--tasks", "toml", "--reps", "1", "--runs-dir", str(runs),
        "--run-id", "toml", timeout=1200)
    recs = [json.loads(x) for x in (runs / "toml" / "results.jsonl").read_text().splitlines()]
    assert [(x["task"], x["status"]) for x in recs] == [("toml", "ok")]
    cli("analyze", str(runs / "toml"))
    assert (runs / "toml" / "analysis" / "report.html").is_file()


def test_a_recipe_is_curated_then_materialized_from_sdists_and_a_changed_download_is_refused(
        home: Path, tmp_path: Path, monkeypatch):  # noqa: F811
    """The real suite's path, on the toml release: a draft recipe (ours: names, hashes, a prompt) is curated (a full
    import that writes its measurements back), then laid in a fresh home without measuring; selftest proves it,
    `task list` shows it with its source and cost; an sdist that hashes otherwise is refused naming both hashes."""
    import hashlib

    suite = tmp_path / "suite"
    suite.mkdir()
    monkeypatch.setenv("GATEBENCH_SUITE_DIR", str(suite))
    monkeypatch.setenv("GATEBENCH_SDIST_CACHE", str(SDISTS))  # this test's own download, kept for reruns
    digest = {v: hashlib.sha256(sdist(v).read_bytes()).hexdigest() for v in (OLD, NEW)}
    draft = {"id": "R1", "project": PROJECT, "license": "MIT", "repo": "https://github.com/uiri/toml",
             "provenance": "release diff, no commit; toml 0.10.2 on PyPI", "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
             "base": {"version": OLD, "file": f"{PROJECT}-{OLD}.tar.gz", "sha256": digest[OLD]},
             "fix": {"version": NEW, "file": f"{PROJECT}-{NEW}.tar.gz", "sha256": digest[NEW]},
             "files": ["toml/tz.py"], "tests": ["tests/test_api.py"], "prompt": PROMPT}
    (suite / "R1.yaml").write_text(yaml.safe_dump(draft))
    (suite / "suite.yaml").write_text(yaml.safe_dump({"bench": ["R1"], "ci": ["R1"], "why": "the one recipe here"}))
    r = cli("task", "materialize", "R1", check=False)
    assert r.returncode == 2 and "no measurements yet" in r.stderr and "task curate" in r.stderr
    cur = cli("task", "curate", str(suite / "R1.yaml"))
    assert "FAIL_TO_PASS 1" in cur.stdout, cur.stdout
    recipe = yaml.safe_load((suite / "R1.yaml").read_text())
    assert recipe["fail_to_pass"] == ["tests/test_api.py::test_deepcopy_timezone"] and recipe["requirements"]
    assert sum(i["kind"] in ("partial", "plausible", "crude") for i in recipe["injections"]) >= 3
    assert recipe["cost"]["seconds"] > 0 and recipe["cost"]["disk_bytes"] > 0
    # Only ours is in the recipe: no line of toml's code (a mutant's edit text is an operator, number or name).
    assert all(len(e[2]) <= 20 for i in recipe["injections"] if i.get("mutant") for e in i["mutant"]["edits"])

    m = cli("task", "materialize", "--suite", "real")
    assert "1 laid" in m.stdout
    task = yaml.safe_load((home / "tasks" / "R1" / "task.yaml").read_text())
    assert "R1.yaml@" in task["source"]["recipe"]
    assert task["source"]["license"] == "MIT" and task["oracle"]["fail_to_pass"] == recipe["fail_to_pass"]
    assert (home / "reference" / "R1" / "toml" / "tz.py").is_file()
    assert "0 laid" in cli("task", "materialize", "R1").stdout, "a laid task whose recipe is unchanged stays"
    # A canary that selftest found passing beside its original on an injection is left out through the recipe:
    # the task is laid again with it among canaries.exclude (the proof on the reference alone cannot find it).
    (suite / "R1.yaml").write_text(yaml.safe_dump(dict(recipe, canaries_exclude=recipe["fail_to_pass"])))
    assert "1 laid" in cli("task", "materialize", "R1").stdout
    task = yaml.safe_load((home / "tasks" / "R1" / "task.yaml").read_text())
    assert set(recipe["fail_to_pass"]) <= set(task["canaries"]["exclude"]), task["canaries"]
    st = cli("selftest", "--suite", "ci")
    assert "selftest passed" in st.stdout, st.stdout
    listed = cli("task", "list").stdout
    assert "R1    real suite" in listed and "toml (MIT) https://github.com/uiri/toml" in listed
    assert "real suite: 1 tasks from 1 projects" in listed

    bad = dict(recipe, fix={**recipe["fix"], "sha256": "0" * 64})
    (suite / "R1.yaml").write_text(yaml.safe_dump(bad))
    r = cli("task", "materialize", "R1", check=False)
    assert r.returncode == 2 and digest[NEW] in r.stderr and "0" * 64 in r.stderr, r.stderr
