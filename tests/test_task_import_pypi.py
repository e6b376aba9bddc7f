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

from gatebench.bench.workers import require_claude

SDISTS = ROOT / ".cache" / "sdists"
PROJECT, OLD, NEW = "toml", "0.10.1", "0.10.2"
PROMPT = """Deep-copying a parsed TOML document fails when it holds a datetime with a UTC offset:
copy.deepcopy(toml.loads("dob = 1979-05-24T07:32:00-08:00")) must give an equal, independent copy
whose datetime is equal to the original's but not the same object. Fix toml so that this works.
"""


def sdist(version: str) -> Path:
    path = SDISTS / f"{PROJECT}-{version}.tar.gz"
    if not path.is_file():
        SDISTS.mkdir(parents=True, exist_ok=True)
        r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
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
    assert sum(i["kind"] in ("partial", "plausible") for i in res["injections"].values()) >= 3
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
