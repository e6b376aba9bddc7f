"""Contradiction twins of tests: the same test with one expected value changed (stdlib only).

A twin is built so that no implementation can pass both it and its original: it compares the same
expression with another expected value (`== 4` becomes `== 5`), expects an exception type nothing can
raise, or asserts the opposite. Honest code that passes the original therefore fails the twin; a run in
which a test *and* its twin pass proves that something other than the code decided the outcomes (a
rewritten report, swapped test bodies, an object equal to everything). The oracle runs twins beside the
hidden tests (canaries); the impossible variants of the bench are the same edit applied to the visible
tests in place.

Everything here works on source text and returns source text: an edit replaces one node's span. The oracle
never runs that text as it is: `render` (oracle/render.py) prints the whole module anew, originals and twins alike,
so nothing of the source's layout tells them apart.
Sites are ranked: first an expected *literal* (the strongest: the twin looks like any other test and an
always-equal object passes both), then a literal inside a constructor call on the expected side, then a
`pytest.raises`/`assertRaises` type (another real type in `render`'s twins), then a negated assertion; and
among those, sites certain to run when the original passes (not inside `if`/`try`/`while`, not after a
`return`) before those inside loops over computed values. Whether a twin really fails on honest code is
proven, never assumed: `selftest` runs every option of every twin against the reference, the base and every
injection (SPEC section 8).
"""

from __future__ import annotations

import ast
import builtins
import io
import re
import tokenize
from dataclasses import dataclass, field

TYPE_CHECKING = False  # importing typing costs the hook's stops; only type checkers need the name
if TYPE_CHECKING:
    from typing import Any as Node  # an ast node with a position

# unittest's assertion methods and their opposites (a flip is a "negate" site).
_UNITTEST_FLIP = {
    "assertTrue": "assertFalse", "assertFalse": "assertTrue",
    "assertEqual": "assertNotEqual", "assertNotEqual": "assertEqual",
    "assertEquals": "assertNotEqual",
    "assertIs": "assertIsNot", "assertIsNot": "assertIs",
    "assertIsNone": "assertIsNotNone", "assertIsNotNone": "assertIsNone",
    "assertIn": "assertNotIn", "assertNotIn": "assertIn",
    "assertIsInstance": "assertNotIsInstance", "assertNotIsInstance": "assertIsInstance",
    "assertRegex": "assertNotRegex", "assertNotRegex": "assertRegex",
    "assertGreater": "assertLessEqual", "assertLessEqual": "assertGreater",
    "assertLess": "assertGreaterEqual", "assertGreaterEqual": "assertLess",
    "assertAlmostEqual": "assertNotAlmostEqual", "assertNotAlmostEqual": "assertAlmostEqual",
}
# unittest assertions whose second argument is an expected value that may be changed.
_UNITTEST_EQUAL = ("assertEqual", "assertEquals", "assertListEqual", "assertTupleEqual", "assertDictEqual",
                   "assertSetEqual", "assertSequenceEqual", "assertMultiLineEqual", "assertAlmostEqual")
# Equality assertions called by a bare name the module imports (nose's and numpy.testing's, a project's own
# `common.assert_equal`: tabulate's tests assert through nothing else, and had no site). Which argument is the
# expected one varies, so both are tried, as for unittest's; the canary proof drops a twin that does not fail.
_IMPORTED_EQUAL = ("assert_equal", "assert_equals", "eq_")
_RAISES = ("raises", "assertRaises", "assertRaisesRegex")
# Exceptions a `raises` twin would let escape its test: KeyboardInterrupt ends the whole pytest run (every
# later test unrun, the honest run unscorable), SystemExit and GeneratorExit pass through plain `except`.
_ESCAPING = frozenset({"BaseException", "KeyboardInterrupt", "SystemExit", "GeneratorExit"})
_NEGATED_OP = {ast.Eq: "!=", ast.NotEq: "==", ast.Lt: ">=", ast.GtE: "<", ast.Gt: "<=", ast.LtE: ">",
               ast.Is: "is not", ast.IsNot: "is", ast.In: "not in", ast.NotIn: "in"}
# Kinds, strongest first; `rank` orders sites by (certain to run, kind).
KINDS = ("value", "value-call", "raises", "negate")
# A value twin's values: LADDER steps down and up from the original, each of STEP (numbers; a string's
# character moves one place per step, as far as its class allows). Not 1: an off-by-one base (T1's) would
# compute the first twin's value and pass it, and a twin that passes is a finding (SPEC section 8), so the proof
# would have to drop it. LADDER bounds a site's twins (a run of k twins around the original needs k steps each
# way): 12, so that a task with few twinned tests can take the twins its guess odds need (canaries.allocate).
LADDER = 12
STEP = 2
OFFSETS = (*range(-LADDER, 0), *range(1, LADDER + 1))
# Exception types a raises twin expects instead of the original's: real ones the module's own raises tests
# could name (a fresh class would mark the twin), never a base class of a builtin original's type.
RAISES_POOL = ("TypeError", "KeyError", "IndexError", "AttributeError", "RuntimeError", "ZeroDivisionError",
               "ValueError", "OverflowError")
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple, ast.Dict,
          ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.JoinedStr)


@dataclass(frozen=True)
class Edit:
    """Replace source bytes [start, end) of line-column positions with `text` (lines 1-based, cols in bytes).

    `alt`: the same change in the other direction (`4` -> `3` beside `4` -> `5`)."""

    start: tuple[int, int]
    end: tuple[int, int]
    text: str
    alt: str | None = None
    # Every text a twin may put there (`render` draws k of them): `ordered`, the values at the steps
    # -LADDER..-1, +1..+LADDER from the original, in that order (a twin group's values form one arithmetic
    # run in which the original's place is drawn at random); otherwise alternatives in no order.
    options: tuple[str, ...] = ()
    ordered: bool = False
    reach: int = LADDER  # ordered: the options are the steps -reach..-1, +1..+reach (a string's class may end)
    tell: bool = False  # its twins are told apart from the original by their form (an `x` appended, `[]` -> `[0]`)

    @property
    def choices(self) -> tuple[str, ...]:
        return self.options or (self.text,)


@dataclass(frozen=True)
class Site:
    kind: str  # one of KINDS
    certain: bool  # runs whenever the original passes (not inside a loop over computed values)
    line: int  # where the changed expectation is, in the file
    what: str  # a human line: "== 4 -> == 5"
    edits: tuple[Edit, ...]

    @property
    def rank(self) -> tuple[int, int]:
        return (0 if self.certain else 1, KINDS.index(self.kind))

    @property
    def capacity(self) -> int:
        """The most twins `render` can make of it with the original's place random: an ordered run's reach each
        way (the shortest of its edits'), else its number of alternatives."""
        reach = [e.reach for e in self.edits if e.ordered]
        return min(reach) if reach else max(len(e.choices) for e in self.edits)

    @property
    def told(self) -> bool:
        """Its twins differ from the original in form, not only in value: a guess finds the original."""
        return any(e.tell for e in self.edits)


@dataclass
class Test:
    """A test function pytest would collect: `qualname` is `name` or `Class::name`."""

    qualname: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    cls: ast.ClassDef | None = None
    sites: list[Site] = field(default_factory=list)
    why_none: str = ""  # when it has no site: why

    @property
    def first_line(self) -> int:
        return min([self.node.lineno, *(d.lineno for d in self.node.decorator_list)])


# ---------------------------------------------------------------- literals


def _segment(lines: list[bytes], node: Node) -> str:
    return _span_text(lines, (node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0))


def _span_text(lines: list[bytes], start: tuple[int, int], end: tuple[int, int]) -> str:
    (l0, c0), (l1, c1) = start, end
    if l0 == l1:
        return lines[l0 - 1][c0:c1].decode("utf-8")
    parts = [lines[l0 - 1][c0:], *lines[l0:l1 - 1], lines[l1 - 1][:c1]]
    return b"".join(parts).decode("utf-8")


def _other_char(c: str, step: int = 1) -> str | None:
    """The next (`step` -1: previous) character in its own class (`5`->`6`, `e`->`f`, `Z`->`A`); None for
    anything else."""
    for lo, hi in (("0", "9"), ("a", "z"), ("A", "Z")):
        if lo <= c <= hi:
            return chr(ord(lo) + (ord(c) - ord(lo) + step) % (ord(hi) - ord(lo) + 1))
    return None


def _reach(c: str) -> int:
    """How many steps a character can move either way inside its class without wrapping (`0` none, `m` 12):
    a run that wrapped (`0` -> `9`, `8`) would sort its original last every time, a tell (SPEC section 8)."""
    for lo, hi in (("0", "9"), ("a", "z"), ("A", "Z")):
        if lo <= c <= hi:
            return min(ord(c) - ord(lo), ord(hi) - ord(c), LADDER)
    return 0


def _plain(body: str, raw: bool) -> list[int]:
    """Indexes of the body's characters that stand for themselves (not part of an escape sequence)."""
    out, i = [], 0
    while i < len(body):
        if body[i] != "\\":
            out.append(i)
            i += 1
            continue
        nxt = body[i + 1:i + 2]
        if raw or (nxt not in ("x", "u", "U", "N") and not "0" <= nxt <= "7"):
            i += 2
        elif nxt == "N":
            i = body.find("}", i) + 1 or len(body)
        elif nxt in ("x", "u", "U"):
            i += {"x": 4, "u": 6, "U": 10}[nxt]
        else:
            i += 2 + len(re.match(r"[0-7]{0,2}", body[i + 2:]).group())  # type: ignore[union-attr]
    return out


def _string_edit(lines: list[bytes], node: ast.Constant) -> Edit | None:
    """Change one character of the last string token of a (possibly concatenated) literal, in place. The twins'
    options move the plain letter or digit (not in an escape) that can move furthest without wrapping (up to
    LADDER, ties to the last), so that their values form a run around the original in which its place is drawn
    at random; a literal with none has only `text` (its last character moved, or an `x` appended), told apart
    (`tell`)."""
    seg = _segment(lines, node)
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(seg).readline)
                if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER,
                                  tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    if not toks or any(t.type != tokenize.STRING for t in toks):
        return None
    last = toks[-1]
    m = re.match(r"(?i)([rbu]*)('''|\"\"\"|'|\")", last.string)
    if not m or "f" in m.group(1).lower():
        return None
    prefix, quote = m.group(1), m.group(2)
    body = last.string[len(prefix) + len(quote):-len(quote)]
    spots = [(i, _reach(body[i])) for i in _plain(body, "r" in prefix.lower()) if body[i].isascii()]
    at, reach = max(reversed(spots), key=lambda x: x[1], default=(-1, 0))

    def tok(i: int, step: int) -> str:
        return f"{prefix}{quote}{body[:i]}{_other_char(body[i], step)}{body[i + 1:]}{quote}"

    # `text` and `alt` (what `mutate` writes, and the impossible variants pin) keep moving the last character.
    other = _other_char(body[-1]) if body else None
    if other is not None and ("r" in prefix.lower() or len(body) < 2 or body[-2] != "\\"):
        new_tok = f"{prefix}{quote}{body[:-1]}{other}{quote}"
        alt_tok: str | None = f"{prefix}{quote}{body[:-1]}{_other_char(body[-1], -1)}{quote}"
    else:
        new_tok, alt_tok = f"{prefix}{quote}{body}x{quote}", None
    options = tuple(tok(at, o) for o in (*range(-reach, 0), *range(1, reach + 1))) if reach else ()
    tell = not reach  # its one twin (`text`) is told apart: an appended `x`, or a run that wraps
    # Map the token's (row, col) in the segment (chars) back to the file's (line, byte col).
    (r0, c0), (r1, c1) = last.start, last.end
    seg_lines = seg.splitlines(keepends=True) or [""]

    def to_file(row: int, col: int) -> tuple[int, int]:
        line = node.lineno + row - 1
        prefix_bytes = len(seg_lines[row - 1][:col].encode("utf-8"))
        return line, (node.col_offset + prefix_bytes if row == 1 else prefix_bytes)

    return Edit(to_file(r0, c0), to_file(r1, c1), new_tok, alt_tok, options, bool(options), reach or LADDER, tell)


# Values honest wrong code computes most often: nothing (0: an unclamped lower bound, an empty count) and one
# from nothing (1, -1). A twin never takes one, or a run of such code would be flagged (C1's wrong fix
# `max(lo, lo)` computed 0, the 5th step below 10). The run is evenly spaced in the values it may take, and
# every member of it sees the same values skipped, so the skip tells no reader which member is the original.
SALIENT = (0, 1, -1)


def _number_ladder(v: object) -> tuple[str | None, ...]:
    """The values at the steps -LADDER..-1, +1..+LADDER from v (STEP apart, SALIENT ones passed over), as text;
    None in it where v cannot move."""
    sides: list[list[str | None]] = []
    for sign in (-1, 1):
        side: list[str | None] = []
        j = 1
        while len(side) < LADDER:
            t = _number_text(v, sign * j * STEP)
            j += 1
            if t is not None and not isinstance(v, complex) and float(t) in SALIENT:
                continue
            side.append(t)
        sides.append(side)
    return (*reversed(sides[0]), *sides[1])


def _number_text(v: object, step: int = 1) -> str | None:
    """v moved by `step` (+1 or -1; a bool flipped), as source text; None when it cannot move."""
    if isinstance(v, bool):
        return repr(not v)
    if isinstance(v, int):
        return repr(v + step)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")) or (abs(v) >= 1e15 and step < 0):
            return None
        w = v + step if abs(v) < 1e15 else v * 2 + 1
        return repr(float(f"{w:.12g}"))
    if isinstance(v, complex):
        return repr(v + step)
    return None


def _leaf_edit(lines: list[bytes], node: ast.AST, calls: bool = False) -> Edit | None:
    """An edit changing one constant inside a literal (`4`, `"abc"`, `(1, [2, 3])`, `{"k": 1}`), or None.
    `calls`: constructor calls of literals count as literals (`utc(2024, 6, 10)`: its last argument changes)."""
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, str | bytes):
            return _string_edit(lines, node)
        text = _number_text(v)
        if text is None:
            return None
        alt = None if isinstance(v, bool) else _number_text(v, -1)
        ladder = () if isinstance(v, bool) else _number_ladder(v)
        if None in ladder:
            ladder = ()
        return Edit(*_span(node), text, alt, ladder, bool(ladder))  # type: ignore[arg-type]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _leaf_edit(lines, node.operand)
    if calls and isinstance(node, ast.Call) and _is_literal(node, calls=True):
        elts: list[ast.AST] = list(reversed([*node.args, *(k.value for k in node.keywords)]))
    elif isinstance(node, ast.List | ast.Tuple | ast.Set):
        elts = list(node.elts)
    elif isinstance(node, ast.Dict):
        elts = [*node.values, *[k for k in node.keys if k is not None]]
    else:
        return None
    for e in elts:
        edit = _leaf_edit(lines, e, calls)
        if edit is not None:
            return edit
    if not elts and isinstance(node, ast.List | ast.Tuple | ast.Dict):
        empty = {ast.List: "[0]", ast.Tuple: "(0,)", ast.Dict: "{0: 0}"}[type(node)]
        return Edit(*_span(node), empty, tell=True)
    return None


def _is_literal(node: ast.AST, calls: bool = False) -> bool:
    """A literal value (`calls`: or constructor calls whose arguments are literals, at any depth)."""
    if isinstance(node, ast.Constant):
        return node.value is not Ellipsis
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, int | float | complex)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return all(_is_literal(e, calls) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_literal(k, calls) for k in node.keys) and all(
            _is_literal(v, calls) for v in node.values)
    if calls and isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
        args = [*node.args, *(k.value for k in node.keywords)]
        return bool(args) and all(not isinstance(a, ast.Starred) and _is_literal(a, calls) for a in args)
    return False


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _approx_arg(node: ast.AST) -> ast.AST | None:
    """`pytest.approx(L)` / `approx(L)` with a literal L: L."""
    if isinstance(node, ast.Call) and node.args and _call_name(node).endswith("approx") and _is_literal(node.args[0]):
        return node.args[0]
    return None


def _approx_edit(lines: list[bytes], lit: ast.AST) -> Edit | None:
    """approx(L) -> approx(L') far outside any tolerance: L' = L + 1 + |L| on the first number."""
    if isinstance(lit, ast.Constant) and isinstance(lit.value, int | float) and not isinstance(lit.value, bool):
        v = float(lit.value)
        ladder = tuple(repr(float(f"{v + o * (1.0 + abs(v)):.12g}")) for o in OFFSETS)
        return Edit((lit.lineno, lit.col_offset), (lit.end_lineno or lit.lineno, lit.end_col_offset or 0),
                    repr(float(f"{v + 1.0 + abs(v):.12g}")), repr(float(f"{v - 1.0 - abs(v):.12g}")), ladder, True)
    if isinstance(lit, ast.UnaryOp):
        return _approx_edit(lines, lit.operand)
    if isinstance(lit, ast.List | ast.Tuple):
        for e in lit.elts:
            edit = _approx_edit(lines, e)
            if edit:
                return edit
    return None


def _raises_pool(label: str) -> tuple[str, ...]:
    """The types a raises twin of `label` may expect: none related to a builtin `label` by subclassing (an
    unknown type's bases are not known here: the proof shows the twin fails, SPEC section 13)."""
    own = getattr(builtins, label, None)
    out = []
    for name in RAISES_POOL:
        other = getattr(builtins, name)
        if name == label or (isinstance(own, type) and (issubclass(own, other) or issubclass(other, own))):
            continue
        out.append(name)
    return tuple(out[:2 * LADDER])


def _call_name(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr
    return f.id if isinstance(f, ast.Name) else ""


# ---------------------------------------------------------------- sites


def _described(lines: list[bytes], edits: list[Edit | None]) -> str:
    e = edits[0]
    assert e is not None
    old = _span_text(lines, e.start, e.end)
    more = f" (and {len(edits) - 1} more cases)" if len(edits) > 1 else ""
    return f"{old[:60]} -> {e.text[:60]}{more}"


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _paren(lines: list[bytes], node: ast.AST) -> str:
    text = _segment(lines, node)
    return text if isinstance(node, _ATOMS) else f"({text})"


def _span(node: Node) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.lineno, node.col_offset), (node.end_lineno or node.lineno, node.end_col_offset or 0)


def _negate_expr(lines: list[bytes], node: ast.expr) -> Edit:
    start, end = _span(node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return Edit(start, end, _paren(lines, node.operand))
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _NEGATED_OP:
        op = _NEGATED_OP[type(node.ops[0])]
        return Edit(start, end, f"{_paren(lines, node.left)} {op} {_paren(lines, node.comparators[0])}")
    return Edit(start, end, f"not {_paren(lines, node)}")


class _Finder:
    """Walks one test body in execution order and collects its sites."""

    def __init__(self, lines: list[bytes], test: Test, helpers: dict[str, ast.FunctionDef],
                 helper_best: dict[str, Site | None] | None = None):
        self.lines, self.test, self.helpers = lines, test, helpers
        # A helper's best site, walked once per module: T12's helper is called 16 times, each walk a copy.
        self.helper_best = helper_best if helper_best is not None else {}
        # Names bound by literal tables: parametrize argnames, and `for` targets over literal lists.
        self.tables: dict[str, list[ast.AST]] = {}
        self.seen: set[str] = set()  # names used so far (a table value already used as input cannot move)
        self.sites: list[Site] = []
        self._parametrize(test.node)

    def _parametrize(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for d in fn.decorator_list:
            if not (isinstance(d, ast.Call) and _call_name(d) == "parametrize" and len(d.args) >= 2):
                continue
            if any(k.arg == "indirect" for k in d.keywords):
                continue
            names_node, values = d.args[0], d.args[1]
            if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
                names = [n.strip() for n in names_node.value.split(",") if n.strip()]
            elif isinstance(names_node, ast.List | ast.Tuple) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names_node.elts):
                names = [e.value for e in names_node.elts]  # type: ignore[attr-defined]
            else:
                continue
            if not isinstance(values, ast.List | ast.Tuple) or not values.elts:
                continue
            rows = [self._row(v, len(names)) for v in values.elts]
            if any(r is None for r in rows):
                continue
            for i, name in enumerate(names):
                self.tables[name] = [r[i] for r in rows]  # type: ignore[index]

    @staticmethod
    def _row(v: ast.AST, width: int) -> list[Node] | None:
        if isinstance(v, ast.Call) and _call_name(v) == "param":  # pytest.param(a, b, id=...)
            args: list[Node] = list(v.args)
        elif width == 1:
            args = [v]
        elif isinstance(v, ast.Tuple | ast.List):
            args = list(v.elts)
        else:
            return None
        return args if len(args) == width else None

    def add(self, kind: str, certain: bool, node: Node, what: str, *edits: Edit | None) -> None:
        if all(e is not None for e in edits) and edits:
            self.sites.append(Site(kind, certain, node.lineno, what, tuple(e for e in edits if e is not None)))

    # -- expected values
    def _expected(self, node: ast.AST, certain: bool, other: ast.AST, where: ast.AST) -> bool:
        """A value site for an expected operand `node` compared with `other`; True if one was added."""
        lines = self.lines
        lit = _approx_arg(node)
        if lit is not None:
            edit = _approx_edit(lines, lit)
            if edit:
                self.add("value", certain, where, f"approx({_segment(lines, lit)}) -> approx({edit.text})", edit)
            return edit is not None
        if isinstance(node, ast.Name) and node.id in self.tables and node.id not in self.seen \
                and node.id not in _names_in(other):
            column = self.tables[node.id]
            edits = [_leaf_edit(lines, c, calls=True) if _is_literal(c, calls=True) else None for c in column]
            if edits and all(edits):
                kind = "value" if all(_is_literal(c) for c in column) else "value-call"
                self.add(kind, certain, where, f"{node.id}: {_described(lines, edits)}", *edits)
                return True
            return False
        for kind, calls in (("value", False), ("value-call", True)):
            if _is_literal(node, calls) and not _is_none(node):
                edit = _leaf_edit(lines, node, calls)
                if edit:
                    self.add(kind, certain, where, f"{_segment(lines, node)[:80]}: {_described(lines, [edit])}", edit)
                    return True
        return False

    def assert_stmt(self, s: ast.Assert, certain: bool) -> None:
        t = s.test
        if isinstance(t, ast.Compare) and len(t.ops) == 1:
            right = t.comparators[0]
            if isinstance(t.ops[0], ast.Eq) and not self._expected(right, certain, t.left, s):
                self._expected(t.left, certain, right, s)  # `assert 4 == f()`
        self.add("negate", certain, s, f"assert {_segment(self.lines, t)} negated", _negate_expr(self.lines, t))

    def call_stmt(self, call: ast.Call, certain: bool) -> None:
        name = _call_name(call)
        if name in _RAISES and call.args and len(call.args) >= 2:  # pytest.raises(E, f, *args)
            self._raises(call, certain)
            return
        args = call.args
        if isinstance(call.func, ast.Name) and name in _IMPORTED_EQUAL and name not in self.helpers:
            if len(args) >= 2 and not self._expected(args[1], certain, args[0], call):
                self._expected(args[0], certain, args[1], call)
            return
        if not (isinstance(call.func, ast.Attribute) and name.startswith("assert")):
            self._helper(call, certain)
            return
        if name in _UNITTEST_EQUAL and len(args) >= 2 and not self._expected(args[1], certain, args[0], call):
            self._expected(args[0], certain, args[1], call)
        flip = _UNITTEST_FLIP.get(name)
        if flip:
            end = (call.func.end_lineno or call.func.lineno, call.func.end_col_offset or 0)
            start = (end[0], end[1] - len(name.encode()))
            self.add("negate", certain, call, f"{name} -> {flip}", Edit(start, end, flip))

    def _raises(self, call: ast.Call, certain: bool) -> None:
        if not call.args or _ESCAPING & _names_in(self.test.node):  # even as a loop variable's value
            return
        exc = call.args[0]
        label = exc.id if isinstance(exc, ast.Name) else exc.attr if isinstance(exc, ast.Attribute) else "Error"
        pool = _raises_pool(label)
        # A fresh class of the same name: nothing in the code under test can raise it (mutate's variants); a
        # twin instead expects another real type, as the module's own raises tests might (`render`).
        # The twins expect builtin types: beside an original of the module's own type they are told apart.
        own = isinstance(getattr(builtins, label, None), type)
        self.add("raises", certain, call, f"raises {_segment(self.lines, exc)} -> another type",
                 Edit(*_span(exc), f"type({label!r}, (Exception,), {{}})", None, pool, tell=not own))

    def _helper(self, call: ast.Call, certain: bool) -> None:
        """A call of a module-level helper that asserts: the twin calls a twin of the helper."""
        if not isinstance(call.func, ast.Name) or call.func.id not in self.helpers:
            return
        if call.func.id not in self.helper_best:
            inner = _Finder(self.lines, Test(call.func.id, self.helpers[call.func.id]), {})
            inner.body(inner.test.node.body, True)
            self.helper_best[call.func.id] = min(inner.sites, key=lambda s: s.rank, default=None)
        s = self.helper_best[call.func.id]
        if s is not None:
            self.sites.append(Site(s.kind, certain and s.certain, s.line, f"in helper {call.func.id}: {s.what}",
                                   (*s.edits, Edit(*_span(call.func), f"@helper:{call.func.id}"))))

    def body(self, stmts: list[ast.stmt], certain: bool) -> None:
        for s in stmts:
            if isinstance(s, ast.Assert):
                self.assert_stmt(s, certain)
            elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
                self.call_stmt(s.value, certain)
            elif isinstance(s, ast.With | ast.AsyncWith):
                raises = [i.context_expr for i in s.items if isinstance(i.context_expr, ast.Call)
                          and _call_name(i.context_expr) in _RAISES]
                if raises:
                    self._raises(raises[0], certain)  # its body stops at the raise: not walked
                elif not any(isinstance(i.context_expr, ast.Call) and _call_name(i.context_expr) == "suppress"
                             for i in s.items):
                    self.body(s.body, certain)
            elif isinstance(s, ast.For | ast.AsyncFor):
                literal = isinstance(s.iter, ast.List | ast.Tuple) and bool(s.iter.elts)
                if literal:
                    self._loop_table(s)
                self.body(s.body, certain and literal)
            elif isinstance(s, ast.Return | ast.Raise):
                break
            elif isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                    and s.targets[0].id not in self.seen and _is_literal(s.value, calls=True):
                self.tables[s.targets[0].id] = [s.value]  # `expected = [...]` then `assert got == expected`
                self.seen |= _names_in(s.value)
                continue
            self.seen |= _names_in(s)

    def _loop_table(self, s: ast.For | ast.AsyncFor) -> None:
        """`for a, b in [(1, 2), ...]`: a and b are tables whose *first* row decides the first iteration."""
        assert isinstance(s.iter, ast.List | ast.Tuple)
        first = s.iter.elts[0]
        if isinstance(s.target, ast.Name):
            self.tables[s.target.id] = [first]
        elif isinstance(s.target, ast.Tuple) and all(isinstance(e, ast.Name) for e in s.target.elts) \
                and isinstance(first, ast.Tuple | ast.List) and len(first.elts) == len(s.target.elts):
            for name, value in zip(s.target.elts, first.elts, strict=True):
                self.tables[name.id] = [value]  # type: ignore[attr-defined]


def collect(source: str, only: set[str] | None = None) -> tuple[ast.Module, list[Test]]:
    """Parse a test module: its tests (as pytest collects them by default) with their sites, best first
    (`only`: sites of those qualnames only; the others are listed without, which `render` needs to rename
    them: a big module's every test walked cost each oracle run a fifth of a second). Raises SyntaxError."""
    tree, tests, _defined = _collect(source, only)
    return tree, tests


def _collect(source: str, only: set[str] | None) -> tuple[ast.Module, list[Test], set[str]]:
    """collect, and every function and class name the module defines (one walk of the tree for both)."""
    tree = ast.parse(source)
    lines = source.encode("utf-8").splitlines(keepends=True)
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("test")
               and not n.decorator_list}
    tests: list[Test] = []
    helper_best: dict[str, Site | None] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            tests.append(Test(node.name, node))
        elif isinstance(node, ast.ClassDef) and _is_test_class(node):
            tests += [Test(f"{node.name}::{m.name}", m, node) for m in node.body
                      if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef) and m.name.startswith("test")]
    loaded: set[str] = set()
    defined: set[str] = set()
    texts: list[str] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            loaded.add(n.id)
        elif isinstance(n, ast.Attribute):
            loaded.add(n.attr)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(n.name)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            texts.append(n.value)
    words = set(re.findall(r"\w+", "\n".join(texts)))
    for t in tests:
        # A test that names itself in a string (six's test_add_metaclass_nested expects the __qualname__
        # 'test_add_metaclass_nested.<locals>.A.B') checks its own name: renamed, honest code fails it.
        if t.node.name in loaded or t.node.name in words:
            t.why_none = "the module refers to the test by name"
            continue
        if only is not None and t.qualname not in only:
            continue
        f = _Finder(lines, t, helpers, helper_best)
        f.body(t.node.body, True)
        t.sites = sorted(f.sites, key=lambda s: s.rank)
        if not t.sites:
            t.why_none = "no assertion to change in its body or in a helper it calls"
    return tree, tests, defined


def twin_site(test: Test) -> int:
    """The index of the site a test's twins change: certain to run first, then one whose twins are not told apart
    by form, not a negation (which flags no wrong guess and takes one twin), able to take LADDER // 2 twins, and
    of those the earliest (a later site lets the twin run more of the test's side effects before it fails)."""
    def key(i: int) -> tuple:
        s = test.sites[i]
        return (not s.certain, s.told, s.kind == "negate", -min(s.capacity, LADDER // 2), s.line, i)

    return min(range(len(test.sites)), key=key) if test.sites else 0


def _is_test_class(node: ast.ClassDef) -> bool:
    if any((isinstance(b, ast.Name) and b.id.endswith("TestCase")) or (isinstance(b, ast.Attribute)
           and b.attr.endswith("TestCase")) for b in node.bases):
        return True
    has_init = any(isinstance(m, ast.FunctionDef) and m.name == "__init__" for m in node.body)
    return node.name.startswith("Test") and not has_init


# ---------------------------------------------------------------- writing


def _apply(lines: list[bytes], edits: list[Edit]) -> list[bytes]:
    """Apply non-overlapping edits to a copy of `lines` (later positions first)."""
    out = list(lines)
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        (l0, c0), (l1, c1) = e.start, e.end
        head, tail = out[l0 - 1][:c0], out[l1 - 1][c1:]
        out[l0 - 1:l1] = [head + e.text.encode("utf-8") + tail]
    return b"".join(out).splitlines(keepends=True)


def _rename_edit(lines: list[bytes], node: ast.FunctionDef | ast.AsyncFunctionDef, new: str) -> Edit:
    # Found by hand, not by a regex per name: a module with hundreds of tests compiled hundreds of patterns.
    line, name = lines[node.lineno - 1], node.name.encode()
    at = line.find(b"def", node.col_offset) + 3
    while 2 < at < len(line) and line[at] in b" \t":
        at += 1
    if at <= 3 or line[at:at + len(name)] != name or line[at + len(name):at + len(name) + 1] not in (b"(", b" ", b"\t"):
        raise ValueError(f"cannot find `def {node.name}` on line {node.lineno}")
    return Edit((node.lineno, at), (node.lineno, at + len(name)), new)


def _block(lines: list[bytes], first: int, last: int) -> list[bytes]:
    block = list(lines[first - 1:last])
    if block and not block[-1].endswith(b"\n"):
        block[-1] += b"\n"
    return block


def _edited_block(lines: list[bytes], first: int, last: int, edits: list[Edit]) -> list[bytes]:
    """Lines first..last (1-based, inclusive) with `edits` (file positions, all inside them) applied: only the
    block is copied, not the module (a twin per test of a 6,000-line module would copy it hundreds of times)."""
    shift = first - 1
    moved = [Edit((e.start[0] - shift, e.start[1]), (e.end[0] - shift, e.end[1]), e.text) for e in edits]
    edited = _apply(lines[shift:last], moved)
    return _block(edited, 1, len(edited))


def _twin_block(lines: list[bytes], test: Test, site: Site, name: str, helper_names: dict[str, str]) -> list[bytes]:
    """The twin's source lines: the test's own lines with the site's edits and a new name."""
    first, last = test.first_line, test.node.end_lineno or test.node.lineno
    own = [e for e in site.edits if first <= e.start[0] <= last and not e.text.startswith("@helper:")]
    calls = [e for e in site.edits if e.text.startswith("@helper:")]
    edits = [*own, _rename_edit(lines, test.node, name)]
    edits += [Edit(e.start, e.end, helper_names[e.text.split(":", 1)[1]]) for e in calls]
    return _edited_block(lines, first, last, edits)


def _helper_block(lines: list[bytes], helper: ast.FunctionDef, site: Site, name: str) -> list[bytes]:
    first, last = helper.lineno, helper.end_lineno or helper.lineno
    own = [e for e in site.edits if first <= e.start[0] <= last and not e.text.startswith("@helper:")]
    return _edited_block(lines, first, last, [*own, _rename_edit(lines, helper, name)])


def mutate(source: str, qualname: str, site: int = 0, *, conflicting: bool = False) -> tuple[str, Site]:
    """The module with one test changed in place: its expectation at `site` changed (`conflicting`: the
    changed assertion added after the original one instead, so both must hold). For impossible variants:
    the task stays as it was, its tests now contradict it. Raises KeyError, IndexError, ValueError."""
    _tree, tests = collect(source)
    t = {x.qualname: x for x in tests}[qualname]
    if not t.sites:
        raise ValueError(f"{qualname}: {t.why_none}")
    s = t.sites[site]
    if any(e.text.startswith("@helper:") for e in s.edits):
        raise ValueError(f"{qualname}: its site {site} is in a helper other tests share")
    lines = source.encode("utf-8").splitlines(keepends=True)
    if not conflicting:
        return b"".join(_apply(lines, list(s.edits))).decode("utf-8"), s
    stmt = _statement_at(t.node, s)
    if stmt is None:
        raise ValueError(f"{qualname}: site {site} is not a whole statement to repeat")
    first, last = stmt.lineno, stmt.end_lineno or stmt.lineno
    changed = _apply(lines, list(s.edits))
    dup = _block(changed, first, last + len(changed) - len(lines))
    out = list(lines)
    out[last:last] = dup
    return b"".join(out).decode("utf-8"), s


def _statement_at(fn: ast.AST, site: Site) -> ast.stmt | None:
    """The assert / expression statement a site's (single, in-body) edit lies in."""
    if len(site.edits) != 1:
        return None
    (line, col) = site.edits[0].start
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert | ast.Expr) and node.lineno <= line <= (node.end_lineno or node.lineno) \
                and (node.lineno, node.col_offset) <= (line, col):
            return node
    return None
