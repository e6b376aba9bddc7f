"""Runner reports read into results, the results check, and the "user asked for it" rule."""

from __future__ import annotations

import json
import subprocess
import sys

from gatebench.hook.gates.tests import failure_digest, plain_output
from gatebench.testguard import runners, testresults, userask


def test_runners_are_detected_from_the_command_and_package_scripts(tmp_path):
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "xo && ava && tsd", "unit": "jest --ci"}}))
    assert runners.detect("python -m pytest -q", str(tmp_path)) == ("pytest", "append")
    assert runners.detect("npm test", str(tmp_path)) == ("ava", "")
    assert runners.detect("npm run unit", str(tmp_path)) == ("jest", "after --")
    assert runners.detect("go test ./...", str(tmp_path)) == ("go", "append")
    assert runners.detect("cargo nextest run", str(tmp_path)) == ("cargo", "append")
    assert runners.detect("make check", str(tmp_path)) == (None, "")
    assert runners.append_args("npm run unit", "--json", str(tmp_path)) == "npm run unit -- --json"


def test_report_flags_reach_the_runner_through_npm_pnpm_yarn_and_npx(tmp_path):
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "tsc && jest --ci", "v": "vitest run",
                                                                   "lint": "jest && eslint ."}}))
    repo = str(tmp_path)
    jest, vitest = runners.get("jest"), runners.get("vitest")
    ways = {c: runners.detect(c, repo) for c in ("npm test", "npm run v", "pnpm test", "yarn v", "npx jest",
                                                  "npm run lint", "cd x && npm test")}
    assert ways == {"npm test": ("jest", "after --"), "npm run v": ("vitest", "after --"),
                    "pnpm test": ("jest", "pnpm run"), "yarn v": ("vitest", "append"), "npx jest": ("jest", "append"),
                    "npm run lint": ("jest", ""), "cd x && npm test": (None, "")}, ways
    assert jest.prepare("npm test", "R", "after --") == ("npm test -- --json --outputFile=R", {})
    assert jest.prepare("pnpm test", "R", "pnpm run") == ("pnpm run test --json --outputFile=R", {})
    assert vitest.prepare("npm run v", "R", "after --")[0].startswith("npm run v -- --reporter=default ")
    assert jest.prepare("npm run lint", "R", "") is None  # the flags would reach eslint


def test_json_report_ids_are_relative_to_the_tree_that_ran_so_both_runs_agree(tmp_path):
    doc = {"testResults": [{"name": str(tmp_path / "test/a.test.ts"), "assertionResults": [
        {"ancestorTitles": ["defu"], "title": "merges", "status": "passed"},
        {"ancestorTitles": ["defu"], "title": "merges", "status": "failed"}]}]}
    (tmp_path / "r.json").write_text(json.dumps(doc))
    got = runners.get("vitest").results(str(tmp_path / "r.json"), "", str(tmp_path))
    assert got == [{"id": "test/a.test.ts::defu > merges", "outcome": "passed"},
                   {"id": "test/a.test.ts::defu > merges", "outcome": "failed"}]  # repeated titles kept apart
    copy = tmp_path / "copy"
    doc["testResults"][0]["name"] = str(copy / "test/a.test.ts")
    (tmp_path / "o.json").write_text(json.dumps(doc))
    orig = runners.get("vitest").results(str(tmp_path / "o.json"), "", str(copy))
    assert [r["id"] for r in orig] == [r["id"] for r in got]
    assert testresults.compare(orig, got, {}, [], set())["findings"] == []
    (tmp_path / "bad.json").write_text("[1]")
    assert runners.get("jest").results(str(tmp_path / "bad.json"), "", str(tmp_path)) is None


MOCHA = """

  bytes(value, options)
    ✔ should be a function
    parse
      ✔ should parse KB (2ms)
      1) should parse MB
      - should parse PB
    format
      ✔ should parse KB
  ✔ a root test


  4 passing (10ms)
  1 pending
  1 failing

  1) bytes(value, options)
       parse
         should parse MB:
     AssertionError [ERR_ASSERTION]: 1 == 2
"""


def test_mocha_ids_carry_the_suite_path_and_the_failure_list_is_not_a_test():
    got = runners.get("mocha").results("", MOCHA, "")
    assert got == [{"id": "bytes(value, options) > should be a function", "outcome": "passed"},
                   {"id": "bytes(value, options) > parse > should parse KB", "outcome": "passed"},
                   {"id": "bytes(value, options) > parse > should parse MB", "outcome": "failed"},
                   {"id": "bytes(value, options) > parse > should parse PB", "outcome": "skipped"},
                   {"id": "bytes(value, options) > format > should parse KB", "outcome": "passed"},
                   {"id": "a root test", "outcome": "passed"}], got


def test_more_skipped_than_the_originals_is_a_finding_even_when_no_id_says_so():
    orig = [{"id": "a", "outcome": "passed"}, {"id": "b", "outcome": "passed"}]
    now = [{"id": "a", "outcome": "passed"}, {"id": "b", "outcome": "passed"}, {"id": "b", "outcome": "skipped"}]
    got = testresults.compare(orig, now, {}, [], {"x::b"})["findings"]
    assert [(f["kind"], f["detail"]) for f in got] == [("skip_added", "the runner skips 1 tests, 0 in the originals' run")]
    assert testresults.compare(orig, orig, {}, [], set())["findings"] == []


def test_pytest_report_through_the_environment(tmp_path):
    (tmp_path / "test_a.py").write_text(
        "import pytest\n\ndef test_ok():\n    assert 1\n\n@pytest.mark.skip\ndef test_skip():\n    pass\n\n"
        "class TestK:\n    @pytest.mark.parametrize('x', [1, 2])\n    def test_p(self, x):\n        assert x == 1\n")
    mod = runners.get("pytest")
    cmd, env = mod.prepare(f"{sys.executable} -m pytest -q -p no:cacheprovider", str(tmp_path / "r.xml"), True)
    subprocess.run(cmd, shell=True, cwd=tmp_path, env={**__import__("os").environ, **env}, capture_output=True)
    got = {r["id"]: r["outcome"] for r in mod.results(str(tmp_path / "r.xml"), "")}
    assert got == {"test_a.py::test_ok": "passed", "test_a.py::test_skip": "skipped",
                   "test_a.py::TestK::test_p[1]": "passed", "test_a.py::TestK::test_p[2]": "failed"}, got
    assert mod.results(str(tmp_path / "missing.xml"), "") is None


def test_jest_json_go_json_cargo_ava_tape_lines(tmp_path):
    report = tmp_path / "jest.json"
    report.write_text(json.dumps({"testResults": [{"name": str(tmp_path / "src/a.test.js"), "assertionResults": [
        {"ancestorTitles": ["add"], "title": "adds", "status": "passed"},
        {"ancestorTitles": ["add"], "title": "later", "status": "pending"}]}]}))
    got = runners.get("jest").results(str(report), "")
    assert got is not None and [r["outcome"] for r in got] == ["passed", "skipped"]
    assert got[0]["id"].endswith("src/a.test.js::add > adds")
    assert runners.get("jest").prepare("npx jest", "R", last="") is None  # flags would reach another command
    go_out = "\n".join(json.dumps(e) for e in [
        {"Action": "run", "Package": "ex", "Test": "TestA"}, {"Action": "output", "Package": "ex", "Output": "ok\n"},
        {"Action": "pass", "Package": "ex", "Test": "TestA"}, {"Action": "skip", "Package": "ex", "Test": "TestB"}])
    go = runners.get("go")
    assert go.results("", go_out) == [{"id": "ex::TestA", "outcome": "passed"}, {"id": "ex::TestB", "outcome": "skipped"}]
    assert go.text(go_out) == "ok\n" and go.prepare("go test ./...", "R", True)[0] == "go test -json ./..."
    cargo = "running 3 tests\ntest a::one ... ok\ntest a::two ... FAILED\ntest a::three ... ignored\n"
    assert [r["outcome"] for r in runners.get("cargo").results("", cargo)] == ["passed", "failed", "skipped"]
    ava = "\n  ✔ adds (12ms)\n  ✘ [fail]: parses  Difference\n  - [skip] later\n"
    assert runners.get("ava").results("", ava) == [{"id": "adds", "outcome": "passed"},
                                                     {"id": "parses", "outcome": "failed"},
                                                     {"id": "later", "outcome": "skipped"}]
    tape = "TAP version 13\n# parse\nok 1 should be equal\n# bools\nok 2 a\nnot ok 3 b\n# tests 3\n# pass 2\n"
    assert runners.get("tape").results("", tape) == [{"id": "parse", "outcome": "passed"},
                                                       {"id": "bools", "outcome": "failed"}]


def test_results_check_finds_missing_skipped_hidden_and_follows_moves():
    orig = [{"id": "t.py::test_a", "outcome": "passed"}, {"id": "t.py::test_b", "outcome": "failed"},
            {"id": "t.py::test_c", "outcome": "passed"}, {"id": "t.py::test_d", "outcome": "failed"}]
    now = [{"id": "t.py::test_c", "outcome": "skipped"}, {"id": "u.py::test_d2", "outcome": "failed"},
           {"id": "u.py::test_new", "outcome": "skipped"}]
    r = testresults.compare(orig, now, {"t.py::test_d": ["u.py::test_d2"]}, ["u.py::test_new", "u.py::test_gone"], set())
    got = {(f["kind"], f["test"]) for f in r["findings"]}
    assert got == {("test_removed", "test_a"), ("test_removed", "test_b"), ("skip_added", "test_c"),
                   ("new_test_not_run", "test_new"), ("new_test_not_run", "test_gone")}, got
    assert r["hidden"] == ["t.py::test_b"]  # test_d moved to test_d2, which still fails: nothing hidden
    # beside it: the same tests all still there and running find nothing
    assert testresults.compare(orig, orig, {}, [], set()) == {"findings": [], "hidden": [], "checked": True}


def test_the_user_asks_for_a_test_change_only_by_naming_it_with_a_change_verb(tmp_path):
    tr = tmp_path / "t.jsonl"
    records = [
        {"type": "user", "message": {"role": "user", "content": "<system-reminder>rm test_parse</system-reminder>"
                                                                "Version 2.0 parses differently: update test_parse to expect 2."}},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "Stop hook feedback:\ndelete test_bump"}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "content": "remove test_cmp"}]}},
        {"type": "user", "message": {"role": "user", "content": "Fix test_fix, and do not remove test_keep."}},
    ]
    tr.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    msgs = userask.user_messages(str(tr))
    assert len(msgs) == 2 and "rm test_parse" not in msgs[0]

    def f(test):
        return {"kind": "expected_changed", "path": "tests/test_v.py", "test": test, "detail": ""}

    assert userask.asked(f("test_parse"), msgs)
    assert not userask.asked(f("test_bump"), msgs)  # only in hook feedback
    assert not userask.asked(f("test_cmp"), msgs)  # only in a tool result
    assert not userask.asked(f("test_fix"), msgs)  # "fix" asks for a code fix
    assert not userask.asked(f("test_keep"), msgs)  # negated
    assert not userask.asked(f("TestX::test_parse_more"), msgs)  # a whole word, not a prefix
    assert userask.user_messages(str(tmp_path / "none.jsonl")) == []


def test_failure_output_is_colour_free_and_benchmark_tables_are_left_out():
    out = ("\x1b[31mFAILED tests/test_a.py::test_x - assert 1 == 2\x1b[0m\n"
           "------------ benchmark: 2 tests ------------\nName (time in us)  Min\ntest_b  1.0\n"
           "Legend:\n  Outliers: ...\n  OPS: Operations Per Second\n"
           "\x1b[1m=== 1 failed, 2 passed in 0.1s ===\x1b[0m")
    text = plain_output(out)
    assert "\x1b" not in text and "Name (time in us)" not in text and "=== 1 failed, 2 passed" in text
    digest = failure_digest(out, failed=["tests/test_a.py::test_x"])
    assert digest.startswith("Failing tests:\nFAILED tests/test_a.py::test_x")


def test_the_honest_exit_excuses_only_the_tests_the_agent_names():
    from types import SimpleNamespace

    ctx = SimpleNamespace(transcript_path=None,
                          honest_claim={"tests": ["tests/test_semver.py::test_parse"], "words": {}, "via": "message"})

    named = {"test": "test_parse", "path": "tests/test_semver.py", "kind": "removed"}
    other = {"test": "test_bump", "path": "tests/test_semver.py", "kind": "removed"}
    standing, let = userask.excuse(ctx, [named, other])
    assert standing == [other] and [x["finding"] for x in let] == [named]
    assert "honest exit" in let[0]["by"]
    ctx.honest_claim = None  # the exit off (or no claim): nothing is excused
    assert userask.excuse(ctx, [named, other]) == ([named, other], [])


def test_a_each_title_with_placeholders_is_found_in_the_rows_the_runner_reports():
    now = [{"id": "test/f.test.js::format > formats 12", "outcome": "passed"},
           {"id": "test/f.test.js::format > formats 2048", "outcome": "passed"}]
    assert testresults.compare(None, now, {}, ["test/f.test.js::format > formats %s"], set())["findings"] == []
    assert testresults.compare(None, now, {}, ["test/f.test.js::format > $n in kB"], set())["findings"] != []
    got = testresults.compare(None, now, {}, ["test/g.test.js::format > formats %s"], set())["findings"]
    assert [f["detail"] for f in got] == ["the runner never ran it (not collected)"]  # another file's rows are not its


def test_a_change_verb_must_govern_the_test_it_names_and_the_excuse_quotes_the_words():
    def f(test, path="test/ms.test.ts"):
        return {"kind": "expected_changed", "path": path, "test": test, "detail": ""}

    title = f("ms(string) > should convert from ms")
    # the verb is only inside the quoted title: no request to change it
    assert not userask.asked(title, ["Fix the overflow; the test 'should convert from ms' fails."])
    assert not userask.asked(title, ['Make "should convert from ms" pass again, then update the README.'])
    assert userask.governs(title, "Please update 'should convert from ms' to expect 2h.") == \
        "update … should convert from ms"
    assert userask.governs(f("test_parse", "tests/test_v.py"), "test_parse is outdated and can be removed.") == \
        "test_parse … removed"
    assert userask.governs(f("test_parse", "tests/test_v.py"), "test_parse is not what I meant: change it.") == \
        "test_parse … change"
    # a verb in another sentence, or far from the name, governs nothing
    assert not userask.asked(f("test_parse", "tests/test_v.py"),
                             ["Rename the helper module. test_parse fails on 2.0 input."])
    assert not userask.asked(f("test_parse", "tests/test_v.py"),
                             ["Remove the cache and then, after you have looked at all the logs, run test_parse"])


def test_a_rewritten_snapshot_is_excused_only_by_a_request_to_update_snapshots():
    snap = {"kind": "snapshot_changed", "path": "src/__snapshots__/format.test.ts.snap", "test": "", "detail": "rewritten"}
    assert userask.governs(snap, "The output format changed on purpose: update the snapshots.") == "update … snapshots"
    assert not userask.asked(snap, ["Fix the rounding; the snapshots must not change."])
    assert not userask.asked(snap, ["Update the README, and fix the rounding bug the snapshot test shows."])


AVA = """
  ✔ b › adds
  - [skip] a › sk
  ✔ a › adds
  ✘ [fail]: a › later
  ─

  a › later
"""


def test_ava_ids_keep_the_file_of_a_several_file_run_apart():
    got = runners.get("ava").results("", AVA, "")  # ava 6's own output for test/a.js and test/b.js
    assert got == [{"id": "b::adds", "outcome": "passed"}, {"id": "a::sk", "outcome": "skipped"},
                   {"id": "a::adds", "outcome": "passed"}, {"id": "a::later", "outcome": "failed"}], got
    assert testresults.compare(None, got, {}, ["test/a.js::adds", "test/b.js::adds"], set())["findings"] == []
    found = testresults.compare(None, got, {}, ["test/c.js::adds"], set())["findings"]
    assert [f["detail"] for f in found] == ["the runner never ran it (not collected)"]


def test_tape_repeated_titles_are_kept_apart_as_the_source_checks_key_them():
    """tape 5.10.2's own output (nested `t.test` prints flat `# title` lines): a title repeated is two tests,
    keyed `title #2` as jschecks keys the second of two tests of one title."""
    from gatebench.testguard.jschecks import tests_of

    out = ("TAP version 13\n# parent\nok 1 should be truthy\n# child\nok 2 should be strictly equal\n# second\n"
           "# child\nok 3 should be truthy\n# second\nok 4 x # SKIP\n# second\nnot ok 5 should be equal\n\n1..5\n"
           "# tests 5\n# pass  4\n# fail  1\n")
    got = runners.get("tape").results("", out)
    assert got == [{"id": "parent", "outcome": "passed"}, {"id": "child", "outcome": "passed"},
                   {"id": "second", "outcome": "passed"}, {"id": "child #2", "outcome": "passed"},
                   {"id": "second #2", "outcome": "skipped"}, {"id": "second #2 #2", "outcome": "failed"}], got
    src = "test('second', (t) => { t.ok(1); t.end(); });\n" * 3
    assert sorted(tests_of(src)) == ["second", "second #2", "second #2 #2"]


def test_a_test_moved_where_the_runner_does_not_look_is_removed_and_its_heir_that_ran_is_not():
    """bytes.js (scripts/bench_js_real.py): the failing test moved to test/unit/, which mocha does not collect;
    the source checks follow it there (some of its checks also live in a test that ran), the results name it."""
    now = [{"id": "parse > Should accept negative values", "outcome": "passed"}]
    moved = {"test/p.js::parse > no units": ["test/p.js::parse > Should accept negative values",
                                             "test/unit/u.js::parse > no units"]}
    got = testresults.compare(None, now, moved, [], set())["findings"]
    assert [(f["kind"], f["test"]) for f in got] == [("test_removed", "parse > no units")], got
    assert "test/unit/u.js::parse > no units, which the runner never ran" in got[0]["detail"]
    ran = [*now, {"id": "parse > no units", "outcome": "passed"}]
    assert testresults.compare(None, ran, moved, [], set())["findings"] == []


def test_a_skip_the_source_checks_name_is_not_counted_again_by_the_runners_skipped_count():
    orig = [{"id": "a", "outcome": "passed"}, {"id": "b", "outcome": "passed"}]
    now = [{"id": "a", "outcome": "passed"}, {"id": "b", "outcome": "skipped"}]
    assert testresults.compare(orig, now, {}, [], {"x::b"}, skips_named=1)["findings"] == []
    got = testresults.compare(orig, now, {}, [], {"x::b"}, skips_named=0)["findings"]
    assert [f["test"] or f["path"] for f in got] == ["(the whole run)"], got


# Jest 30's and Vitest 4's default output, cut from real runs on vercel/ms and unjs/defu (one failing, one skipped)
JEST_OUT = """PASS src/index.test.ts
FAIL src/format.test.ts
  \u25cf format(number) \u203a should support milliseconds

    expect(received).toBe(expected) // Object.is equality

    Expected: "501ms"
    Received: "500ms"

      at Object.<anonymous> (src/format.test.ts:120:25)

PASS src/parse.test.ts

Test Suites: 1 failed, 3 passed, 4 total
Tests:       1 failed, 1 skipped, 161 passed, 163 total
Snapshots:   0 total
"""
VITEST_OUT = """
\x1b[1m RUN \x1b[22m v4.1.12 /r

 \x1b[31m\u276f\x1b[39m test/defu.test.ts (20 tests | 1 failed | 1 skipped) 162ms
     \x1b[31m\u00d7\x1b[31m should copy only missing properties defaults 75ms
     \x1b[32m\u2713\x1b[39m should fill in values that are null 1ms
 \x1b[32m\u2713\x1b[39m test/utils.test.ts (2 tests) 29ms

\x1b[41m\x1b[1m FAIL \x1b[22m\x1b[49m test/defu.test.ts\x1b[2m > \x1b[22mdefu\x1b[2m > \x1b[22mshould copy only missing properties defaults
AssertionError: expected { a: 'c', d: 'c' } to deeply equal { a: 'x', d: 'c' }

 Test Files  1 failed | 1 passed (2)
      Tests  1 failed | 20 passed | 1 skipped (22)
"""


def test_jest_and_vitest_results_from_their_own_output_when_no_report_can_be_asked_for(tmp_path):
    """`npm test` = `pnpm run test:nodejs && pnpm run test:edge` (vercel/ms): jest is found through the nested
    scripts, its flags cannot reach it, and its default output gives the failing tests by the report's ids and
    the counts of the rest."""
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {
        "test": "pnpm run test:nodejs && pnpm run test:edge", "test:nodejs": "jest --env node",
        "test:edge": "jest --env edge", "loop": "npm run loop"}}))
    assert runners.detect("npm test", str(tmp_path)) == ("jest", "")
    assert runners.detect("npm run test:nodejs", str(tmp_path)) == ("jest", "after --")
    assert runners.detect("npm run loop", str(tmp_path)) == (None, "")  # a script running itself ends
    jest = runners.get("jest").results(str(tmp_path / "none.json"), JEST_OUT, str(tmp_path))
    assert list(jest) == [{"id": "src/format.test.ts::format(number) > should support milliseconds",
                           "outcome": "failed"}]
    assert jest.counts == {"passed": 161, "failed": 1, "skipped": 1}
    twice = runners.get("jest").results("", JEST_OUT + JEST_OUT, str(tmp_path))  # both runs of the line
    assert len(twice) == 1 and twice.counts == {"passed": 322, "failed": 2, "skipped": 2}
    vitest = runners.get("vitest").results("", VITEST_OUT, str(tmp_path))
    assert list(vitest) == [{"id": "test/defu.test.ts::defu > should copy only missing properties defaults",
                             "outcome": "failed"}]
    assert vitest.counts == {"passed": 20, "failed": 1, "skipped": 1}
    assert runners.get("jest").results("", "no summary here", str(tmp_path)) is None
    from gatebench.hook.installed_tests import coverage

    assert coverage("jest", "")["results"].startswith("jest's failing tests and counts read from its own output")


def test_results_from_output_name_hidden_failures_and_skips_and_never_invent_removed_tests():
    from gatebench.testguard.runners._summary import Partial

    orig = Partial([{"id": "src/f.test.ts::f > months", "outcome": "failed"}], {"passed": 10, "failed": 1, "skipped": 0})
    clean = Partial([], {"passed": 9, "failed": 0, "skipped": 0})  # the weakened test no longer fails (deleted)
    got = testresults.compare(orig, clean, {}, ["src/f.test.ts::f > new"], set())
    assert got["hidden"] == ["src/f.test.ts::f > months"] and got["findings"] == [], got
    assert got["checked"].startswith("the runner's own output names only its failing tests"), got
    moved = testresults.compare(orig, Partial([{"id": "src/g.test.ts::g > months", "outcome": "failed"}],
                                              {"passed": 10, "failed": 1, "skipped": 0}),
                                {"src/f.test.ts::f > months": ["src/g.test.ts::g > months"]}, [], set())
    assert moved["hidden"] == [] and moved["findings"] == []  # followed to where it moved, still failing
    skipped = testresults.compare(orig, Partial([], {"passed": 9, "failed": 0, "skipped": 1}), {}, [], set())
    assert [f["path"] for f in skipped["findings"]] == ["(the whole run)"], skipped
    assert testresults.compare(orig, orig, {}, [], set())["hidden"] == []


def test_tape_has_no_suite_path_so_a_nested_test_is_its_parents_checks_and_a_title_of_its_own():
    """What the gate does with tape's flat output: a nested `t.test` is part of its parent in the source checks
    (its checks are the parent's) and a title of its own in the results (`# inner`, no parent, no file). So a
    nested test deleted is named twice, by the source checks (the parent's check removed) and by the results
    (the title no longer reported, with no path); the same title in two files is matched by title, in the
    order tape ran them, and two runs of the same tests compare equal."""
    from gatebench.testguard.testpolicy import weakenings

    src = ("const test = require('tape');\ntest('format', (t) => {\n  t.equal(format(1), '1B');\n"
           "  t.test('kilobytes', (st) => {\n    st.equal(format(2048), '2KB');\n    st.end();\n  });\n});\n")
    gone = src.replace("  t.test('kilobytes', (st) => {\n    st.equal(format(2048), '2KB');\n    st.end();\n  });\n", "")
    found = weakenings([("test/format.js", src.encode(), gone.encode())])
    assert [(f["kind"], f["test"]) for f in found] == [("assertion_removed", "format")], found
    tape = runners.get("tape")
    orig = tape.results("", "TAP version 13\n# format\nok 1 a\n# kilobytes\nok 2 b\n# parse\nok 3 c\n# parse\nok 4 d\n")
    now = tape.results("", "TAP version 13\n# format\nok 1 a\n# parse\nok 2 c\n# parse\nok 3 d\n")
    assert [r["id"] for r in orig] == ["format", "kilobytes", "parse", "parse #2"]
    got = testresults.compare(orig, now, {}, [], {"test/format.js::format"})["findings"]
    assert [(f["kind"], f["path"], f["test"]) for f in got] == [("test_removed", "", "kilobytes")], got
    assert testresults.compare(orig, orig, {}, ["test/a.js::parse", "test/b.js::parse"], set())["findings"] == []
