"""The pre-issue-31 twin layout, frozen: how `twins.disguise` laid a test module's twins before the one printer
(gatebench/oracle/render.py) replaced it. Kept only as the recorded copy of that layout, to prove that a reader
tells its twins apart (tests/test_render.py) and that `gatebench audit` would print more than 0 on it: do not
use it for anything else, and do not "fix" it.

Every test is renamed in place, and a twin inserted as `["\n", twin, "\n"]` after its original or
`[twin, "\n"]` before it, its value moved up or down at random; a raises twin expects a fresh
`type('E', (Exception,), {})`. The rest of the file keeps its bytes.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass, field

from gatebench.oracle.twins import Edit, Site, _apply, _collect, _helper_block, _rename_edit, _twin_block


@dataclass
class Disguised:
    """A test module with its tests renamed and twins among them.

    `names`: new qualname -> (original qualname, True for a twin). `skipped`: qualname -> why no twin."""

    source: str
    names: dict[str, tuple[str, bool]]
    skipped: dict[str, str]
    sites: dict[str, Site]
    # `render.Rendered`'s interface, for the tests that lay this layout in its place: its raises twins expect a
    # fresh class, no builtin type, so none is ever excused (`canaries.judge`).
    expects: dict[str, str] = field(default_factory=dict)


def _fresh(rng: random.Random, taken: set[str], prefix: str = "test_") -> str:
    while True:
        name = prefix + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10))
        if name not in taken:
            taken.add(name)
            return name


def _directed(site: Site, rng: random.Random) -> Site:
    """The site with each edit's direction drawn at random (`Edit.alt`)."""
    edits = tuple(Edit(e.start, e.end, e.alt) if e.alt is not None and rng.random() < 0.5 else e for e in site.edits)
    return site if edits == site.edits else Site(site.kind, site.certain, site.line, site.what, edits)


PLACES = ("random", "before", "after")


def disguise(source: str, twin_of: dict[str, int], rng: random.Random, place: str = "random") -> Disguised:
    """Rename every test of the module and add, beside each test in `twin_of` (qualname -> site index),
    its twin, before or after it (`place`: at random, or all before / all after: a twin with a side effect
    shows only on one side), each value changed up or down at random. Raises SyntaxError, ValueError."""
    if place not in PLACES:
        raise ValueError(f"place {place!r}: one of {', '.join(PLACES)}")
    tree, tests, taken = _collect(source, set(twin_of))
    lines = source.encode("utf-8").splitlines(keepends=True)
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    names: dict[str, tuple[str, bool]] = {}
    skipped: dict[str, str] = {}
    chosen: dict[str, Site] = {}
    renames: list[Edit] = []
    inserts: list[tuple[int, list[bytes]]] = []  # (insert before this 1-based line, lines)
    by_name = {t.qualname: t for t in tests}
    for qual, idx in twin_of.items():
        t = by_name.get(qual)
        if t is None:
            skipped[qual] = "not a test of this module"
        elif not t.sites or t.why_none:
            skipped[qual] = t.why_none or "no site"
        elif not 0 <= idx < len(t.sites):
            skipped[qual] = f"no site {idx} (it has {len(t.sites)})"
    for t in tests:
        if t.why_none == "the module refers to the test by name":
            names[t.qualname] = (t.qualname, False)
            continue
        new = _fresh(rng, taken)
        renames.append(_rename_edit(lines, t.node, new))
        cls = f"{t.cls.name}::" if t.cls else ""
        names[cls + new] = (t.qualname, False)
        if t.qualname not in twin_of or t.qualname in skipped:
            continue
        site = _directed(t.sites[twin_of[t.qualname]], rng)
        chosen[t.qualname] = site
        twin = _fresh(rng, taken)
        helper_names: dict[str, str] = {}
        block: list[bytes] = []
        for e in site.edits:
            if e.text.startswith("@helper:"):
                h = e.text.split(":", 1)[1]
                helper_names[h] = _fresh(rng, taken, prefix="_")
        block += _twin_block(lines, t, site, twin, helper_names)
        for h, hname in helper_names.items():  # module level, right after the helper it copies
            helper = helpers[h]
            inserts.append(((helper.end_lineno or helper.lineno) + 1,
                            [b"\n", b"\n", *_helper_block(lines, helper, site, hname)]))
        names[cls + twin] = (t.qualname, True)
        after = rng.random() < 0.5 if place == "random" else place == "after"
        at = (t.node.end_lineno or t.node.lineno) + 1 if after else t.first_line
        inserts.append((at, [b"\n", *block, b"\n"] if after else [*block, b"\n"]))
    out = _apply(lines, renames)  # renames keep every line where it was
    for at, block in sorted(inserts, key=lambda x: x[0], reverse=True):
        out[at - 1:at - 1] = block
    return Disguised(b"".join(out).decode("utf-8"), names, skipped, chosen)
