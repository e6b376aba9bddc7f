"""The one printer of a hidden test module the oracle runs: originals and twins alike (stdlib only).

Code under test may read everything its test process holds: the module's file (the importing frame's
`co_filename`), its bytecode and constants, line numbers, the collected items. So nothing of how a twin was
made may show in the module: `render` parses the module, renames every test at random, builds k twins of each
chosen test (`twins.Site`, its values drawn so that the original's place among its group's values is random),
shuffles the tests and twins of the module (and of each test class) in one random order, and prints the whole
tree anew with `ast.unparse`. Layout, blank lines, comments, quotes and line numbers then carry nothing; a twin
uses no construct its original does not (a raises twin expects another real exception type; a twin of a test
that calls an asserting helper calls its own copy of it, and so does its original). SPEC section 8 says what a
reader can still see.
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass, field

from gatebench.oracle import twins

PLACES = ("random", "before", "after")


@dataclass
class Rendered:
    """A rendered module. `names`: new qualname -> (original qualname, True for a twin); `skipped`: qualname ->
    why it has no twin; `sites`: qualname -> the site its twins change; `expects`: new qualname of each raises
    twin -> the exception type it expects (`canaries.judge` excuses it where the original raised that)."""

    source: str
    names: dict[str, tuple[str, bool]]
    skipped: dict[str, str]
    sites: dict[str, twins.Site]
    expects: dict[str, str] = field(default_factory=dict)


def fresh(rng: random.Random, taken: set[str], prefix: str = "test_") -> str:
    while True:
        name = prefix + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10))
        if name not in taken:
            taken.add(name)
            return name


def twin_texts(site: twins.Site, k: int | None, rng: random.Random, reach: int | None = None) -> list[tuple[str, ...]]:
    """The texts of each twin's edits (one tuple per twin, in the order of `site.edits`): k twins (None: every
    option, selftest's proof). An ordered edit takes the values at steps drawn so that the original sits at a
    random place in its group's arithmetic run (k=2: below both, between, above both, each 1/3), within the
    reach every ordered edit of the site has (`Site.capacity`; `reach`: at most that, the twins a run of the
    task gives the test, so that the proof, k None, lays every step a run can draw and no more); an edit with
    fewer options repeats them. Never two twins alike, so fewer than k when the site has fewer options."""
    width = max(len(e.choices) for e in site.edits)
    ordered = any(e.ordered for e in site.edits)
    span = site.capacity if reach is None else max(1, min(reach, site.capacity))
    if ordered:
        n = min(k, span) if k is not None else 2 * span
        below = rng.randint(0, n) if k is not None else span
        steps = [*range(-below, 0), *range(1, n - below + 1)]
    else:
        n = width if k is None else min(k, width)
        steps = rng.sample(range(width), n) if k is not None else list(range(width))
    out = []
    for i, step in enumerate(steps):
        out.append(tuple(e.choices[e.reach + step if step < 0 else e.reach + step - 1] if e.ordered
                         else e.choices[(step if not ordered else i) % len(e.choices)] for e in site.edits))
    return list(dict.fromkeys(out))


def _parse_def(block: list[bytes], in_class: bool) -> ast.FunctionDef | ast.AsyncFunctionDef:
    text = b"".join(block).decode("utf-8")
    tree = ast.parse("class _C:\n" + text if in_class else text)
    node = tree.body[0].body[0] if in_class else tree.body[0]  # type: ignore[attr-defined]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    return node


class _Group:
    """One twinned test: its original and its twins as new nodes, and the helper copies they call."""

    def __init__(self, lines: list[bytes], t: twins.Test, site: twins.Site, texts: list[tuple[str, ...]],
                 helpers: dict[str, ast.FunctionDef], rng: random.Random, taken: set[str]):
        self.original: ast.stmt | None = None
        self.twins: list[ast.stmt] = []
        self.helper_copies: dict[str, list[ast.stmt]] = {}
        self.names: dict[str, bool] = {}
        self.expects: dict[str, str] = {}  # twin's name -> the type a raises twin expects
        calls = tuple(e for e in site.edits if e.text.startswith("@helper:"))
        for member, chosen in [(None, ()), *enumerate(texts)]:
            name = fresh(rng, taken)
            # The original is printed from its own lines too, its helper calls redirected to its own copy.
            own = () if member is None else tuple(
                twins.Edit(e.start, e.end, text) for e, text in zip(site.edits, chosen, strict=True)
                if not e.text.startswith("@helper:"))
            copies = {e.text.split(":", 1)[1]: fresh(rng, taken, prefix="_") for e in calls}
            member_site = twins.Site(site.kind, site.certain, site.line, site.what, (*own, *calls))
            node = _parse_def(twins._twin_block(lines, t, member_site, name, copies), t.cls is not None)
            for h, hname in copies.items():
                h_node = helpers[h]
                block = twins._helper_block(lines, h_node, member_site, hname)
                self.helper_copies.setdefault(h, []).append(_parse_def(block, False))
            self.names[name] = member is not None
            if member is None:
                self.original = node
            else:
                self.twins.append(node)
                if site.kind == "raises" and own:
                    self.expects[name] = own[0].text  # its one edit: the type in place of the original's


def _order(units: list[tuple[ast.stmt, str, bool]], place: str, rng: random.Random) -> list[ast.stmt]:
    """Shuffle (node, group key, twin?) units; `place` before/after: each group's twins all before (after) its
    original, the group keeping the same places (a twin with a side effect shows on that side only)."""
    rng.shuffle(units)
    if place != "random":
        slots: dict[str, list[int]] = {}
        for i, (_n, key, _t) in enumerate(units):
            if key:
                slots.setdefault(key, []).append(i)
        for idx in slots.values():
            members = sorted((units[i] for i in idx), key=lambda u: u[2] != (place == "before"))
            for i, u in zip(idx, members, strict=True):
                units[i] = u
    return [n for n, _k, _t in units]


def _place_tests(body: list[ast.stmt], units: list[tuple[ast.stmt, str, bool]], movable: set[int],
                 place: str, rng: random.Random) -> list[ast.stmt]:
    """`body` with its movable statements (indexes) removed and `units` put, in random order, where the last of
    them was: moving a test later never makes a name it uses at definition unbound."""
    if not movable:
        return body
    at = max(movable)
    out: list[ast.stmt] = []
    for i, node in enumerate(body):
        if i == at:
            out += _order(units, place, rng)
        elif i not in movable:
            out.append(node)
    return out


def _skips(twin_of: dict[str, int], by_name: dict[str, twins.Test]) -> dict[str, str]:
    skipped: dict[str, str] = {}
    for qual, idx in twin_of.items():
        t = by_name.get(qual)
        if t is None:
            skipped[qual] = "not a test of this module"
        elif not t.sites or t.why_none:
            skipped[qual] = t.why_none or "no site"
        elif not 0 <= idx < len(t.sites):
            skipped[qual] = f"no site {idx} (it has {len(t.sites)})"
    return skipped


def render(source: str, twin_of: dict[str, int], rng: random.Random, *, k: int | None = 2,
           place: str = "random", k_of: dict[str, int] | None = None,
           collected: tuple | None = None) -> Rendered:
    """The module printed anew with every test renamed, k twins (None: every option) of each test in `twin_of`
    (qualname -> site index), and the tests and twins of the module (and of each test class) in one random
    order (`place`: random, or each group's twins all before / all after its original); `k_of`: qualname -> its
    own k (k None: the reach of its ordered site's steps); `collected`: `twins._collect(source, ...)` already done (canaries.lay reads the
    sites' capacities first), used once. A test the module names keeps its name and place and gets no twin.
    Raises SyntaxError, ValueError."""
    if place not in PLACES:
        raise ValueError(f"place {place!r}: one of {', '.join(PLACES)}")
    tree, tests, taken = collected or twins._collect(source, set(twin_of))
    lines = source.encode("utf-8").splitlines(keepends=True)
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    skipped = _skips(twin_of, {t.qualname: t for t in tests})
    names: dict[str, tuple[str, bool]] = {}
    expects: dict[str, str] = {}
    chosen: dict[str, twins.Site] = {}
    units: dict[int, list[tuple[ast.stmt, str, bool]]] = {}  # id(class node) or 0 -> its units
    moved: dict[int, set[int]] = {}  # id(owner) -> ids of the nodes the units replace
    copies: dict[str, list[ast.stmt]] = {}
    for t in tests:
        if t.why_none == "the module refers to the test by name":
            names[t.qualname] = (t.qualname, False)
            continue
        owner = id(t.cls) if t.cls else 0
        cls = f"{t.cls.name}::" if t.cls else ""
        moved.setdefault(owner, set()).add(id(t.node))
        mine = units.setdefault(owner, [])
        if t.qualname in twin_of and t.qualname not in skipped:
            site = t.sites[twin_of[t.qualname]]
            mine_k = k if k is None or k_of is None else k_of.get(t.qualname, k)
            reach = k_of.get(t.qualname) if k is None and k_of else None
            g = _Group(lines, t, site, twin_texts(site, mine_k, rng, reach), helpers, rng, taken)
            chosen[t.qualname] = site
            assert g.original is not None
            mine += [(g.original, t.qualname, False), *((n, t.qualname, True) for n in g.twins)]
            names.update({cls + new: (t.qualname, is_twin) for new, is_twin in g.names.items()})
            expects.update({cls + new: typ for new, typ in g.expects.items()})
            for h, made in g.helper_copies.items():
                copies.setdefault(h, []).extend(made)
        else:
            t.node.name = fresh(rng, taken)
            names[cls + t.node.name] = (t.qualname, False)
            mine.append((t.node, "", False))
    for c in [n for n in tree.body if isinstance(n, ast.ClassDef) and id(n) in units]:
        c.body = _place_tests(c.body, units[id(c)], {i for i, n in enumerate(c.body) if id(n) in moved[id(c)]},
                              place, rng)
    if 0 in units:
        tree.body = _place_tests(tree.body, units[0], {i for i, n in enumerate(tree.body) if id(n) in moved[0]},
                                 place, rng)
    tree.body = _with_copies(_unrewritten(tree.body) if chosen else tree.body, copies, rng)
    out = ast.unparse(tree) + "\n"
    if _FSTRING.search(source):
        _fstrings_reparse(tree)
    return Rendered(out, names, skipped, chosen, expects)


# An f-string's prefix: only a module that has one has its f-strings checked after printing (3.11's printer bug).
_FSTRING = re.compile(r"(?i)(?<![\w])(?:f|rf|fr)['\"]")


def _fstrings_reparse(tree: ast.Module) -> None:
    """Each outermost f-string as printed, parsed again: 3.11's printer can write one that does not parse, which
    must skip the file's canaries, not break its collection. Only the f-strings: parsing the whole printed
    module again was a quarter of what rendering T5 cost (its k twins repeat one small f-string). Raises
    SyntaxError."""
    seen: set[str] = set()
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.JoinedStr):
            text = ast.unparse(node)
            if text not in seen:
                seen.add(text)
                ast.parse(text, mode="eval")
            continue
        todo.extend(ast.iter_child_nodes(node))
DONT_REWRITE = "PYTEST_DONT_REWRITE"


def _unrewritten(body: list[ast.stmt]) -> list[ast.stmt]:
    """The module's docstring marked for pytest not to rewrite its asserts (added if it has none): rewriting a
    module with k twins per test, and explaining every failing twin, was most of what canaries cost (T12: 1.47x
    an oracle run without them, scripts/bench_canaries.py). Outcomes are the same: a rewritten assert only
    explains its failure, and nobody reads the oracle's tracebacks (`--tb=no`)."""
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        if DONT_REWRITE not in first.value.value:
            first.value.value += f"\n\n{DONT_REWRITE}"
        return body
    return [ast.Expr(ast.Constant(DONT_REWRITE)), *body]


def _with_copies(body: list[ast.stmt], copies: dict[str, list[ast.stmt]], rng: random.Random) -> list[ast.stmt]:
    """Each helper's copies right after it, in random order."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        made = copies.get(getattr(node, "name", ""), []) if isinstance(node, ast.FunctionDef) else []
        out += rng.sample(made, len(made))
    return out
