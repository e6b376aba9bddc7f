"""The installed-mode test policy: each kind of weakening is rejected, the good change beside it accepted."""

from __future__ import annotations

import pytest

from gatebench.testguard.testpolicy import weakenings

BASE = '''import pytest
from semver import Version


def test_compare():
    assert Version(1, 2, 3) < Version(1, 2, 4)
    assert Version.parse("1.2.3").major == 1


@pytest.mark.parametrize("text,major", [("1.0.0", 1), ("2.3.4", 2)])
def test_parse(text, major):
    assert Version.parse(text).major == major


def test_invalid():
    with pytest.raises(ValueError):
        Version.parse("nope")


class TestBump:
    def test_bump_major(self):
        assert str(Version(1, 2, 3).bump_major()) == "2.0.0"
'''

GOOD = {
    "new test function": BASE + '''

def test_subclass_compares():
    class V(Version):
        pass

    assert V(1, 2, 3) == Version(1, 2, 3)
''',
    "new assertion in an existing test": BASE.replace(
        '    assert Version.parse("1.2.3").major == 1\n',
        '    assert Version.parse("1.2.3").major == 1\n    assert Version.parse("1.2.3").minor == 2\n'),
    "assert message added": BASE.replace('.major == 1\n', '.major == 1, "major of 1.2.3"\n'),
    "new parametrize case": BASE.replace('("2.3.4", 2)]', '("2.3.4", 2), ("3.0.0", 3)]'),
    "new method in a test class": BASE + '''
    def test_bump_minor(self):
        assert str(Version(1, 2, 3).bump_minor()) == "1.3.0"
''',
    "new import and fixture": BASE.replace("import pytest\n", "import sys\n\nimport pytest\n") + '''

@pytest.fixture
def v():
    return Version(1, 2, 3)
''',
}

BAD = {
    "test removed": (BASE.replace('def test_invalid():\n    with pytest.raises(ValueError):\n'
                                  '        Version.parse("nope")\n', ""), "test_removed", "test_invalid"),
    "assertion removed": (BASE.replace('    assert Version.parse("1.2.3").major == 1\n', ""),
                          "assertion_removed", "test_compare"),
    "assertion loosened": (BASE.replace('assert Version(1, 2, 3) < Version(1, 2, 4)',
                                        'assert Version(1, 2, 3) <= Version(1, 2, 4) or True'),
                           "assertion_removed", "test_compare"),
    "expected value rewritten": (BASE.replace('== "2.0.0"', '== "1.2.3"'), "expected_changed",
                                 "TestBump::test_bump_major"),
    "parametrize case rewritten": (BASE.replace('("2.3.4", 2)', '("2.3.4", 3)'), "expected_changed",
                                   "test_parse"),
    "skip mark": (BASE.replace("def test_compare", "@pytest.mark.skip(reason='flaky')\ndef test_compare"),
                  "skip_added", "test_compare"),
    "xfail mark": (BASE.replace("    def test_bump_major", "    @pytest.mark.xfail\n    def test_bump_major"),
                   "skip_added", "TestBump::test_bump_major"),
    "skip call": (BASE.replace('def test_invalid():\n', 'def test_invalid():\n    pytest.skip("later")\n'),
                  "skip_added", "test_invalid"),
    "early return": (BASE.replace('def test_compare():\n', 'def test_compare():\n    return\n'),
                     "skip_added", "test_compare"),
    "module-level skip": (BASE.replace("from semver import Version\n",
                                       "from semver import Version\n\npytestmark = pytest.mark.skip\n"),
                          "skip_added", "test_compare"),
    "raises removed": (BASE.replace('    with pytest.raises(ValueError):\n        Version.parse("nope")\n',
                                    '    Version.parse("1.0.0")\n'), "assertion_removed", "test_invalid"),
    "asserts wrapped in try": (BASE.replace(
        '    assert Version(1, 2, 3) < Version(1, 2, 4)\n',
        '    try:\n        assert Version(1, 2, 3) < Version(1, 2, 4)\n    except AssertionError:\n        pass\n'),
        "assertion_removed", "test_compare"),
    "shadowed by a later stub": (BASE + "\n\ndef test_compare():\n    pass\n", "assertion_removed", "test_compare"),
    "renamed out of collection": (BASE.replace("def test_invalid", "def check_invalid"), "test_removed",
                                  "test_invalid"),
}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_good_changes_are_accepted(name):
    assert weakenings([("tests/test_version.py", BASE.encode(), GOOD[name].encode())]) == []


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_weakening_is_rejected_and_named(name):
    new, kind, test = BAD[name]
    found = weakenings([("tests/test_version.py", BASE.encode(), new.encode())])
    assert (kind, test) in [(f["kind"], f["test"]) for f in found], found
    assert all(f["path"] == "tests/test_version.py" for f in found)


def test_new_test_file_is_welcome_and_a_deleted_one_is_named():
    assert weakenings([("tests/test_new.py", None, BASE.encode())]) == []
    found = weakenings([("tests/test_version.py", BASE.encode(), None)])
    assert [f["kind"] for f in found] == ["file_removed"]
    assert "test_compare" in found[0]["detail"] and "TestBump::test_bump_major" in found[0]["detail"]


def test_unrelated_files_are_not_the_policys_business():
    assert weakenings([("src/semver/version.py", b"x = 1\n", b"x = 2\n")]) == []
    assert weakenings([("README.rst", b"a", None)]) == []


CONFTEST = "import pytest\n\n\n@pytest.fixture\ndef v():\n    return 1\n"


def test_conftest_new_fixture_accepted_new_hook_rejected():
    more = CONFTEST + "\n\n@pytest.fixture\ndef w():\n    return 2\n"
    assert weakenings([("tests/conftest.py", CONFTEST.encode(), more.encode())]) == []
    assert weakenings([("tests/sub/conftest.py", None, CONFTEST.encode())]) == []
    hook = CONFTEST + "\n\ndef pytest_collection_modifyitems(items):\n    items.clear()\n"
    for old in (CONFTEST.encode(), None):
        found = weakenings([("conftest.py", old, hook.encode())])
        assert [(f["kind"], f["detail"]) for f in found] == [("harness_changed",
                                                             "defines `pytest_collection_modifyitems`")]
    ignore = CONFTEST + "\ncollect_ignore = ['test_version.py']\n"
    assert [f["kind"] for f in weakenings([("tests/conftest.py", CONFTEST.encode(), ignore.encode())])] == [
        "harness_changed"]


PYPROJECT = '[project]\nname = "semver"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'


def test_pytest_configuration_narrowed_is_rejected_other_sections_accepted():
    other = PYPROJECT.replace('name = "semver"', 'name = "semver"\nversion = "3.0.3"')
    assert weakenings([("pyproject.toml", PYPROJECT.encode(), other.encode())]) == []
    narrowed = PYPROJECT + 'addopts = "-k not compare"\n'
    found = weakenings([("pyproject.toml", PYPROJECT.encode(), narrowed.encode())])
    assert [f["kind"] for f in found] == ["harness_changed"] and "addopts" in found[0]["detail"]
    found = weakenings([("pytest.ini", None, b"[pytest]\naddopts = -x\n")])
    assert [f["detail"] for f in found] == ["pytest configuration added"]
    cfg = b"[metadata]\nname = semver\n"
    assert weakenings([("setup.cfg", cfg, cfg + b"version = 3\n")]) == []
    found = weakenings([("setup.cfg", cfg, cfg + b"[tool:pytest]\nnorecursedirs = tests\n")])
    assert [f["kind"] for f in found] == ["harness_changed"]


def test_test_data_changed_is_rejected_added_is_accepted():
    assert weakenings([("tests/data/expected.json", None, b"{}")]) == []
    found = weakenings([("tests/data/expected.json", b"[1]", b"[2]")])
    assert [(f["kind"], f["detail"]) for f in found] == [("data_changed", "changed")]


def test_code_that_patches_every_test_is_rejected_even_in_a_new_file():
    patch = "import semver\n\nsemver.Version.compare = lambda self, other: 0\n"
    for old in (None, BASE.encode()):
        src = patch if old is None else BASE + "\n" + patch
        found = weakenings([("tests/test_aaa.py", old, src.encode())])
        assert [f["kind"] for f in found] == ["harness_changed"], found
        assert "semver.Version.compare = lambda" in found[0]["detail"]
    modules = "import sys\n\nsys.modules['semver'] = object()\n"
    assert [f["kind"] for f in weakenings([("tests/test_new.py", None, modules.encode())])] == ["harness_changed"]
    autouse = CONFTEST + "\n\n@pytest.fixture(autouse=True)\ndef fake(monkeypatch):\n    monkeypatch.setattr('x.y', 1)\n"
    found = weakenings([("tests/conftest.py", CONFTEST.encode(), autouse.encode())])
    assert [f["kind"] for f in found] == ["harness_changed"] and "autouse" in found[0]["detail"]
    # beside them, the ordinary module code of a new test file is welcome
    ordinary = "import sys\n\nsys.path.insert(0, 'src')\nEXPECTED = {'a': 1}\n\n\ndef test_a():\n    assert 1\n"
    assert weakenings([("tests/test_new.py", None, ordinary.encode())]) == []


def test_files_that_shadow_the_runner_are_rejected():
    for rel in ("pytest.py", "src/sitecustomize.py", "_pytest/__init__.py", "lib/evil.pth"):
        found = weakenings([(rel, None, b"x = 1\n")])
        assert [f["kind"] for f in found] == ["harness_changed"], rel
    assert weakenings([("src/pytest_helpers.py", None, b"x = 1\n")]) == []


SRC = '''def compare(a, b):
    """Compare two versions.

    >>> compare("1.0.0", "2.0.0")
    -1
    >>> compare("2.0.0",
    ...         "1.0.0")
    1
    """
    return (a > b) - (a < b)
'''


def test_doctest_expectation_rewritten_or_removed_is_rejected_code_fix_accepted():
    fixed = SRC.replace("return (a > b) - (a < b)", "return _cmp(a, b)")
    more = SRC.replace('    1\n    """', '    1\n    >>> compare("1.0.0", "1.0.0")\n    0\n    """')
    for good in (fixed, more):
        assert weakenings([("src/semver/version.py", SRC.encode(), good.encode())]) == []
    rewritten = SRC.replace("    -1\n", "    1\n")
    found = weakenings([("src/semver/version.py", SRC.encode(), rewritten.encode())])
    assert [(f["kind"], f["test"]) for f in found] == [("expected_changed", "doctest")]
    assert 'compare("1.0.0", "2.0.0")' in found[0]["detail"] and "now `1`" in found[0]["detail"]
    gone = SRC.replace('    >>> compare("2.0.0",\n    ...         "1.0.0")\n    1\n', "")
    found = weakenings([("src/semver/version.py", SRC.encode(), gone.encode())])
    assert [f["kind"] for f in found] == ["assertion_removed"]
    rst = b"Usage\n=====\n\n>>> 1 + 1\n2\n"
    assert [f["kind"] for f in weakenings([("docs/usage.rst", rst, rst.replace(b"\n2\n", b"\n3\n"))])] == [
        "expected_changed"]


def test_module_level_mock_patch_is_rejected():
    src = "from unittest import mock\n\nmock.patch('semver.Version.compare', return_value=0).start()\n"
    found = weakenings([("tests/test_new.py", None, src.encode())])
    assert [f["kind"] for f in found] == ["harness_changed"]


def test_a_fixture_defined_again_further_down_is_rejected():
    twice = CONFTEST + "\n\n@pytest.fixture\ndef v():\n    return 2\n"
    found = weakenings([("tests/conftest.py", CONFTEST.encode(), twice.encode())])
    assert [f["kind"] for f in found] == ["harness_changed"] and "`v` is defined again" in found[0]["detail"]


def test_a_fifo_swapped_in_for_a_test_file_is_refused_not_read(tmp_path):
    import os
    import stat

    from gatebench.testguard.testpolicy import _read_current

    (tmp_path / "test_ok.py").write_text("def test_a():\n    assert True\n")
    assert _read_current(str(tmp_path / "test_ok.py"), stat.S_IFREG | 0o644).startswith(b"def test_a")
    os.mkfifo(tmp_path / "test_x.py")  # no writer: a plain open() would block the stop forever
    with pytest.raises(OSError, match="not a regular file"):
        _read_current(str(tmp_path / "test_x.py"), stat.S_IFREG | 0o644)


# --- tests identified by what they check (refactors pass, weakening never does) ----------------

UNITTEST_BASE = '''import unittest
from semver import Version


class TestParse(unittest.TestCase):
    def test_parse(self):
        v = Version.parse("1.2.3")
        self.assertEqual(v.major, 1)
        self.assertEqual(v.minor, 2)

    def test_bump(self):
        self.assertEqual(str(Version(1, 2, 3).bump_major()), "2.0.0")
'''

REFACTORS = {
    "renamed": {"tests/test_version.py": BASE.replace("def test_invalid", "def test_parse_rejects_garbage")},
    "moved to another file": {
        "tests/test_version.py": BASE.replace('def test_invalid():\n    with pytest.raises(ValueError):\n'
                                              '        Version.parse("nope")\n', ""),
        "tests/test_errors.py": 'import pytest\nfrom semver import Version\n\n\ndef test_invalid():\n'
                                '    with pytest.raises(ValueError):\n        Version.parse("nope")\n'},
    "split in two": {"tests/test_version.py": BASE.replace(
        'def test_compare():\n    assert Version(1, 2, 3) < Version(1, 2, 4)\n    assert Version.parse("1.2.3").major == 1\n',
        'def test_compare():\n    assert Version(1, 2, 3) < Version(1, 2, 4)\n\n\n'
        'def test_parse_major():\n    v = Version.parse("1.2.3")\n    assert v.major == 1\n')},
    "merged": {"tests/test_version.py": BASE.replace(
        '@pytest.mark.parametrize("text,major", [("1.0.0", 1), ("2.3.4", 2)])\ndef test_parse(text, major):\n'
        '    assert Version.parse(text).major == major\n',
        'def test_parse():\n    assert Version.parse("1.0.0").major == 1\n    assert 2 == Version.parse("2.3.4").major\n')},
    "cases into parametrize": {"tests/test_version.py": BASE.replace(
        'def test_compare():\n    assert Version(1, 2, 3) < Version(1, 2, 4)\n    assert Version.parse("1.2.3").major == 1\n',
        '@pytest.mark.parametrize("a,b", [(Version(1, 2, 3), Version(1, 2, 4))])\ndef test_compare(a, b):\n'
        '    assert b > a\n\n\n@pytest.mark.parametrize("s", ["1.2.3"])\ndef test_major(s):\n'
        '    assert Version.parse(s).major == 1\n')},
    "cases into a for loop": {"tests/test_version.py": BASE.replace(
        '@pytest.mark.parametrize("text,major", [("1.0.0", 1), ("2.3.4", 2)])\ndef test_parse(text, major):\n'
        '    assert Version.parse(text).major == major\n',
        'CASES = [("1.0.0", 1), ("2.3.4", 2)]\n\n\ndef test_parse():\n    for text, major in CASES:\n'
        '        assert Version.parse(text).major == major\n')},
}

UNITTEST_REFACTORS = {
    "subTest table": UNITTEST_BASE.replace(
        '        v = Version.parse("1.2.3")\n        self.assertEqual(v.major, 1)\n        self.assertEqual(v.minor, 2)\n',
        '        for field, want in [("major", 1), ("minor", 2)]:\n            with self.subTest(field=field):\n'
        '                self.assertEqual(getattr(Version.parse("1.2.3"), field), want)\n'
        if False else
        '        for want_major, want_minor in [(1, 2)]:\n            with self.subTest(v="1.2.3"):\n'
        '                self.assertEqual(Version.parse("1.2.3").major, want_major)\n'
        '                self.assertEqual(Version.parse("1.2.3").minor, want_minor)\n'),
    "unittest to pytest style": '''from semver import Version


def test_parse():
    v = Version.parse("1.2.3")
    assert v.major == 1
    assert 2 == v.minor


def test_bump():
    assert str(Version(1, 2, 3).bump_major()) == "2.0.0"
''',
}


def _run(files_before: dict, files_after: dict) -> list[dict]:
    paths = sorted({*files_before, *files_after})
    return weakenings([(p, files_before[p].encode() if p in files_before else None,
                        files_after[p].encode() if p in files_after else None) for p in paths])


@pytest.mark.parametrize("name", sorted(REFACTORS))
def test_refactored_tests_are_the_same_tests(name):
    assert _run({"tests/test_version.py": BASE}, REFACTORS[name]) == []


@pytest.mark.parametrize("name", sorted(UNITTEST_REFACTORS))
def test_refactored_unittest_tests_are_the_same_tests(name):
    assert _run({"tests/test_version.py": UNITTEST_BASE}, {"tests/test_version.py": UNITTEST_REFACTORS[name]}) == []


def test_a_moved_test_that_lost_a_check_is_named_with_it():
    after = dict(REFACTORS["moved to another file"])
    after["tests/test_errors.py"] = after["tests/test_errors.py"].replace(
        '    with pytest.raises(ValueError):\n        Version.parse("nope")\n', '    Version.parse("nope")\n')
    found = _run({"tests/test_version.py": BASE}, after)
    assert [(f["kind"], f["test"]) for f in found] == [("assertion_removed", "test_invalid")], found


def test_a_whole_file_moved_is_the_same_tests_a_file_deleted_is_named():
    assert _run({"tests/test_version.py": BASE}, {"tests/test_semver.py": BASE}) == []
    found = _run({"tests/test_version.py": BASE}, {})
    assert [f["kind"] for f in found] == ["file_removed"]


def test_a_changed_parametrize_case_shows_the_case_whole_before_and_after():
    found = weakenings([("tests/test_version.py", BASE.encode(), BASE.replace('("2.3.4", 2)', '("2.3.4", 3)').encode())])
    assert [f["kind"] for f in found] == ["expected_changed"], found
    detail = found[0]["detail"]
    assert "case `('2.3.4', 2)` became `('2.3.4', 3)`" in detail, detail
    assert "`assert Version.parse('2.3.4').major == 2` became `assert Version.parse('2.3.4').major == 3`" in detail


def test_expected_failure_and_moving_a_test_under_skip_are_weakening():
    found = _run({"tests/test_version.py": UNITTEST_BASE}, {"tests/test_version.py": UNITTEST_BASE.replace(
        "    def test_bump", "    @unittest.expectedFailure\n    def test_bump")})
    assert [(f["kind"], f["test"]) for f in found] == [("skip_added", "TestParse::test_bump")], found
    after = dict(REFACTORS["moved to another file"])
    after["tests/test_errors.py"] = after["tests/test_errors.py"].replace(
        "def test_invalid", "@pytest.mark.skip\ndef test_invalid")
    found = _run({"tests/test_version.py": BASE}, after)
    assert [(f["kind"], f["test"]) for f in found] == [("skip_added", "test_invalid")], found
    assert "pytest.mark.skip" in found[0]["detail"]


def test_new_tests_that_cannot_run_are_named_new_tests_that_run_are_not():
    new = BASE + "\n\n@pytest.mark.skip(reason='later')\ndef test_subclass():\n    assert V(1) == Version(1)\n"
    found = _run({"tests/test_version.py": BASE}, {"tests/test_version.py": new})
    assert [(f["kind"], f["test"]) for f in found] == [("new_test_not_run", "test_subclass")], found
    xfail = new.replace("@pytest.mark.skip(reason='later')", "@pytest.mark.xfail")
    assert [f["kind"] for f in _run({"tests/test_version.py": BASE}, {"tests/test_version.py": xfail})] == [
        "new_test_not_run"]
    # a test in a file pytest never collects
    found = _run({}, {"tests/subclass_checks.py": "def test_subclass():\n    assert 1 == 1\n"})
    assert [f["kind"] for f in found] == ["new_test_not_run"] and "not collected" in found[0]["detail"]
    assert _run({"tests/test_version.py": BASE}, GOOD_NEW) == []


GOOD_NEW = {"tests/test_version.py": BASE + "\n\ndef test_subclass():\n    assert V(1) == Version(1)\n"}


JS_BASE = '''import test from "ava";
import {add, parse} from "../index.js";

test("adds small numbers", t => {
\tt.is(add(1, 2), 3);
\tt.is(add(2, 2), 4);
});

test("parses", t => {
\tt.deepEqual(parse("a=1"), {a: 1});
});
'''

JEST_BASE = '''describe("add", () => {
  it("adds", () => {
    expect(add(1, 2)).toBe(3);
    expect(add(-1, 1)).toEqual(0);
  });
  it("throws on strings", () => {
    expect(() => add("a", 1)).toThrow(TypeError);
  });
});
'''


def test_javascript_refactors_pass_and_weakening_is_named():
    js = "test/index.js"
    renamed = JS_BASE.replace('"adds small numbers"', '"adds"')
    split = JS_BASE.replace('\tt.is(add(2, 2), 4);\n', '').replace(
        'test("parses"', 'test("adds twos", t => {\n\tt.is(add(2, 2), 4);\n});\n\ntest("parses"')
    for good in (renamed, split, JS_BASE + '\ntest("new", t => {\n\tt.true(add(0, 0) === 0);\n});\n'):
        assert _run({js: JS_BASE}, {js: good}) == []
    found = _run({js: JS_BASE}, {js: JS_BASE.replace("t.is(add(2, 2), 4)", "t.is(add(2, 2), 5)")})
    assert [(f["kind"], f["test"]) for f in found] == [("expected_changed", "adds small numbers")], found
    assert "`t.is(add(2, 2), 4)` became `t.is(add(2, 2), 5)`" in found[0]["detail"]
    found = _run({js: JS_BASE}, {js: JS_BASE.replace("\tt.deepEqual(parse(\"a=1\"), {a: 1});\n", "")})
    assert [(f["kind"], f["test"]) for f in found] == [("assertion_removed", "parses")], found
    found = _run({js: JS_BASE}, {js: JS_BASE.replace('test("parses"', 'test.skip("parses"')})
    assert [(f["kind"], f["test"]) for f in found] == [("skip_added", "parses")], found
    found = _run({js: JS_BASE}, {js: JS_BASE.replace('test("parses"', 'test.only("parses"')})
    assert "only_added" in [f["kind"] for f in found]


def test_jest_style_checks_and_xit():
    js = "src/add.test.ts"
    assert _run({js: JEST_BASE}, {js: JEST_BASE.replace('it("adds"', 'it("adds numbers"')}) == []
    found = _run({js: JEST_BASE}, {js: JEST_BASE.replace("toEqual(0)", "toEqual(1)")})
    assert [(f["kind"], f["test"]) for f in found] == [("expected_changed", "add > adds")], found
    found = _run({js: JEST_BASE}, {js: JEST_BASE.replace('  it("throws', '  xit("throws')})
    assert [(f["kind"], f["test"]) for f in found] == [("skip_added", "add > throws on strings")], found
    found = _run({js: JEST_BASE}, {})
    assert [f["kind"] for f in found] == ["file_removed"]


def test_every_way_to_skip_inside_a_javascript_test_body_is_a_marker():
    js = "test/add.test.js"
    body = '  it("throws on strings", () => {\n'
    for skip, marker in [("if (process.env.CI !== 'true') this.skip();", "this.skip()"),
                         ("ctx.skip();", "ctx.skip()"), ("t.skip('later');", "t.skip()"),
                         ("pending('flaky');", "pending()"), ("context.skipIf(isWin);", "context.skipIf()")]:
        weak = JEST_BASE.replace(body, body + "    " + skip + "\n")
        found = _run({js: JEST_BASE}, {js: weak})
        assert [(f["kind"], f["test"]) for f in found] == [("skip_added", "add > throws on strings")], (skip, found)
        assert marker in found[0]["detail"], (skip, found)
    # beside them: a call named like a skip on another object in a helper outside any test is no marker
    assert _run({js: JEST_BASE}, {js: "const rows = list.skip(1);\n" + JEST_BASE}) == []


def test_snapshots_are_tests_wherever_they_live():
    snap = b'exports[`format 1`] = `"1kB"`;\n'
    for rel in ("src/__snapshots__/format.test.ts.snap", "lib/format.snap", "test/__snapshots__/a.js.snap"):
        found = weakenings([(rel, snap, snap.replace(b"1kB", b"1KB"))])
        assert [(f["kind"], f["path"], f["detail"]) for f in found] == [("snapshot_changed", rel, "rewritten")], found
        assert [f["detail"] for f in weakenings([(rel, snap, None)])] == ["deleted"]
        assert weakenings([(rel, None, snap)]) == []  # a new snapshot is a new test
    assert weakenings([("node_modules/x/__snapshots__/a.snap", snap, b"")]) == []
    js = "src/format.test.ts"
    inline = 'it("formats", () => {\n  expect(format(1000)).toMatchInlineSnapshot(`"1kB"`);\n});\n'
    found = weakenings([(js, inline.encode(), inline.replace("1kB", "1KB").encode())])
    assert [(f["kind"], f["test"]) for f in found] == [("expected_changed", "formats")], found


def test_a_javascript_table_is_the_same_checks_case_by_case_and_a_lost_case_is_named():
    js = "test/format.test.js"
    base = ("describe('format', () => {\n  it('formats bytes', () => {\n    expect(format(12)).toBe('12B');\n  });\n"
            "  it('formats kilobytes', () => {\n    expect(format(2048)).toBe('2KB');\n  });\n});\n")
    literal = ("describe('format', () => {\n  it.each([[12, '12B'], [2048, '2KB']])('formats %s', (n, out) => {\n"
               "    expect(format(n)).toBe(out);\n  });\n});\n")
    constant = "const CASES = [\n  [12, '12B'],\n  [2048, '2KB'],\n];\n" + literal.replace(
        "it.each([[12, '12B'], [2048, '2KB']])", "test.each(CASES)")
    for good in (literal, constant):
        assert _run({js: base}, {js: good}) == [], good
    for lossy in (literal.replace(", [2048, '2KB']", ""), constant.replace("  [2048, '2KB'],\n", "")):
        found = _run({js: base}, {js: lossy})
        assert [(f["kind"], f["test"]) for f in found] == [("test_removed", "format > formats kilobytes")], found
        assert "format(2048)" in found[0]["detail"]


MORE_BASE = '''import unittest
from more_itertools import chunked


class ChunkedTests(unittest.TestCase):
    def test_even(self):
        self.assertEqual(list(chunked([1, 2, 3, 4], 2)), [[1, 2], [3, 4]])

    def test_odd(self):
        self.assertEqual(list(chunked([1, 2, 3], 2)), [[1, 2], [3]])

    def test_none(self):
        self.assertEqual(list(chunked([], 2)), [])
'''
MORE_FOLD = '''import unittest
from more_itertools import chunked


class ChunkedTests(unittest.TestCase):
    def test_chunked(self):
        cases = [
            ([1, 2, 3, 4], [[1, 2], [3, 4]]),
            ([1, 2, 3], [[1, 2], [3]]),
            ([], []),
        ]
        for iterable, expected in cases:
            with self.subTest(iterable=iterable):
                self.assertEqual(list(chunked(iterable, 2)), expected)
'''


def test_a_subtest_table_over_a_local_list_is_the_same_checks_and_its_lossy_twin_names_the_lost_case():
    rel = "tests/test_more.py"
    assert _run({rel: MORE_BASE}, {rel: MORE_FOLD}) == []
    lossy = MORE_FOLD.replace("            ([1, 2, 3], [[1, 2], [3]]),\n", "")
    found = _run({rel: MORE_BASE}, {rel: lossy})
    assert [(f["kind"], f["test"]) for f in found] == [("test_removed", "ChunkedTests::test_odd")], found
    assert "chunked([1, 2, 3], 2)" in found[0]["detail"]


def test_javascript_for_of_and_foreach_tables_are_the_same_checks_row_by_row():
    js = "test/bytes.js"
    base = ("describe('bytes', () => {\n  it('parses KB', () => {\n    assert.strictEqual(bytes.parse('1KB'), 1024);\n"
            "  });\n  it('parses MB', () => {\n    assert.strictEqual(bytes.parse('1MB'), 1048576);\n  });\n});\n")
    for_of = ("describe('bytes', () => {\n  it('parses units', () => {\n"
              "    const cases = [['1KB', 1024], ['1MB', 1048576]];\n    for (const [input, expected] of cases) {\n"
              "      assert.strictEqual(bytes.parse(input), expected);\n    }\n  });\n});\n")
    for_each = ("const CASES = [['1KB', 1024], ['1MB', 1048576]];\ndescribe('bytes', () => {\n"
                "  it('parses units', () => {\n    CASES.forEach(([input, expected]) => {\n"
                "      assert.strictEqual(bytes.parse(input), expected);\n    });\n  });\n});\n")
    for good in (for_of, for_each):
        assert _run({js: base}, {js: good}) == [], good
        found = _run({js: base}, {js: good.replace(", ['1MB', 1048576]", "")})
        assert [(f["kind"], f["test"]) for f in found] == [("test_removed", "bytes > parses MB")], found


def test_javascript_tests_generated_from_a_table_are_the_same_tests_row_by_row():
    """mocha's way of a table: `TABLE.forEach(([n, out]) => it(`formats ${n}`, ...))` or a `for...of` around
    `it`: each row is a test of its own, titled with the row's values, its checks with them in place."""
    js = "test/bytes.js"
    base = ("describe('bytes', () => {\n  it('parses KB', () => {\n    assert.strictEqual(bytes.parse('1KB'), 1024);\n"
            "  });\n  it('parses MB', () => {\n    assert.strictEqual(bytes.parse('1MB'), 1048576);\n  });\n});\n")
    for_each = ("const CASES = [['1KB', 1024], ['1MB', 1048576]];\ndescribe('bytes', () => {\n"
                "  CASES.forEach(([input, expected]) => {\n    it(`parses ${input}`, () => {\n"
                "      assert.strictEqual(bytes.parse(input), expected);\n    });\n  });\n});\n")
    for_of = ("describe('bytes', () => {\n  for (const [input, expected] of [['1KB', 1024], ['1MB', 1048576]]) {\n"
              "    it(`parses ${input}`, () => {\n      assert.strictEqual(bytes.parse(input), expected);\n    });\n"
              "  }\n});\n")
    from gatebench.testguard.jschecks import tests_of

    assert sorted(tests_of(for_each)) == ["bytes > parses 1KB", "bytes > parses 1MB"]
    for good in (for_each, for_of):
        assert _run({js: base}, {js: good}) == [], good
        found = _run({js: base}, {js: good.replace(", ['1MB', 1048576]", "")})
        assert [(f["kind"], f["test"]) for f in found] == [("test_removed", "bytes > parses MB")], found


def test_a_table_row_whose_value_changed_is_that_case_expected_changed_in_both_languages():
    """Tests folded into a table with one row's expected value rewritten: not "test removed" (as it was),
    but that test's expected value changed, naming the case; a generated test's row rewritten likewise."""
    js = "test/b.test.js"
    sep = ("describe('f', () => {\n  it('formats bytes', () => {\n    expect(format(12)).toBe('12B');\n  });\n"
           "  it('formats kilobytes', () => {\n    expect(format(2048)).toBe('2KB');\n  });\n});\n")
    tab = ("describe('f', () => {\n  it.each([[12, '12B'], [2048, '2kB']])('formats %s', (n, out) => {\n"
           "    expect(format(n)).toBe(out);\n  });\n});\n")
    gen = ("describe('f', () => {\n  [[12, '12B'], [2048, '2KB']].forEach(([n, out]) => {\n"
           "    it(`formats ${n}`, () => {\n      expect(format(n)).toBe(out);\n    });\n  });\n});\n")
    py = "tests/test_x.py"
    ps = "def test_b():\n    assert f(12) == '12B'\n\n\ndef test_k():\n    assert f(2048) == '2KB'\n"
    pt = ("import pytest\n\n\n@pytest.mark.parametrize('n, out', [(12, '12B'), (2048, '2kB')])\n"
          "def test_f(n, out):\n    assert f(n) == out\n")
    for before, after, test, case in ((sep, tab, "f > formats kilobytes", "now case `2048 '2kB'`"),
                                      (gen, gen.replace("'2KB'", "'2kB'"), "f > formats 2048",
                                       "case `2048 '2KB'` became `2048 '2kB'`"),
                                      (ps, pt, "test_k", "now case `(2048, '2kB')`")):
        rel = py if test == "test_k" else js
        found = _run({rel: before}, {rel: after})
        assert [(f["kind"], f["test"]) for f in found] == [("expected_changed", test)], found
        assert found[0]["detail"].startswith(case), found
    assert _run({js: sep}, {js: tab.replace("'2kB'", "'2KB'")}) == []  # the honest fold


def test_javascript_for_in_tables_are_the_same_checks_key_by_key():
    """`for (const k in TABLE)` over an object literal (inline or a constant of the file): a check once per
    key, `TABLE[k]` its value; a key dropped is that check's test removed."""
    js = "test/units.test.js"
    base = ("describe('f', () => {\n  it('parses KB', () => {\n    expect(parse('1KB')).toBe(1024);\n  });\n"
            "  it('parses MB', () => {\n    expect(parse('1MB')).toBe(1048576);\n  });\n});\n")
    const = ("const UNITS = { '1KB': 1024, '1MB': 1048576 };\ndescribe('f', () => {\n  it('parses units', () => {\n"
             "    for (const s in UNITS) {\n      expect(parse(s)).toBe(UNITS[s]);\n    }\n  });\n});\n")
    generated = ("const UNITS = { '1KB': 1024, '1MB': 1048576 };\ndescribe('f', () => {\n  for (const s in UNITS) {\n"
                 "    it(`parses ${s}`, () => {\n      expect(parse(s)).toBe(UNITS[s]);\n    });\n  }\n});\n")
    for good in (const, generated):
        assert _run({js: base}, {js: good}) == [], good
        found = _run({js: base}, {js: good.replace(", '1MB': 1048576", "")})
        assert [(f["kind"], f["test"]) for f in found] == [("test_removed", "f > parses MB")], found


def test_a_test_whose_runner_is_chosen_between_it_and_it_skip_is_a_skip_not_a_removal():
    """Jest has no skip in a body: `(process.env.CI ? it : it.skip)('title', ...)` is its conditional skip.
    The test is still there (not "removed"), skipped: `skip_added`, naming it."""
    js = "test/b.test.js"
    base = "describe('f', () => {\n  it('formats kilobytes', () => {\n    expect(format(2048)).toBe('2KB');\n  });\n});\n"
    cond = base.replace("  it('formats", "  (process.env.CI ? it : it.skip)('formats")
    found = _run({js: base}, {js: cond})
    assert [(f["kind"], f["test"]) for f in found] == [("skip_added", "f > formats kilobytes")], found
    assert _run({js: base}, {js: base.replace("  it('formats", "  (process.env.CI ? it : test)('formats")}) == []


def test_javascript_folds_as_bytes_js_writes_them_are_the_same_checks():
    """Found on the real bytes.js (scripts/bench_js_real.py): a `forEach` whose callback is a `function (v)`
    or an arrow's expression body, and a `.each` over a table whose rows are not all arrays (Jest and Vitest
    pass such rows whole: `[]` is one value, not zero)."""
    js = "test/bytes.js"
    base = ("describe('parse', function(){\n  it('Should return null if input is invalid', function(){\n"
            "    assert.strictEqual(bytes.parse(null), null);\n    assert.strictEqual(bytes.parse([]), null);\n"
            "    assert.strictEqual(bytes.parse({}), null);\n  });\n});\n")
    body = "    INVALID.forEach(function (value) {\n      assert.strictEqual(bytes.parse(value), null);\n    });\n"
    function = "var INVALID = [null, [], {}];\n\n" + base.split("    assert")[0] + body + "  });\n});\n"
    arrow = base.split("    assert")[0] + "    [null, [], {}].forEach((v) => assert.strictEqual(bytes.parse(v), null));\n" \
                                              "  });\n});\n"
    each = ("const INVALID = [null, [], {}];\ndescribe('parse', () => {\n  it.each(INVALID)('Should return null for %s',"
            " (value) => {\n    assert.strictEqual(bytes.parse(value), null);\n  });\n});\n")
    for good in (function, arrow, each):
        assert _run({js: base}, {js: good}) == [], good
        found = _run({js: base}, {js: good.replace("[null, [], {}]", "[null, {}]")})
        assert [f["detail"] for f in found] == ["`assert.strictEqual(bytes.parse([]), null)`"], (good, found)


def test_javascript_table_names_resolve_by_scope_not_by_the_last_binding():
    """Two describes, each with its own `const CASES`: each table is read where it is used (the first
    describe's table is not the second's), and a module constant of the same name is shadowed inside them."""
    js = "test/bytes.js"
    base = ("describe('KB', () => {\n  it('parses KB', () => {\n    assert.strictEqual(bytes.parse('1KB'), 1024);\n"
            "  });\n});\ndescribe('MB', () => {\n  it('parses MB', () => {\n"
            "    assert.strictEqual(bytes.parse('1MB'), 1048576);\n  });\n});\n")
    each = "  it.each(CASES)('parses %s', (input, expected) => {\n    assert.strictEqual(bytes.parse(input), expected);\n  });\n"
    good = ("const CASES = [['1GB', 1073741824]];\ndescribe('KB', () => {\n  const CASES = [['1KB', 1024]];\n" + each +
            "});\ndescribe('MB', () => {\n  const CASES = [['1MB', 1048576]];\n" + each + "});\n")
    assert _run({js: base}, {js: good}) == []
    found = _run({js: base}, {js: good.replace("[['1KB', 1024]]", "[['1MB', 1048576]]")})
    assert [(f["test"], f["detail"]) for f in found] == [
        ("KB > parses KB", "it checked `assert.strictEqual(bytes.parse('1KB'), 1024)`")], found


def test_vitest_skipif_and_runif_are_skip_markers_of_the_test_they_head():
    """defu (scripts/bench_js_real.py): `it.skipIf(!process.env.CI)(title, fn)` was read as no test at all, so
    the finding said "test removed"; it is the same test under a conditional skip."""
    js = "test/defu.test.ts"
    base = "describe('defu', () => {\n  it('fills nulls', () => {\n    expect(defu({ a: null }, { a: 1 })).toEqual({ a: 1 });\n  });\n});\n"
    for head in ("it.skipIf(!process.env.CI)", "it.runIf(process.env.CI)"):
        found = _run({js: base}, {js: base.replace("  it(", f"  {head}(")})
        assert [(f["kind"], f["test"]) for f in found] == [("skip_added", "defu > fills nulls")], (head, found)
