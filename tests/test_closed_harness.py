"""The closed pytest harness (gatebench/oracle/closed.py, pytest_boot.py): which config pytest reads, which plugins
load, what the copy can no longer decide, and gatebench's own report stream beside pytest's JUnit file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import write_tree

from gatebench.oracle import closed, harness, oracle, pytestconfig
from gatebench.oracle.oracle import run_oracle

CMD = "{python} -m pytest -q -p no:cacheprovider hidden_tests"


def test_only_an_exact_pytest_command_is_closed():
    assert closed.pytest_args("{python} -m pytest -q -k 'a or b' tests") == ["-q", "-k", "a or b", "tests"]
    for cmd in ("{python} -m pytest tests | tee log", "{python} -m pytest $X", "{python} -m compileall -q .",
                "python -m pytest tests", "{python} -m pytest tests; true", "{python} -m pytest 'tests'|tee x",
                '{python} -m pytest "tests$X"', '{python} -m pytest "t`id`"', "{python} -m pytest tests\\;true",
                "{python} -m pytest 'a\nb'"):
        assert closed.pytest_args(cmd) is None, cmd
    # A visible command deselecting a test whose id has shell characters, single-quoted as the import writes it
    # (natsort's `test_parse_string_factory_invariance[0-<lambda>]`): plain text, no shell syntax. It was refused,
    # so the import's own visible command could not run in the oracle.
    assert closed.pytest_args("{python} -m pytest -q tests --deselect='tests/t.py::f[0-<lambda>]' "
                              "'tests/t.py::g[a|b&c;d]'") == \
        ["-q", "tests", "--deselect=tests/t.py::f[0-<lambda>]", "tests/t.py::g[a|b&c;d]"]


def test_config_is_found_in_pytests_own_order_among_trusted_files():
    files = {"pytest.ini": b"[pytest]\n", "tox.ini": b"[tox]\n", "pyproject.toml": b"[project]\nname='x'\n",
             "sub/setup.cfg": b"[tool:pytest]\naddopts = -x\n"}
    assert closed.find_config(["sub", ""], files.get) == ("sub/setup.cfg", files["sub/setup.cfg"])
    assert closed.find_config([""], files.get) == ("pytest.ini", b"[pytest]\n")
    files[".pytest.toml"] = b""  # pytest 9 reads pytest.toml and .pytest.toml before every other file
    assert closed.find_config([""], files.get)[0] == ".pytest.toml"
    # files without a pytest section are not configs: tox.ini without [pytest], pyproject without [tool.pytest]
    assert closed.find_config([""], {"tox.ini": b"[tox]\n", "pyproject.toml": b"[project]\n"}.get) is None


# Trusted trees (one folder and its `sub`), each where a file stops pytest's search or lets it go on.
LAYOUTS = {
    # pytest 9.2 skips an empty [tool.pytest] (its loader returns None): the search goes on to the tox.ini
    # beside it and to the folder above. The harness's reader before issue 26 stopped there, so the closed
    # run had no options at all where pytest, on the same trusted tree, reads the tox.ini's.
    "empty [tool.pytest], tox.ini beside it": {"pyproject.toml": b"[tool.pytest]\n",
                                              "tox.ini": b"[pytest]\naddopts = -k add\n"},
    "empty [tool.pytest] in sub, pytest.ini above": {"sub/pyproject.toml": b"[tool.pytest]\n",
                                                     "pytest.ini": b"[pytest]\naddopts = -k add\n"},
    # ...while an empty [tool.pytest.ini_options] is configuration, as an empty dedicated file is
    "empty [tool.pytest.ini_options]": {"pyproject.toml": b"[tool.pytest.ini_options]\n",
                                        "tox.ini": b"[pytest]\naddopts = -k add\n"},
    "empty pytest.ini in sub": {"sub/pytest.ini": b"", "tox.ini": b"[pytest]\naddopts = -k add\n"},
    # a file pytest refuses stops its search (it fails there): the closed run takes that file and fails too
    "tox.ini with a section twice (pytest refuses it)": {"tox.ini": b"[tox]\na = 1\n[tox]\nb = 2\n",
                                                         "setup.cfg": b"[tool:pytest]\naddopts = -k add\n"},
    "setup.cfg with [pytest]": {"sub/setup.cfg": b"[pytest]\naddopts = -x\n", "pytest.ini": b"[pytest]\n"},
    "no pytest section anywhere": {"tox.ini": b"[tox]\n", "sub/setup.cfg": b"[metadata]\nname = x\n",
                                   "pyproject.toml": b"[project]\nname = 'x'\n"},
}


@pytest.mark.parametrize("files", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_the_harness_stops_where_pytest_itself_stops(tmp_path: Path, files: dict[str, bytes]):
    from _pytest.config.findpaths import CONFIG_LOADERS_BY_NAME, locate_config

    def refused(rel: str) -> bool:
        try:
            CONFIG_LOADERS_BY_NAME[rel.rsplit("/", 1)[-1]](tmp_path / rel)
        except BaseException:  # UsageError, or pytest's fail() (an outcome, not an Exception)
            return True
        return False

    write_tree(tmp_path, files)
    (tmp_path / "sub").mkdir(exist_ok=True)
    try:
        _root, path, _cfg, _ignored = locate_config(tmp_path, [tmp_path / "sub"])
    except BaseException:
        theirs = "refused"
    else:  # with no config anywhere pytest falls back to the first pyproject.toml, which gives it none
        theirs = str(path.relative_to(tmp_path)) if path and CONFIG_LOADERS_BY_NAME[path.name](path) is not None \
            else None
    found = closed.find_config(["sub", ""], files.get)
    ours = found[0] if found else None
    if theirs == "refused":  # the harness stops at the file pytest stops at, and pytest refuses it under -c too
        assert ours is not None and refused(ours) and pytestconfig.gives_config(ours.rsplit("/", 1)[-1], files[ours])
    else:
        assert ours == theirs


def test_an_empty_tool_pytest_table_no_longer_hides_the_config_beside_it(tmp_path, calc_repo):
    # The behaviour issue 26 changed, end to end: the baseline's tox.ini (-k add) now configures the closed
    # run although an empty [tool.pytest] comes before it; before, the run had no options (both tests ran).
    base = tmp_path / "base"
    write_tree(base, {"calc.py": (calc_repo / "calc.py").read_text(), **LAYOUTS["empty [tool.pytest], tox.ini beside it"]})
    h = tmp_path / "hidden"
    write_tree(h, {"test_h.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\n"
                                "def test_other():\n    assert False\n"})
    r = run_oracle(str(calc_repo), str(h), CMD, baseline_dir=str(base), sandbox_mode="auto")
    assert set(r["tests"]) == {"test_h.py::test_add"}, r


def test_the_pythonpath_of_the_trusted_config_is_read_by_the_same_rules():
    assert closed.config_pythonpath("sub/tox.ini", b"[pytest]\npythonpath = src 'a b'\n") == ["src", "a b"]
    assert closed.config_pythonpath("pyproject.toml", b"[tool.pytest.ini_options]\npythonpath = ['src']\n") == ["src"]
    assert closed.config_pythonpath("pyproject.toml", b"[tool.pytest]\npythonpath = ['src']\n") == ["src"]
    assert closed.config_pythonpath("pytest.toml", b"[pytest]\npythonpath = ['src']\n") == ["src"]
    # option names keep their case, [DEFAULT] is no default, a refused file sets nothing: as pytest reads them
    assert closed.config_pythonpath("tox.ini", b"[pytest]\nPythonpath = src\n") is None
    assert closed.config_pythonpath("tox.ini", b"[DEFAULT]\npythonpath = src\n[pytest]\n") is None
    assert closed.config_pythonpath("tox.ini", b"[pytest]\npythonpath = a\npythonpath = b\n") is None
    assert closed.config_pythonpath("setup.cfg", b"[pytest]\npythonpath = src\n") is None


def test_the_interpreters_own_plugins_are_read_even_from_a_hook_run_with_dash_S():
    code = "import sys; from gatebench.oracle import closed; print(closed.site_plugins(sys.executable))"
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-S", "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert "pytest_cov.plugin" in out.stdout  # the venv's, not the base installation's
    assert closed.site_plugins(sys.executable) == tuple(eval(out.stdout))


def test_the_stream_says_when_it_cannot_be_the_report():
    good = [{"e": "start", "pid": 1}, {"e": "test", "id": "t.py::a", "outcome": "passed"},
            {"e": "session", "exit": 0, "collected": 1}, {"e": "finished", "exit": 0}]

    def read(events: list[dict], extra: bytes = b"") -> closed.Stream:
        return closed.read_stream(b"".join(json.dumps(e).encode() + b"\n" for e in events) + extra)

    assert read(good).problem(0) is None and read(good).outcomes == {"t.py::a": "passed"}
    assert "ended early" in read(good[:3]).problem(None)
    assert "exit was forced" in read(good).problem(3)
    assert "not its own" in read(good, b"garbage\n").problem(0)
    assert "twice" in read([*good[:2], good[1], *good[2:]]).problem(0)
    assert "empty" in read([]).problem(0)


def test_a_test_line_s_raised_is_kept_when_it_is_a_short_list_of_names_and_else_ignored():
    def line(raised: object) -> bytes:
        return json.dumps({"e": "test", "id": "t.py::a", "outcome": "failed", "raised": raised}).encode() + b"\n"

    head, tail = b'{"e": "start", "pid": 1}\n', b'{"e": "session", "exit": 1}\n{"e": "finished", "exit": 1}\n'
    ok = closed.read_stream(head + line(["TypeError", "Exception"]) + tail)
    assert ok.raised == {"t.py::a": ["TypeError", "Exception"]} and ok.problem(1) is None
    for bad in ("TypeError", ["x" * 65], [1], [""], ["E"] * 17, {"TypeError": 1}, None):
        s = closed.read_stream(head + line(bad) + tail)
        assert s.raised == {} and s.outcomes == {"t.py::a": "failed"} and s.problem(1) is None, bad


def test_the_boot_names_the_builtin_classes_of_what_a_failed_call_raised(tmp_path):
    from gatebench.oracle import pytest_boot

    class Sub(KeyError):
        pass

    class Meta(type):
        @property
        def __mro__(cls):
            raise RuntimeError("no")

    assert pytest_boot.raised_names(Sub) == ["KeyError", "LookupError", "Exception", "BaseException"]
    assert pytest_boot.raised_names(type("TypeError", (Exception,), {})) == ["Exception", "BaseException"]
    assert pytest_boot.raised_names(Meta("Odd", (Exception,), {})) == []
    write_tree(tmp_path, {"test_r.py": "import pytest\n\ndef test_a():\n    with pytest.raises(ValueError):\n"
                                      "        raise TypeError\n\ndef test_b():\n    assert 0\n\n"
                                      "@pytest.mark.xfail\ndef test_c():\n    raise TypeError\n\n"
                                      "@pytest.fixture\ndef broken():\n    raise TypeError\n\n"
                                      "def test_d(broken):\n    pass\n\ndef test_e():\n    pass\n"})
    inv = closed.build(["test_r.py"], python=sys.executable, copy=str(tmp_path), harness_dir=str(tmp_path / "h"),
                       read=lambda rel: None, conftests=False)
    subprocess.run(inv.argv, cwd=tmp_path, env={**inv.env, "PATH": "/usr/bin:/bin"}, pass_fds=(inv.write_fd,),
                   capture_output=True, timeout=60)
    os.close(inv.write_fd)
    with os.fdopen(inv.read_fd, "rb") as f:
        s = closed.read_stream(f.read())
    assert s.outcomes == {"test_r.py::test_a": "failed", "test_r.py::test_b": "failed",
                          "test_r.py::test_c": "skipped", "test_r.py::test_d": "error", "test_r.py::test_e": "passed"}
    # Only a call that failed: an xfail, a setup error and a pass report nothing.
    assert s.raised == {"test_r.py::test_a": ["TypeError", "Exception", "BaseException"],
                        "test_r.py::test_b": ["AssertionError", "Exception", "BaseException"]}


def test_under_tb_no_a_failure_is_reported_by_its_exception_line_alone(tmp_path):
    """The oracle's runs pass --tb=no, and nobody reads their tracebacks: the boot has pytest report a failure by
    the exception's own line instead of walking its frames (a fifth of a canaried run where most twins fail).
    Outcomes and JUnit's message are what they were; a run without --tb=no keeps pytest's own traceback."""
    import xml.etree.ElementTree as ET

    write_tree(tmp_path, {"test_r.py": "import pytest\n\nclass Bad(Exception):\n    def __str__(self):\n"
                                      "        raise RuntimeError('no str')\n\ndef test_a():\n"
                                      "    with pytest.raises(ValueError):\n        raise TypeError('wrong type')\n\n"
                                      "def test_b():\n    raise Bad()\n\ndef test_e():\n    pass\n"})

    def run(extra: list[str]) -> tuple[dict, dict]:
        junit = tmp_path / f"j{len(extra)}.xml"
        inv = closed.build(["test_r.py"], python=sys.executable, copy=str(tmp_path), harness_dir=str(tmp_path / "h"),
                           read=lambda rel: None, conftests=False, extra=[f"--junitxml={junit}", *extra])
        subprocess.run(inv.argv, cwd=tmp_path, env={**inv.env, "PATH": "/usr/bin:/bin"}, pass_fds=(inv.write_fd,),
                       capture_output=True, timeout=60)
        os.close(inv.write_fd)
        with os.fdopen(inv.read_fd, "rb") as f:
            outcomes = closed.read_stream(f.read()).outcomes
        failures = {c.get("name"): c.find("failure") for c in ET.parse(junit).iter("testcase")}
        return outcomes, {n: (f.get("message"), f.text) for n, f in failures.items() if f is not None}

    short, full = run(["--tb=no"]), run([])
    assert short[0] == full[0] == {"test_r.py::test_a": "failed", "test_r.py::test_b": "failed",
                                   "test_r.py::test_e": "passed"}
    assert short[1] == {"test_a": ("TypeError: wrong type", "TypeError: wrong type"),
                        "test_b": ("test_r.Bad: <exception str() failed>", "test_r.Bad: <exception str() failed>")}
    assert {n: m for n, (m, _t) in full[1].items()} == {n: m for n, (m, _t) in short[1].items()}
    assert "raise TypeError('wrong type')" in full[1]["test_a"][1]  # pytest's own: the frame's source


def test_the_stream_is_the_report_and_a_rewritten_junit_file_disagrees():
    stream = {"hidden_tests/test_h.py::test_a": "failed", "hidden_tests/test_h.py::test_b[1]": "passed"}
    junit = {("hidden_tests.test_h", "test_a"): "passed", ("hidden_tests.test_h", "test_b[1]"): "passed"}
    assert [x.split(":")[0] for x in oracle.cross_check(stream, junit)] == ["hidden_tests/test_h.py"]
    assert oracle.cross_check(stream, {**junit, ("hidden_tests.test_h", "test_a"): "failed"}) == []
    del junit[("hidden_tests.test_h", "test_a")]  # a failure deleted from the report
    assert "absent in the JUnit report" in oracle.cross_check(stream, junit)[0]
    assert oracle.junit_key("a/b/test_x.py::TestK::test_m[1-2]") == ("a.b.test_x.TestK", "test_m[1-2]")


def attacked(tmp_path: Path, calc_repo: Path, files: dict[str, str], closed_harness: bool = True) -> dict:
    h = tmp_path / "hidden"
    write_tree(h, {"test_h.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"})
    base = tmp_path / "base"
    if not base.exists():
        write_tree(base, {"calc.py": (calc_repo / "calc.py").read_text()})
    write_tree(calc_repo, files)
    return run_oracle(str(calc_repo), str(h), CMD, baseline_dir=str(base), sandbox_mode="auto",
                      closed_harness=closed_harness)


PASS_ALL = ("import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
            "    outcome = yield\n    rep = outcome.get_result()\n    if rep.failed:\n        rep.outcome = 'passed'\n")


@pytest.mark.parametrize("files", [
    {"pytest.toml": '[pytest]\naddopts = ["-p", "evil"]\n', "evil.py": PASS_ALL},
    {".pytest.toml": '[pytest]\naddopts = ["-p", "evil"]\n', "evil.py": PASS_ALL},
    {"pytest_cov/__init__.py": "", "pytest_cov/plugin.py": PASS_ALL},
], ids=["pytest.toml", ".pytest.toml", "pytest_cov shadow"])
def test_the_closed_run_is_the_wall_and_the_harness_restore_only_defence_in_depth(tmp_path, calc_repo, monkeypatch,
                                                                                   files):
    # The restore as it was before (no pytest.toml, no installed-plugin shadows): only the closed invocation
    # stands between the copy and pytest.
    monkeypatch.setattr(harness, "CONFIG_FILES", ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml"))
    monkeypatch.setattr(closed, "plugin_tops", lambda _python: frozenset())
    assert attacked(tmp_path, calc_repo, files, closed_harness=False)["solved"] is True, "the attack no longer works"
    r = attacked(tmp_path, calc_repo, files)
    assert r["tests"] == {"test_h.py::test_add": "failed"} and r["error"] is None and r["integrity"] == [], r
    assert r["harness"] == []  # nothing was restored: the closed run alone held
    monkeypatch.undo()
    r = attacked(tmp_path, calc_repo, files)  # and today's restore removes the files too, each a finding
    assert r["solved"] is False and sorted(a["path"] for a in r["harness"]) == sorted(
        f for f in files if not f.endswith("evil.py"))


def test_a_config_of_the_baseline_is_read_from_outside_the_copy(tmp_path, calc_repo):
    base = tmp_path / "base"
    write_tree(base, {"calc.py": (calc_repo / "calc.py").read_text(), "pytest.ini": "[pytest]\naddopts = -k add\n"})
    h = tmp_path / "hidden"
    write_tree(h, {"test_h.py": "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\n"
                                "def test_other():\n    assert False\n"})
    r = run_oracle(str(calc_repo), str(h), CMD, baseline_dir=str(base), sandbox_mode="auto")
    assert set(r["tests"]) == {"test_h.py::test_add"}  # -k add from the baseline's pytest.ini, though the copy has none
    assert [a["path"] for a in r["harness"]] == ["pytest.ini"]
