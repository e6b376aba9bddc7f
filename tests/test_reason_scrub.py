"""Block reasons never name a private path (SPEC.md section 7, "Private paths"): what the agent reads of the
gates' output names its own work copy, never the gate's temporary copy, the state dir, the hidden tests or the
gatebench checkout (a path into the checkout would show an agent where the bench's hidden/ folder is)."""

from __future__ import annotations

from pathlib import Path

from conftest import hook_input, run_hook

from gatebench.cell.prep import prep
from gatebench.common.text import scrub_paths
from gatebench.paths import project_root


def test_scrub_keeps_the_work_copy_inside_a_private_folder_and_replaces_whole_segments_only():
    pairs = [("/b", "<gatebench>"), ("/b/runs/x/repo", "/b/runs/x/repo"), ("/b/hidden/T1", "<hidden-tests>"),
             ("/t/gatebench-tests-abc", "/b/runs/x/repo")]
    text = "E /b/hidden/T1/test_x.py:3 /b/runs/x/repo/a.py /t/gatebench-tests-abc/t.py /b/hidden2 /bc /b.old /b"
    assert scrub_paths(text, pairs) == ("E <hidden-tests>/test_x.py:3 /b/runs/x/repo/a.py /b/runs/x/repo/t.py "
                                        "<gatebench>/hidden2 /bc /b.old <gatebench>")
    assert scrub_paths("", pairs) == "" and scrub_paths("x", []) == "x"


def test_a_tests_gate_block_names_the_work_copy_not_the_gates_copy_nor_the_checkout(tmp_path: Path):
    cell = tmp_path / "cell"
    prep("T1", "tests", cell)
    repo, state = cell / "repo", cell / "state"
    # A package that cannot be imported, whose error names its own file: an absolute path in the copy the
    # tests gate ran in (pytest itself prints paths relative to its rootdir).
    (repo / "pagekit" / "__init__.py").write_text("raise RuntimeError(f'broken on purpose in {__file__}')\n")
    out, event = run_hook(state, hook_input(repo), env=None)
    assert out and out["decision"] == "block", out
    reason = out["reason"]
    feedback = next(g for g in event["gates"] if g["name"] == "tests")["feedback"]
    assert "gatebench-tests-" not in reason and str(state) not in reason, reason
    # pytest ran in the gate's copy: the work copy's path can only come from mapping the copy onto it
    assert str(repo.resolve()) in reason and "broken on purpose" in reason, reason
    # the interpreter lives in the checkout: the gate's own log names it, the reason says <gatebench>
    assert str(project_root()) in feedback and str(project_root()) not in reason, reason
    assert "<gatebench>" in reason and event["reason"] == reason
