"""The one printer (gatebench/oracle/render.py), offline: a reader of the hidden module's file tells an original
from its twins on the pre-issue-31 layout (tests/legacy_twin_layout.py) every time, and on the rendered module no
better than chance, over every bundled hidden file rendered many times; the rendering keeps what the tests need
(decorators, parametrize ids, fixtures, classes, helpers) and maps every name back."""

from __future__ import annotations

import ast
import functools
import itertools
import math
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import legacy_twin_layout as legacy
import pytest
import yaml

from gatebench.audit.payloads import READER
from gatebench.oracle import render

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 6


@functools.cache
def bundled() -> list[tuple[str, str, list[str]]]:
    """(task, hidden source, its expected tests) of every bundled hidden file."""
    out = []
    for i in range(1, 13):
        doc = yaml.safe_load((ROOT / "tasks" / f"T{i}" / "task.yaml").read_text())
        by: dict[str, list[str]] = {}
        for tid in doc["trace"]:
            f, name = tid.split("::", 1)
            by.setdefault(f, []).append(name)
        out += [(f"T{i}", (ROOT / "hidden" / f"T{i}" / f).read_text(), names) for f, names in by.items()]
    return out


def read(make, pick: str) -> tuple[int, int, float, float]:
    """(groups read right, groups read, chance: the right reads a blind pick expects, its variance)."""
    ns: dict = {}
    exec(READER, ns)
    right = found = 0
    chance = var = 0.0
    files = bundled()
    assert len(files) == 12
    for r in range(ROUNDS):
        for task, source, names in files:
            d = make(source, {n: 0 for n in names}, random.Random(f"{task}-{r}"))
            lines, tests, groups = ns["_groups"](d.source)
            rng = random.Random(r)
            for g in groups:
                q = tests[ns[pick](lines, tests, g, rng, groups)][0]
                assert q in d.names
                found += 1
                right += d.names[q][1] is False
                chance += 1 / len(g)
                var += (1 / len(g)) * (1 - 1 / len(g))
    return right, found, chance, var


def test_the_old_layout_is_read_every_time_and_the_printed_module_no_better_than_chance():
    right, found, _chance, _var = read(legacy.disguise, "pick_by_layout")
    assert found > 300 and right == found  # the issue's reader, on the layout as it was: every pair
    for pick in ("pick_by_layout", "pick_the_median", "pick_at_random"):
        right, found, chance, var = read(render.render, pick)
        assert found > 300 and right <= chance + 4 * math.sqrt(var), (pick, right, found, chance)
        assert chance / found < 0.45  # groups of three mostly (k=2): a blind pick is right a third of the time


def test_the_printed_module_is_the_printer_s_own_fixed_point():
    """Nothing of the source's layout survives: printing the printed module again changes nothing, so every
    byte of it is a function of the tree alone (names and values, in an order drawn at random)."""
    for task, source, names in bundled():
        d = render.render(source, {n: 0 for n in names}, random.Random(task))
        assert ast.unparse(ast.parse(d.source)) + "\n" == d.source
        assert "(Exception,)" not in d.source  # no raises twin expects a fresh class


MODULE = textwrap.dedent('''
    import pytest

    CASES = [(1, 2), (2, 3)]


    @pytest.fixture
    def base():
        return 10


    def check(a, b):
        assert a + 1 == b


    @pytest.mark.parametrize("a, b", CASES, ids=["one", "two"])
    def test_table(a, b):  # a comment the printer drops
        check(a, b)


    @pytest.mark.parametrize("x", [1, 2])
    def test_auto_ids(x, base):
        assert base + x == {1: 11, 2: 12}[x]


    def test_named():
        assert test_named.__name__ == "test_named"


    class TestBox:
        def setup_method(self):
            self.n = 4

        def test_n(self):
            assert self.n == 4

        def test_raise(self):
            with pytest.raises(ZeroDivisionError):
                1 / 0
''')


def test_the_rendering_keeps_what_the_tests_need_and_maps_every_name_back(tmp_path):
    twin_of = {"test_table": 0, "test_auto_ids": 0, "TestBox::test_n": 0, "TestBox::test_raise": 0}
    d = render.render(MODULE, twin_of, random.Random(3))
    assert d.names["test_named"] == ("test_named", False)  # it names itself: kept, no twin
    assert {o for o, twin in d.names.values() if twin} == set(twin_of)
    (tmp_path / "test_m.py").write_text(d.source)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    outcome: dict[str, str] = {}
    for line in r.stdout.splitlines():
        word, _sp, nodeid = line.partition(" ")
        if word in ("PASSED", "FAILED") and "::" in nodeid:
            outcome[nodeid.split(" ")[0].split("::", 1)[1]] = word
    originals: dict[str, set[str]] = {}
    for nodeid, word in outcome.items():
        qual, _b, params = nodeid.partition("[")
        orig, twin = d.names[qual]
        if twin:
            assert word == "FAILED", (nodeid, d.source)
        else:
            assert word == "PASSED", (nodeid, d.source)
            originals.setdefault(orig, set()).add(params.rstrip("]"))
    assert originals == {"test_table": {"one", "two"}, "test_auto_ids": {"1", "2"}, "test_named": {""},
                         "TestBox::test_n": {""}, "TestBox::test_raise": {""}}


@pytest.mark.parametrize("k", [1, 2, 3])
def test_k_twins_a_test_so_a_blind_guess_is_right_one_time_in_k_plus_one(k: int):
    module = "def test_n():\n    assert f() == 40\n"
    d = render.render(module, {"test_n": 0}, random.Random(k), k=k)
    values = sorted(int(line.rsplit(" ", 1)[1]) for line in d.source.splitlines() if "==" in line)
    assert len(values) == min(k, render.twins.LADDER) + 1 and 40 in values  # at most LADDER on each side
    assert all(b - a == render.twins.STEP for a, b in itertools.pairwise(values))
    every = render.render(module, {"test_n": 0}, random.Random(0), k=None)  # the proof: every option
    assert sum(twin for _o, twin in every.names.values()) == 2 * render.twins.LADDER


def test_a_printed_module_with_twins_is_not_rewritten_by_pytest_and_its_outcomes_stay():
    """Rewriting a module with k twins per test, and explaining every failing twin, was most of what canaries
    cost (scripts/bench_canaries.py): the printer marks the module, and pytest leaves its asserts alone."""
    from _pytest.assertion.rewrite import rewrite_asserts

    with_doc = '"""Doc."""\nfrom __future__ import annotations\n\n\ndef test_a():\n    assert 1 + 1 == 2\n'
    for source in (with_doc, with_doc.split("\n", 1)[1], "def test_a():\n    assert 1 + 1 == 2\n"):
        d = render.render(source, {"test_a": 0}, random.Random(0))
        tree = ast.parse(d.source)
        assert render.DONT_REWRITE in (ast.get_docstring(tree) or ""), d.source
        assert ast.get_docstring(tree).startswith("Doc.") == source.startswith('"""')  # type: ignore[union-attr]
        before = ast.dump(tree)
        rewrite_asserts(tree, d.source.encode())
        assert ast.dump(tree) == before  # pytest rewrote nothing
        ns: dict = {}
        exec(compile(d.source, "t.py", "exec"), ns)
        outcomes = {}
        for name, (_orig, twin) in d.names.items():
            try:
                ns[name]()
                outcomes[name] = "passed"
            except AssertionError:
                outcomes[name] = "failed"
            assert outcomes[name] == ("failed" if twin else "passed")
    # A module the run gives no twin is printed as it was, rewritten as before.
    plain = render.render("def test_a():\n    assert 1 == 1\n", {}, random.Random(0))
    assert render.DONT_REWRITE not in plain.source


def test_a_printed_f_string_that_does_not_parse_stops_the_rendering(monkeypatch):
    """3.11's printer can write an f-string that does not parse: the rendering must raise (canaries.lay then
    skips the file's canaries), not hand pytest a module it cannot collect. Only the f-strings are parsed again."""
    source = 'def test_a():\n    w = 3\n    assert f"{1:>{w}}" == "  1"\n'
    d = render.render(source, {"test_a": 0}, random.Random(0))
    assert len(d.names) >= 2 and ast.parse(d.source)  # the good case: printed with its twin(s), and it parses
    real = ast.unparse
    monkeypatch.setattr(ast, "unparse", lambda node: "f'{'" if isinstance(node, ast.JoinedStr) else real(node))
    with pytest.raises(SyntaxError):
        render.render(source, {"test_a": 0}, random.Random(0))
    render.render(source.replace('f"{1:>{w}}"', '"  1"'), {"test_a": 0}, random.Random(0))  # no f-string: no check
