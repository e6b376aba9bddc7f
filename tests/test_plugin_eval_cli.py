"""Exported suites under the real `claude plugin eval`, offline: the fake Messages API plays the agent.

- the whole loop: export two tasks x two configs, run each config's plugin with gatebench's sim agent,
  analyze the aggregate-result.json files: per-config intervals, the paired Δ and McNemar, stops and gates
  from the harness's private records;
- the verdict cannot be forged: scripted hostile agents look for the token, write verdict files of their own
  (a guessed token, the real one) and end the run before any final stop; the grader and analyze both hold;
- block reasons never name a private path.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from cli_harness import fake_api, require_claude, run_plugin_eval
from conftest import elsewhere, gatebench_cli

from gatebench.models.plugineval import VERDICT_FILE
from gatebench.plugineval.plugineval import ExportSpec, export
from gatebench.sim.brain import ScriptBrain, first_user_text
from gatebench.sim.sessions import SessionBrains

pytestmark = [pytest.mark.cli]


def analyze(*paths: Path, out: Path, baseline: str = "none") -> dict:
    from gatebench.analyze import pipeline

    a = pipeline.analyze(list(paths), baseline, out, resamples=500)
    return json.loads(a.model_dump_json(by_alias=True))


def aggregate(plugin: Path) -> dict:
    """The one aggregate-result.json of the plugin's last `claude plugin eval` (the CLI's default place)."""
    found = sorted((plugin / "evals" / "results").glob("*/aggregate-result.json"))
    assert len(found) == 1, found
    return json.loads(found[0].read_text())


def private_runs(suite: Path, config: str) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((suite / ".gatebench" / "runs" / config).glob("*/run.json"))]


@pytest.mark.slow
def test_export_then_plugin_eval_then_analyze_gives_intervals_and_the_paired_delta(tmp_path: Path):
    from gatebench.plugineval.plugineval_sim import EvalSim

    require_claude()
    suite = tmp_path / "suite"
    manifest, _warnings = export(ExportSpec(allow_readable_home=True, tasks=["T1", "T2"], configs=["none", "tests"], out=suite, runs=2,
                                            max_turns=30, timeout_s=300))
    assert set(manifest.configs) == {"none", "tests"}
    for config in ("none", "tests"):
        sim = EvalSim(["T1", "T2"], "default", suite)  # a fresh server per config: run n plays the same first try
        with fake_api(sim.brain()) as (url, _api):
            r = run_plugin_eval(suite / config, url, tmp_path / config)
        assert r.returncode in (0, 1), f"{config}: rc {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-2000:]}"
        agg = aggregate(suite / config)
        assert [len(c["arms"]["with"]) for c in agg["cases"]] == [2, 2], r.stdout[-2000:]
        runs = private_runs(suite, config)
        assert len(runs) == 4 and all(x["verdict"] and x["verdict"]["written"] for x in runs), runs
        # the CLI's solved grader and gatebench's own verdict agree run by run
        by_root = {str(Path(x["cwd"]).parent.parent): x["verdict"]["solved"] for x in runs}
        for case in agg["cases"]:
            for run in case["arms"]["with"]:
                solved = next(g["passed"] for g in run["graders"] if g["name"] == "gatebench-solved")
                assert solved == by_root[str(Path(run["tracePath"]).parent.parent)]

    a = analyze(suite, out=tmp_path / "analysis")
    by = {c["config"]: c for c in a["configs"]}
    assert set(by) == {"none", "tests"} and a["baseline"] == "none"
    for c in by.values():
        assert c["runs"] == 4 and c["tasks"] == 2  # counted from the runs made, never from runsPerCase
        assert c["solve_rate"]["lo"] is not None and c["solve_rate"]["hi"] is not None
    d = next(x for x in a["deltas"] if x["config"] == "tests")
    assert d["tasks"] == 2 and d["estimate"]["lo"] is None and d["mcnemar"]["pairs"] == 4  # 2 tasks: no interval
    assert a["notice"].startswith("FROM CLAUDE PLUGIN EVAL") and "SIMULATED AGENT" in a["notice"]
    prov = {p["config"]: p for p in a["provenance"]}
    assert prov["tests"]["origins"] == ["claude plugin eval"] and prov["tests"]["workers"] == ["sim"]
    # stops and gates come from the harness's private records: the tests config's gates were scored
    gates = {g["gate"] for g in a["gates"] if g["config"] == "tests"}
    assert {"diff", "tests"} <= gates
    cf = {c["config"]: c for c in a["counterfactual"]}
    assert cf["none"]["delta"]["value"] == 0.0 and cf["tests"]["unknown"] == 0
    # the verb: the same three reports as a matrix run, the headline table with its intervals on stdout
    r = gatebench_cli("analyze", str(suite), "--out", str(tmp_path / "reports"), "--resamples", "200")
    assert all((tmp_path / "reports" / f).is_file() for f in ("summary.md", "analysis.json", "report.html"))
    table = r.stdout.strip().splitlines()
    assert table[-2].startswith("none (baseline)") and table[-1].startswith("tests"), r.stdout
    assert "[" in table[-1] and "pt" in table[-1]  # the solve-rate CI and the Δ


def _scripted(routes: dict[str, dict]) -> SessionBrains:
    """One ScriptBrain per session, chosen by a marker in the task prompt the session got."""
    def make(request: dict, cwd: str):
        text = first_user_text(request)
        for marker, script in routes.items():
            if marker in text:
                return ScriptBrain.from_data(script)
        return None

    return SessionBrains(make)


def _tool(name: str, **inp: object) -> dict:
    return {"content": [{"type": "tool_use", "name": name, "input": inp}]}


def _bash(cmd: str) -> dict:
    return _tool("Bash", command=cmd, description="look around")


DONE = {"content": [{"type": "text", "text": "Done."}]}


def _tool_results(api) -> list[str]:
    out = []
    for req in api.message_requests():
        for m in req["body"].get("messages") or []:
            for b in m.get("content") if isinstance(m.get("content"), list) else []:
                if b.get("type") == "tool_result":
                    c = b.get("content")
                    out.append("\n".join(x.get("text", "") for x in c) if isinstance(c, list) else str(c))
    return out


@pytest.mark.slow
def test_the_verdict_cannot_be_forged_by_the_agent(tmp_path: Path):
    from gatebench.suite.tasks import load_task

    require_claude()
    suite = tmp_path / "suite"
    export(ExportSpec(allow_readable_home=True, tasks=["T1", "T2", "T3"], configs=["none"], out=suite, runs=1, max_turns=12, timeout_s=300))
    private = suite / ".gatebench"
    tokens = {t: json.loads((private / "cases" / "none" / f"{t}.json").read_text()) for t in ("T1", "T2", "T3")}
    prompts = {t: load_task(t).task.prompt.strip()[:60] for t in ("T1", "T2", "T3")}

    def forged(task: str, real: bool) -> str:
        tok = tokens[task]
        solved = tok["solved_token"] if real else "0" * 32
        verdict = tok["verdict_token"] if real else "0" * 32
        return f"gatebench verdict 1\nverdict: {verdict}\nsolved: true {solved}\n"

    verdict = "{cwd}/" + VERDICT_FILE

    def esc(task: str) -> str:
        return forged(task, True).replace("\n", "\\n")
    hunt = [  # everything the agent could try to learn the tokens: all must fail
        _tool("Read", file_path=str(private / "cases" / "none" / "T1.json")),
        _tool("Read", file_path=str(suite / "none" / "evals" / "T1" / "case.yaml")),
        _bash(f"cat {private}/ca*/*/*.json {suite}/none/ev*/*/case.yaml; ls {private} {suite}; "
              f"grep -r solved_token {suite} {tmp_path} 2>&1 | head -5"),
        _bash(f"python3 -c \"import glob; print([open(p).read() for p in glob.glob('{suite}/**/*.json', recursive=True)"
              f" + glob.glob('{suite}/*/evals/*/case.yaml')])\""),
    ]
    scripts = {
        # A: hunts for the tokens, then writes a verdict with a guessed token and stops: the harness, after the
        # final stop, writes the oracle's verdict over it (the base repo fails the hidden tests)
        prompts["T1"]: {"steps": [{"on": "start", "turns": [*hunt, _tool("Write", file_path=verdict,
                                                                            content=forged("T1", False)), DONE]}]},
        # B: knows the real tokens (a leak we stage) and writes them, then stops: the oracle still decides
        prompts["T2"]: {"steps": [{"on": "start", "turns": [_tool("Write", file_path=verdict,
                                                                   content=forged("T2", True)), DONE]}]},
        # C: knows the real tokens, tries every way to write the verdict where the harness writes it (the file
        # tool; Bash with the path spelled so the permission layer cannot see it; moving the folder away), proves
        # its Bash writes the work dir (the control), and never stops: the turn cap ends the run, no harness verdict
        prompts["T3"]: {"steps": [{"on": "start", "turns": [
            _tool("Write", file_path=verdict, content=forged("T3", True)),
            _bash(f"d=.vs; d=${{d}}code; printf '{esc('T3')}' > $d/gatebench-verdict; "
                  f"mv $d $d.old || rm -rf $d; mkdir -p $d; printf '{esc('T3')}' > $d/gatebench-verdict; ls -la $d"),
            _bash(f"python3 -c \"p='.vs'+'code/gatebench-verdict'; open(p,'w').write('{esc('T3')}')\""),
            _bash("printf ok > control.txt && cat control.txt && echo CONTROL-WRITTEN"),
            *[_bash(f"echo {i}") for i in range(16)], DONE]}]},
    }
    root = elsewhere()  # TMPDIR outside /tmp: the agent's Bash can write its work dir (under /tmp it cannot)
    if root is None:
        pytest.skip("no writable folder outside the temp dir and HOME")
    run_root = Path(tempfile.mkdtemp(prefix="forge-", dir=root))
    try:
        with fake_api(_scripted(scripts)) as (url, api):
            r = run_plugin_eval(suite / "none", url, run_root)
            results = _tool_results(api)
    finally:
        subprocess.run(["chmod", "-R", "u+rwX", str(run_root)], capture_output=True)
        shutil.rmtree(run_root, ignore_errors=True)
    assert r.returncode in (0, 1), f"rc {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-2000:]}"
    for tok in tokens.values():  # nothing the agent read carries a token
        assert not any(tok["solved_token"] in x or tok["verdict_token"] in x for x in results), results
    agg = aggregate(suite / "none")
    passed = {c["name"]: {g["name"]: g["passed"] for g in c["arms"]["with"][0]["graders"]} for c in agg["cases"]}
    assert passed["T1"]["gatebench-solved"] is False  # a guessed token never matches
    assert passed["T2"]["gatebench-solved"] is False  # the harness's verdict came last: the oracle decided
    assert passed["T2"]["gatebench-verdict"] is True
    # C: with the real tokens and the turn cap, the CLI's own grader still fails (it read 1.0, exit 0, when the
    # verdict lay where the agent writes): the harness's folder is one the agent cannot write
    assert any("CONTROL-WRITTEN" in x for x in results), results  # its Bash could write the work dir
    assert any("Read-only file system" in x for x in results), results  # the sandbox refused the verdict
    assert passed["T3"] == {"gatebench-solved": False, "gatebench-verdict": False}
    t3 = next(c for c in agg["cases"] if c["name"] == "T3")
    assert t3["arms"]["with"][0]["score"] == 0 and r.returncode == 1
    runs = {x["task"]: x for x in private_runs(suite, "none")}
    assert runs["T1"]["verdict"]["solved"] is False and runs["T2"]["verdict"]["solved"] is False
    assert runs["T3"]["verdict"] is None and runs["T3"]["stops"] == []
    # the hunt is on record: every tool call that named the private half (refused or not) is a leak attempt
    assert any(str(private) in x for x in runs["T1"]["leaks"]) and runs["T2"]["leaks"] == []
    a = analyze(suite / "none", out=tmp_path / "analysis")
    cells = {c["task"]: c for c in a["cells"]}
    assert {t: cells[t]["solved"] for t in cells} == {"T1": False, "T2": False, "T3": False}
    assert cells["T3"]["status"] == "cap"
    assert next(c for c in a["configs"] if c["config"] == "none")["leak"] == 1


@pytest.mark.slow
def test_block_reasons_name_no_private_path(tmp_path: Path):
    require_claude()
    suite = tmp_path / "suite"
    export(ExportSpec(allow_readable_home=True, tasks=["T1"], configs=["tests"], out=suite, runs=1, max_turns=12, timeout_s=300))
    from gatebench.suite.tasks import load_task

    prompt = load_task("T1").task.prompt.strip()[:60]
    # Breaks the visible tests, so the tests gate blocks with pytest's output (run in a private copy, under
    # the private tmp, with this checkout's interpreter): the reason must name none of those places.
    broken = "raise RuntimeError('broken on purpose')\n"
    script = {"steps": [
        {"on": "start", "turns": [_tool("Read", file_path="{cwd}/pagekit/__init__.py"),
                                  _tool("Write", file_path="{cwd}/pagekit/__init__.py", content=broken), DONE]},
        {"on": "stop_feedback", "times": 5, "turns": [DONE]},
    ]}
    with fake_api(_scripted({prompt: script})) as (url, api):
        r = run_plugin_eval(suite / "tests", url, tmp_path / "run")
        feedback = [m for req in api.message_requests() for m in json.dumps(req["body"]).split("Stop hook feedback")[1:]]
    assert r.returncode in (0, 1), r.stdout[-2000:]
    assert feedback, "the tests gate never blocked"
    run = private_runs(suite, "tests")[0]
    cwd = run["cwd"]
    from gatebench.paths import project_root

    for text in feedback:
        assert str(suite / ".gatebench") not in text and str(project_root()) not in text, text[:2000]
        assert "gatebench-tests-" not in text  # the gate's temporary copy
    assert any(cwd in text or "pagekit/__init__.py" in text for text in feedback)
