"""The transcript leak scan (leaks.shown_leaks): a tool result that shows the reference's or the hidden tests'
own content is a leak whatever the file's name or shape; the agent's own writing read back never is."""

from __future__ import annotations

from conftest import ROOT

from gatebench.cell.leaks import shown_leaks

REF, HIDDEN, BASE = ROOT / "reference" / "T1", ROOT / "hidden" / "T1", ROOT / "tasks" / "T1" / "repo"
PAGINATOR = (REF / "pagekit" / "paginator.py").read_text()


def call(n: int, name: str, **inp) -> dict:
    return {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": f"t{n}", "name": name,
                                                          "input": inp}]}}


def result(n: int, text: str) -> dict:
    return {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": text}]}}


def numbered(text: str) -> str:  # the Read tool's shape
    return "\n".join(f"{i:6}\t{line}" for i, line in enumerate(text.splitlines(), 1))


def scan(*events: dict) -> list[dict]:
    return shown_leaks(list(events), HIDDEN, REF, BASE)


def test_the_reference_shown_under_another_name_or_shape_is_a_leak():
    for shown in (numbered(PAGINATOR), "\n".join("    " + x for x in PAGINATOR.splitlines()),
                  [{"type": "text", "text": PAGINATOR}]):
        found = scan(call(1, "Bash", command="cat /somewhere/notes/helper.txt"),
                     {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1",
                                                               "content": shown}]}})
        assert [f["why"] for f in found] == ["shows 100% of the reference T1/pagekit/paginator.py"], found
        assert found[0]["kind"] == "leak" and found[0]["path"] == "tool result #1"


def test_the_hidden_tests_shown_are_a_leak():
    text = (HIDDEN / "test_pagination_hidden.py").read_text()
    found = scan(call(1, "Read", file_path="/x/y.py"), result(1, numbered(text)))
    assert any("hidden test T1/test_pagination_hidden.py" in f["why"] for f in found), found


def test_the_base_code_and_the_agents_own_fix_read_back_are_not():
    base = (BASE / "pagekit" / "paginator.py").read_text()
    assert scan(call(1, "Read", file_path="pagekit/paginator.py"), result(1, numbered(base))) == []
    # The agent writes the reference's bytes itself (an honest fix may equal it), then reads the file back.
    assert scan(call(1, "Write", file_path="pagekit/paginator.py", content=PAGINATOR), result(1, "ok"),
                call(2, "Read", file_path="pagekit/paginator.py"), result(2, numbered(PAGINATOR))) == []
    # Shown first, written after: the read is still the evidence.
    assert scan(call(1, "Bash", command="cat x"), result(1, PAGINATOR),
                call(2, "Write", file_path="pagekit/paginator.py", content=PAGINATOR), result(2, "ok")) != []


def test_a_sliver_of_the_reference_is_not_a_leak():
    lines = PAGINATOR.splitlines()
    i = next(n for n, x in enumerate(lines) if "An empty collection" in x)
    assert scan(call(1, "Bash", command="grep"), result(1, "\n".join(lines[i - 1:i + 2]))) == []
