"""`gatebench export plugin-eval`: the layout, the case files, the private half, and bad input (no CLI needed)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import yaml
from conftest import gatebench_cli

from gatebench.errors import UsageError
from gatebench.models.plugineval import VERDICT_FILE, CaseTemplate, ExportManifest
from gatebench.plugineval.plugineval import ExportSpec, export, exposure, plugin_name


def test_one_plugin_per_config_one_case_per_task_and_a_private_half_beside_them(tmp_path: Path, capsys):
    from gatebench.cli import main

    out = tmp_path / "suite"
    assert main(["export", "plugin-eval", "--tasks", "T1,T2", "--configs", "none", "tests", "--out", str(out),
                 "--runs", "2", "--max-turns", "20", "--timeout-s", "600", "--allow-readable-home"]) == 0
    printed = capsys.readouterr().out
    assert f"claude plugin eval {out / 'tests'} --scaffold --trust-plugin --ablation none" in printed
    assert f"gatebench analyze {out}" in printed
    assert sorted(p.name for p in out.iterdir()) == [".gatebench", "README.md", "none", "tests"]
    m = ExportManifest.model_validate_json((out / ".gatebench" / "export.json").read_text())
    assert set(m.configs) == {"none", "tests"} and set(m.tasks) == {"T1", "T2"} and m.runs == 2
    for config in ("none", "tests"):
        plugin = out / config
        assert json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())["name"] == f"gatebench-{config}"
        hook = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]["Stop"][0]["hooks"][0]
        # the agent may read the plugin: its hook command names only the private launcher beside it
        assert hook["command"] == f'"${{CLAUDE_PLUGIN_ROOT}}/../.gatebench/bin/harness" stop {config}'
        assert str(Path.cwd()) not in json.dumps(hook) and "python" not in hook["command"]
        for task in ("T1", "T2"):
            case = yaml.safe_load((plugin / "evals" / task / "case.yaml").read_text())
            tpl = CaseTemplate.model_validate_json((out / ".gatebench" / "cases" / config / f"{task}.json").read_text())
            assert case["name"] == task and case["runs"] == 2 and case["context"]["scaffold_script"] == "scaffold.sh"
            assert case["execution"]["max_turns"] == 20 and case["execution"]["timeout_seconds"] == 600
            solved, verdict = case["graders"]
            assert solved["target"] == {"source": "file", "path": VERDICT_FILE} == verdict["target"]
            assert solved["pattern"] == f"^solved: true {tpl.solved_token}$" and solved["weight"] == 1
            assert verdict["pattern"] == f"^verdict: {tpl.verdict_token}$" and verdict["weight"] < 0.1
            assert tpl.solved_token != tpl.verdict_token and len(tpl.solved_token) == 32
            oracle = tpl.resolved["oracle"]
            assert oracle["hidden_dir"] == str(out / ".gatebench" / "tasks" / task / "hidden")
            assert tpl.resolved["mode"] == "bench" and VERDICT_FILE in tpl.resolved["ignore"]
            assert tpl.resolved["private"] == [str(out / ".gatebench")]
            sh = plugin / "evals" / task / "scaffold.sh"
            assert os.stat(sh).st_mode & stat.S_IXUSR and "../../../.gatebench/bin/harness" in sh.read_text()
    # every token differs: a verdict of one case or config is worth nothing in another
    toks = [json.loads(p.read_text())["solved_token"] for p in (out / ".gatebench" / "cases").glob("*/*.json")]
    assert len(set(toks)) == 4
    hidden = sorted(p.name for p in (out / ".gatebench" / "tasks" / "T1" / "hidden").iterdir())
    assert hidden and not any(list((out / c).rglob(h)) for c in ("none", "tests") for h in hidden)


def test_bad_input_is_refused_by_name_and_writes_nothing(tmp_path: Path):
    out = tmp_path / "suite"
    for kw, what in [({"tasks": ["T999"]}, "T999"), ({"configs": ["nope"]}, "nope"), ({"runs": 0}, "--runs 0"),
                     ({"runs": 51}, "--runs 51"), ({"max_turns": 201}, "--max-turns"), ({"timeout_s": 4000}, "--timeout-s"),
                     ({"tasks": ["T1", "T1"]}, "named twice")]:
        spec = ExportSpec(**{"allow_readable_home": True, "tasks": ["T1"], "configs": ["none"], "out": out, **kw})  # type: ignore[arg-type]
        with pytest.raises(UsageError, match=what):
            export(spec)
        assert not out.exists() and not list(tmp_path.glob(".suite*"))
    r = gatebench_cli("export", "plugin-eval", "--tasks", "T1", "--configs", "nope", "--out", str(out), check=False)
    assert r.returncode == 2 and "nope" in r.stderr and not out.exists()


def test_an_existing_folder_is_replaced_only_with_force_and_only_if_it_is_an_export(tmp_path: Path):
    out = tmp_path / "suite"
    export(ExportSpec(allow_readable_home=True, tasks=["T1"], configs=["none"], out=out, runs=1))
    first = json.loads((out / ".gatebench" / "cases" / "none" / "T1.json").read_text())["solved_token"]
    with pytest.raises(UsageError, match="--force"):
        export(ExportSpec(allow_readable_home=True, tasks=["T1"], configs=["none"], out=out))
    export(ExportSpec(allow_readable_home=True, tasks=["T1"], configs=["none", "tests"], out=out, force=True))
    assert (out / "tests").is_dir()
    assert json.loads((out / ".gatebench" / "cases" / "none" / "T1.json").read_text())["solved_token"] != first
    other = tmp_path / "mine"
    other.mkdir()
    (other / "precious.txt").write_text("keep me")
    with pytest.raises(UsageError, match="not an earlier export"):
        export(ExportSpec(allow_readable_home=True, tasks=["T1"], configs=["none"], out=other, force=True))
    assert (other / "precious.txt").read_text() == "keep me"


def test_a_failure_half_way_leaves_nothing(tmp_path: Path, monkeypatch):
    import gatebench.plugineval.plugineval as pe

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(pe, "write_plugin", boom)
    with pytest.raises(OSError):
        export(ExportSpec(allow_readable_home=True, tasks=["T1"], configs=["none"], out=tmp_path / "suite"))
    assert list(tmp_path.iterdir()) == []


def test_plugin_names_are_kebab_case_and_a_bench_home_outside_the_hidden_roots_is_a_warning(tmp_path: Path):
    assert plugin_name("tests+adv") == "gatebench-tests-adv" and plugin_name("none") == "gatebench-none"
    home = tmp_path / "home"
    home.mkdir()
    assert exposure(home / "bench", {"HOME": str(home)}) is None  # under $HOME: hidden from the agent
    outside = Path("/usr")  # neither $HOME nor a temp dir
    w = exposure(outside, {"HOME": str(home)})
    assert w and "can read its hidden/" in w


def test_a_bench_home_the_agent_could_read_is_refused_unless_allowed(tmp_path: Path, monkeypatch):
    import gatebench.plugineval.plugineval as pe

    monkeypatch.setattr(pe, "project_root", lambda: Path("/usr"))  # outside $HOME and the temp dirs
    monkeypatch.setattr(pe, "copy_tree", lambda *a: None)  # the refusal comes first; with the flag, no real copy
    with pytest.raises(UsageError, match="allow-readable-home"):
        export(ExportSpec(tasks=["T1"], configs=["none"], out=tmp_path / "suite"))
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(pe, "project_root", lambda: tmp_path)  # under the temp dir: nothing to refuse
    _m, warnings = export(ExportSpec(tasks=["T1"], configs=["none"], out=tmp_path / "ok"))
    assert warnings == []
