"""Results-based checks: the runner's report of the baseline's tests against this stop's (pure).

`orig` is the report of the original tests (the test files as in the baseline) run on the current
code, `now` the report of the current tests; each a list of `{"id", "outcome"}` or None when the
runner wrote none. A test the original run reported and the current run does not, that now is
skipped, or that failed in its original version but not now, is found here for any runner; tests
the source checks matched to new ones (`moved`) are followed to them. New tests that are skipped,
or that the source checks saw and the runner never ran, are named too.
"""

from __future__ import annotations

from gatebench.hook.testident import finding

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
            if (not _split(k)[0] or not path) and _split(k)[1].replace(" › ", " > ") == test]
    return hits


def compare(orig: list[dict] | None, now: list[dict] | None, moved: dict[str, list[str]],
            new_tests: list[str], named: set[str]) -> dict:
    """{"findings", "hidden": ids failing in their original version and not now, "checked": why not
    if the comparison could not be made}. `named`: `path::test` ids the source checks already name."""
    out: dict = {"findings": [], "hidden": [], "checked": True}
    if now is None:
        out["checked"] = "the runner wrote no report at this stop"
        return out
    now_index = _index(now)
    heirs: dict[str, list[dict]] = {}
    for old_id, new_ids in moved.items():
        heirs[old_id] = [r for n in new_ids for r in _same(n, now_index)]
    if orig is not None:
        for key, rs in _index(orig).items():
            path, test = _split(key)
            quiet = key in named or any(n.endswith("::" + test) for n in named)  # the source checks name it
            current = now_index.get(key) or next((h for k, h in heirs.items() if _split(k)[1] == test and h), None)
            was = {r["outcome"] for r in rs}
            if current is None:
                if was & set(RAN) and not quiet:
                    out["findings"].append(finding("test_removed", path, test, "the runner no longer reports it"))
                if "failed" in was:
                    out["hidden"].append(key)
                continue
            is_ = {r["outcome"] for r in current}
            if was & set(RAN) and not is_ & set(RAN) and not quiet:
                out["findings"].append(finding("skip_added", path, test, "the runner now skips it"))
            if "failed" in was and "failed" not in is_:
                out["hidden"].append(key)
        orig_keys = set(_index(orig))
        for key, rs in now_index.items():
            if key not in orig_keys and all(r["outcome"] == "skipped" for r in rs) and key not in named:
                path, test = _split(key)
                out["findings"].append(finding("new_test_not_run", path, test, "the runner skipped it"))
    shown = {(f["path"], f["test"]) for f in out["findings"]}
    for sid in new_tests:
        if sid in named:
            continue
        path, test = _split(sid)
        hits = _same(sid, now_index)
        if not hits and (path, test) not in shown:
            out["findings"].append(finding("new_test_not_run", path, test, "the runner never ran it (not collected)"))
        elif hits and all(r["outcome"] == "skipped" for r in hits) and (path, test) not in shown:
            out["findings"].append(finding("new_test_not_run", path, test, "the runner skipped it"))
    return out
