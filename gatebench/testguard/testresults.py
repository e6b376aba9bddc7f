"""Results-based checks: the runner's report of the baseline's tests against this stop's (pure).

`orig` is the report of the original tests (the test files as in the baseline) run on the current
code, `now` the report of the current tests; each a list of `{"id", "outcome"}` or None when the
runner wrote none. A test the original run reported and the current run does not, that now is
skipped, or that failed in its original version but not now, is found here for any runner; tests
the source checks matched to new ones (`moved`) are followed to them. New tests that are skipped,
or that the source checks saw and the runner never ran, are named too.
"""

from __future__ import annotations

import re

from gatebench.testguard.testident import finding

RAN = ("passed", "failed")


def base(rid: str) -> str:
    """A result id without its parameters (`test_x[1-2]` -> `test_x`)."""
    return rid.split("[", 1)[0] if rid.endswith("]") else rid


def _split(rid: str) -> tuple[str, str]:
    path, _, test = rid.partition("::")
    return (path, test) if test else ("", path)


def _index(results: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in results:
        out.setdefault(base(r["id"]), []).append(r)
    return out


def _same(source_id: str, index: dict) -> list[dict]:
    """Results of a source test id (`path::test`); runners that report titles only match on the title."""
    if source_id in index:
        return index[source_id]
    path, test = _split(source_id)
    hits = [r for k, rs in index.items() for r in rs
            if _same_file(_split(k)[0], path) and _split(k)[1].replace(" › ", " > ") == test]
    if not hits and _PLACEHOLDER.search(test):  # a `.each` title: the runner reports each row's title
        pat = re.compile(".+?".join(re.escape(x) for x in _PLACEHOLDER.split(test)) + r"\Z")
        hits = [r for k, rs in index.items() for r in rs
                if _same_file(_split(k)[0], path) and pat.match(_split(k)[1].replace(" › ", " > "))]
    return hits


def _same_file(reported: str, path: str) -> bool:
    """A result's file as the runner names it (none, the path, or ava's stem `a` for `test/a.js`)."""
    if not reported or not path or reported == path:
        return True
    stem = path.rsplit(".", 1)[0]
    return stem == reported or stem.endswith("/" + reported)


_PLACEHOLDER = re.compile(r"%[sdifjoOp#%]|\$[\w.]+")


def compare(orig: list[dict] | None, now: list[dict] | None, moved: dict[str, list[str]],
            new_tests: list[str], named: set[str], skips_named: int = 0) -> dict:
    """{"findings", "hidden": ids failing in their original version and not now, "checked": why not
    if the comparison could not be made}. `named`: `path::test` ids the source checks already name;
    `skips_named`: how many of their findings are skips (the runner's skipped count is compared beyond them)."""
    out: dict = {"findings": [], "hidden": [], "checked": True}
    if now is None:
        out["checked"] = "the runner wrote no report at this stop"
        return out
    if hasattr(now, "partial") or hasattr(orig, "partial"):
        return _compare_partial(orig, now, moved, skips_named)
    now_index = _index(now)
    heirs = {old_id: [r for n in new_ids for r in _same(n, now_index)] for old_id, new_ids in moved.items()}
    if orig is not None:
        orig_index = _index(orig)
        for key, rs in orig_index.items():
            found, hidden = _followed(key, rs, now_index, heirs, named)
            out["findings"] += found
            out["hidden"] += [key] if hidden else []
        out["findings"] += [finding("new_test_not_run", *_split(key), "the runner skipped it")
                            for key, rs in now_index.items()
                            if key not in orig_index and key not in named and _all_skipped(rs)]
    out["findings"] += _heirs_not_run(moved, named, now_index)
    shown = {(f["path"], f["test"]) for f in out["findings"]}
    out["findings"] += _new_not_run(new_tests, named, now_index, shown)
    if orig is not None:
        out["findings"] += _more_skipped(orig, now, out["findings"], skips_named)
    return out


def _compare_partial(orig: list[dict] | None, now: list[dict], moved: dict[str, list[str]], skips_named: int) -> dict:
    """Results that name only the failing tests (a runner's own output, `runners/_summary.py`): a test failing
    in the originals' run that fails no more (nor any test it moved to) is hidden, and the skipped counts are
    compared; a test the output does not name is not called removed or never run. `checked` says so."""
    out: dict = {"findings": [], "hidden": [], "checked": getattr(now, "partial", None) or getattr(orig, "partial", "")}
    if orig is None:
        return out
    failing = _index([r for r in now if r["outcome"] == "failed"])
    for key, rs in _index(orig).items():
        heirs = [r for n in moved.get(key, []) for r in _same(n, failing)]
        if any(r["outcome"] == "failed" for r in rs) and not _same(key, failing) and not heirs:
            out["hidden"].append(key)
    out["findings"] = _more_skipped(orig, now, [], skips_named)
    return out


def _counts(results: list[dict]) -> dict[str, int]:
    own = getattr(results, "counts", None)
    return dict(own) if own is not None else {o: sum(1 for r in results if r["outcome"] == o)
                                              for o in ("passed", "failed", "skipped")}


def _more_skipped(orig: list[dict], now: list[dict], found: list[dict], skips_named: int = 0) -> list[dict]:
    """The runner's own skipped count against the originals': a skip that no id matching named (a
    test renamed and skipped, a skip inside a table) still shows in the count."""
    if not any(_counts(orig).values()):  # a report naming no test compares nothing
        return []
    was, is_ = _counts(orig)["skipped"], _counts(now)["skipped"]
    named = skips_named + sum(1 for f in found if f["kind"] == "skip_added" or "skipped" in f["detail"])
    if is_ - was <= named:
        return []
    return [finding("skip_added", "(the whole run)", "", f"the runner skips {is_} tests, {was} in the originals' run")]


def _all_skipped(results: list[dict]) -> bool:
    return all(r["outcome"] == "skipped" for r in results)


def _followed(key: str, rs: list[dict], now_index: dict, heirs: dict, named: set[str]) -> tuple[list[dict], bool]:
    """An original test's results followed to the current run (or to the tests that took its checks):
    (findings, whether it failed in its original version and does not now)."""
    path, test = _split(key)
    quiet = key in named or any(n.endswith("::" + test) for n in named)  # the source checks name it
    current = now_index.get(key) or next((h for k, h in heirs.items() if _split(k)[1] == test and h), None)
    was = {r["outcome"] for r in rs}
    ran = bool(was & set(RAN)) and not quiet
    if current is None:
        return [finding("test_removed", path, test, "the runner no longer reports it")] if ran else [], "failed" in was
    is_ = {r["outcome"] for r in current}
    found = [finding("skip_added", path, test, "the runner now skips it")] if ran and not is_ & set(RAN) else []
    return found, "failed" in was and "failed" not in is_


def _heirs_not_run(moved: dict[str, list[str]], named: set[str], now_index: dict) -> list[dict]:
    """A test the source checks followed to tests the runner never ran (moved where the runner does not look):
    its checks no longer run, whatever else took some of them."""
    out = []
    for old_id, new_ids in moved.items():
        lost = [n for n in new_ids if n not in named and not _same(n, now_index)]
        if lost and old_id not in named:
            out.append(finding("test_removed", *_split(old_id), "its checks moved to " + ", ".join(lost)
                               + ", which the runner never ran (not collected)"))
    return out


def _new_not_run(new_tests: list[str], named: set[str], now_index: dict, shown: set) -> list[dict]:
    """New tests of the source checks that the runner never ran or skipped (unless already named)."""
    out = []
    for sid in new_tests:
        path, test = _split(sid)
        if sid in named or (path, test) in shown:
            continue
        hits = _same(sid, now_index)
        if not hits:
            out.append(finding("new_test_not_run", path, test, "the runner never ran it (not collected)"))
        elif _all_skipped(hits):
            out.append(finding("new_test_not_run", path, test, "the runner skipped it"))
    return out
