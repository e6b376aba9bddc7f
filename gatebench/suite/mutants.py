"""Wrong fixes made mechanically from a real fix: the end states an agent that got it nearly right leaves.

Plain data: the parent's and the reference's text of a changed file in, candidate end states out. Each is
the reference with one change inside the lines the fix wrote:

- `revert`: one hunk of the fix put back as at the parent (the fix done in part);
- `drop`: one statement the fix wrote replaced by `pass` (a partial revert by statement);
- `negate`: the test of an `if` / `while` / `elif` / conditional expression / `assert` inverted;
- `compare`: a comparison's operator swapped for its neighbour (`<` and `<=`, `==` and `!=`, `in` and
  `not in`, `is` and `is not`): the off-by-one at a boundary and the inverted check;
- `constant`: an integer the fix wrote off by one, or a boolean flipped (a wrong constant);
- `boolop`: `and` and `or` swapped; `arith`: `+` and `-` swapped;
- `args`: a call's last argument left out; `returns`: a return value replaced by the function's first
  parameter (`self` in a method): the value handed back untransformed;
- `unwrap`: a call replaced by what it transforms (`s.lower()` -> `s`, `int(x)` -> `x`): the step forgotten;
- `strings`: a string literal the fix wrote swapped for another one it wrote (a wrong key or name);
- `twins`: a builtin or common method swapped for its twin (`min`/`max`, `any`/`all`, `lower`/`upper`,
  `startswith`/`endswith`, `lstrip`/`rstrip`, `append`/`extend`...), a raised or caught builtin exception for
  a sibling (`ValueError`/`TypeError`, `KeyError`/`IndexError`...), a `not` left out;
- `names`: a variable read in place of another (another parameter of the function, or another attribute
  the class sets on `self`, another attribute the file reads on a variable of the same name): the wrong variable.

An edit is `(start, end, new)` in characters of the reference text, so a recipe can name it without
holding any of the project's code: the new text is always an operator, a number, `not (...)`, `pass`, `""`,
a parameter's name, or `@S:E`: the reference's own text at [S:E] (a string literal moved, never copied).
Every candidate parses; one equal to the parent or the reference is left out.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

SWAP = {ast.Lt: "<=", ast.LtE: "<", ast.Gt: ">=", ast.GtE: ">", ast.Eq: "!=", ast.NotEq: "==",
        ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is"}
OPS_ORDER = ("revert", "drop", "negate", "compare", "constant", "names", "twins", "unwrap", "strings", "returns",
             "args", "boolop", "arith")
TWINS = {"min": "max", "max": "min", "any": "all", "all": "any", "lower": "upper", "upper": "lower",
         "startswith": "endswith", "endswith": "startswith", "lstrip": "rstrip", "rstrip": "lstrip",
         "append": "extend", "extend": "append", "keys": "values", "values": "keys", "floor": "ceil", "ceil": "floor",
         "ValueError": "TypeError", "TypeError": "ValueError", "KeyError": "IndexError", "IndexError": "KeyError",
         "AttributeError": "TypeError", "LookupError": "ValueError", "OverflowError": "ValueError",
         "find": "rfind", "rfind": "find", "index": "rindex", "rindex": "index", "isdigit": "isalpha",
         "isalpha": "isdigit", "split": "rsplit", "rsplit": "split", "partition": "rpartition",
         "rpartition": "partition", "sorted": "reversed", "reversed": "sorted"}


@dataclass(frozen=True)
class Mutant:
    file: str
    op: str  # one of OPS_ORDER
    what: str  # what was done, for the injection's description
    edits: tuple[tuple[int, int, str], ...] = ()  # on the reference text; empty for `revert`
    hunk: int = 0  # `revert`: which hunk (1-based)

    def apply(self, reference: str, parent: str | None = None) -> str:
        if self.op == "revert":
            return hunk_reverts(parent or "", reference)[self.hunk - 1]
        return apply_edits(reference, self.edits)


def apply_edits(text: str, edits: tuple[tuple[int, int, str], ...] | list) -> str:
    source = text
    for start, end, new in sorted(edits, key=lambda e: -e[0]):
        m = re.fullmatch(r"@(\d+):(\d+)", new)
        new = source[int(m.group(1)):int(m.group(2))] if m else new
        text = text[:start] + new + text[end:]
    return text


def hunk_reverts(old: str, new: str) -> list[str]:
    """`new` with one changed hunk put back as in `old`, for each hunk in order."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    return ["".join(b[:j1] + a[i1:i2] + b[j2:]) for _tag, i1, i2, j1, j2 in ops]


def changed_lines(old: str, new: str) -> set[int]:
    """1-based line numbers of `new` that the change from `old` wrote."""
    a, b = old.splitlines(), new.splitlines()
    out: set[int] = set()
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            out.update(range(j1 + 1, j2 + 1))
    return out


def _offsets(text: str) -> list[int]:
    starts, pos = [0], 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


def _in(node: ast.AST, lines: set[int]) -> bool:
    return getattr(node, "lineno", 0) in lines


def mutants(rel: str, parent: str | None, reference: str) -> list[Mutant]:
    """Every candidate for one file, in OPS_ORDER groups, each group in source order."""
    out: list[Mutant] = []
    if parent is not None:
        out += [Mutant(rel, "revert", f"hunk {n} of {rel} reverted", hunk=n)
                for n in range(1, len(hunk_reverts(parent, reference)) + 1)]
    try:
        tree = ast.parse(reference)
    except SyntaxError:
        return out
    lines = changed_lines(parent or "", reference)
    site = _Site.of(rel, reference, tree, lines)
    found: dict[str, list[Mutant]] = {op: [] for op in OPS_ORDER}
    for node in ast.walk(tree):
        if _in(node, lines):
            for find in FINDERS:
                for m in find(node, site):
                    found[m.op].append(m)
    for op in OPS_ORDER[1:]:
        out += sorted(found[op], key=lambda m: m.edits[0][0])
    return [m for m in out if _valid(m, parent, reference)]


Span = tuple[int, int]


@dataclass
class _Site:
    """One file's reference text and what the finders look up in it, indexed once."""

    rel: str
    text: str
    starts: list[int]  # character offset of each line's start
    first_param: dict[int, str]  # id(return node) -> the enclosing function's first parameter
    params: dict[int, list[str]]  # id(Name node) -> the enclosing function's parameters
    attrs: dict[int, list[str]]  # id(self.X node) -> attributes the enclosing class sets on self
    literals: list[ast.Constant]  # one-line string literals the fix wrote, docstrings aside
    # name -> [(attribute, span of the attribute's name)] read on a variable of that name anywhere in the file
    reads: dict[str, list[tuple[str, Span]]]

    @classmethod
    def of(cls, rel: str, text: str, tree: ast.AST, lines: set[int]) -> _Site:
        site = cls(rel, text, _offsets(text), _first_params(tree), _params(tree), _self_attrs(tree),
                   _literals(tree, lines), {})
        site.reads = _attribute_reads(tree, site)
        return site

    def pos(self, line: int, col: int) -> int:
        # ast columns are UTF-8 byte offsets
        row = self.text[self.starts[line - 1]:self.starts[line] if line < len(self.starts) else None]
        return self.starts[line - 1] + len(row.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> Span:
        return (self.pos(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.pos(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def attr_span(self, node: ast.Attribute) -> Span:
        """The attribute's name alone, the end of `x.name`."""
        e = self.span(node)[1]
        return e - len(node.attr), e

    def where(self, node: ast.AST) -> str:
        return f"line {node.lineno} of {self.rel}"  # type: ignore[attr-defined]

    def mutant(self, op: str, what: str, *edits: tuple[int, int, str]) -> Mutant:
        return Mutant(self.rel, op, what, edits)


def _functions(tree: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [fn for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _first_params(tree: ast.AST) -> dict[int, str]:
    out: dict[int, str] = {}
    for fn in _functions(tree):
        if fn.args.args:
            for sub in ast.walk(fn):
                if isinstance(sub, ast.Return):
                    out.setdefault(id(sub), fn.args.args[0].arg)
    return out


def _params(tree: ast.AST) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for fn in _functions(tree):
        names = [a.arg for a in fn.args.args if a.arg not in ("self", "cls")]
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names:
                out[id(n)] = names
    return out


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _self_attrs(tree: ast.AST) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            own = sorted({t.attr for n in ast.walk(cls) if isinstance(n, ast.Assign) for t in n.targets
                          if isinstance(t, ast.Attribute) and _is_self(t.value)})
            for n in ast.walk(cls):
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and _is_self(n.value) \
                        and n.attr in own:
                    out[id(n)] = own
    return out


def _literals(tree: ast.AST, lines: set[int]) -> list[ast.Constant]:
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and _in(n, lines)
            and id(n) not in docstrings and n.lineno == n.end_lineno]


def _attribute_reads(tree: ast.AST, site: _Site) -> dict[str, list[tuple[str, Span]]]:
    out: dict[str, list[tuple[str, Span]]] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and isinstance(n.ctx, ast.Load) \
                and n.value.id != "self":
            out.setdefault(n.value.id, []).append((n.attr, site.attr_span(n)))
    return out


# Each finder yields the candidates one node of the fix offers. FINDERS keeps the order in which they were
# first written: within an operator's group, candidates at the same offset stay in that order.

def _other_attribute(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load):
        alt = next(((a, sp) for a, sp in site.reads.get(node.value.id, []) if a != node.attr), None)
        if alt is not None:
            s, e = site.attr_span(node)
            yield site.mutant("names", f"`{node.value.id}.{alt[0]}` read in place of `{node.value.id}.{node.attr}` "
                              f"at {site.where(node)}", (s, e, f"@{alt[1][0]}:{alt[1][1]}"))


def _twin(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    twin = None
    if isinstance(node, ast.Name) and node.id in TWINS and isinstance(node.ctx, ast.Load):
        twin = (site.span(node), node.id)
    elif isinstance(node, ast.Attribute) and node.attr in TWINS and isinstance(node.ctx, ast.Load):
        twin = (site.attr_span(node), node.attr)
    if twin is not None:
        (s, e), name = twin
        yield site.mutant("twins", f"`{TWINS[name]}` in place of `{name}` at {site.where(node)}", (s, e, TWINS[name]))


def _not_left_out(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        s, _e = site.span(node)
        yield site.mutant("twins", f"the `not` at {site.where(node)} left out", (s, site.span(node.operand)[0], ""))


def _other_string(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if node in site.literals:
        other = next((o for o in site.literals if o.value != node.value), None)
        if other is not None:
            s, e = site.span(node)
            os_, oe = site.span(other)
            yield site.mutant("strings", f"the string at {site.where(node)} swapped for the one at line {other.lineno}",
                              (s, e, f"@{os_}:{oe}"))


KEPT_STATEMENTS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass, ast.Import, ast.ImportFrom)


def _drop(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    if isinstance(node, ast.stmt) and not isinstance(node, KEPT_STATEMENTS) and not docstring:
        s, e = site.span(node)
        yield site.mutant("drop", f"the statement at {site.where(node)} left out", (s, e, "pass"))


def _negate(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        s, e = site.span(node.test)
        yield site.mutant("negate", f"the condition at {site.where(node)} inverted", (s, s, "not ("), (e, e, ")"))


def _compare(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if isinstance(node, ast.Compare) and type(node.ops[0]) in SWAP:
        s, e = site.span(node.left)[1], site.span(node.comparators[0])[0]
        new = SWAP[type(node.ops[0])]
        yield site.mutant("compare", f"the comparison at {site.where(node)} changed to `{new}`", (s, e, f" {new} "))


def _constant(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        s, e = site.span(node)
        yield site.mutant("constant", f"the constant {node.value} at {site.where(node)} off by one",
                          (s, e, str(node.value + 1)))
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        s, e = site.span(node)
        yield site.mutant("constant", f"{node.value} at {site.where(node)} flipped", (s, e, str(not node.value)))


def _other_param(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    others = [x for x in site.params.get(id(node), []) if x != getattr(node, "id", None)]
    if isinstance(node, ast.Name) and others:
        s, e = site.span(node)
        yield site.mutant("names", f"`{others[0]}` read in place of `{node.id}` at {site.where(node)}", (s, e, others[0]))


def _other_self_attr(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    others = [x for x in site.attrs.get(id(node), []) if x != getattr(node, "attr", None)]
    if isinstance(node, ast.Attribute) and others:
        s, e = site.span(node)
        yield site.mutant("names", f"`self.{others[0]}` read in place of `self.{node.attr}` at {site.where(node)}",
                          (s, e, f"self.{others[0]}"))


def _return_first_param(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if isinstance(node, ast.Return) and node.value is not None and id(node) in site.first_param:
        name = site.first_param[id(node)]
        if not (isinstance(node.value, ast.Name) and node.value.id == name):
            s, e = site.span(node.value)
            yield site.mutant("returns", f"`{name}` returned at {site.where(node)}", (s, e, name))


def _unwrap(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if not isinstance(node, ast.Call) or node.keywords:
        return
    inner = None
    if isinstance(node.func, ast.Attribute) and not node.args:
        inner = node.func.value
    elif isinstance(node.func, ast.Name) and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
        inner = node.args[0]
    if inner is not None:
        s, e = site.span(node)
        i0, i1 = site.span(inner)
        yield site.mutant("unwrap", f"the call at {site.where(node)} left out", (s, i0, ""), (i1, e, ""))


def _last_arg(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if isinstance(node, ast.Call) and node.args and not node.keywords and not isinstance(node.args[-1], ast.Starred):
        s = site.span(node.args[-2])[1] if len(node.args) > 1 else site.span(node.args[0])[0]
        e = site.span(node.args[-1])[1]
        yield site.mutant("args", f"the last argument of the call at {site.where(node)} left out", (s, e, ""))


def _boolop(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if isinstance(node, ast.BoolOp) and len(node.values) >= 2:
        s, e = site.span(node.values[0])[1], site.span(node.values[1])[0]
        new = "or" if isinstance(node.op, ast.And) else "and"
        yield site.mutant("boolop", f"`{new}` in place of the other at {site.where(node)}", (s, e, f" {new} "))


def _arith(node: ast.AST, site: _Site) -> Iterator[Mutant]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        s, e = site.span(node.left)[1], site.span(node.right)[0]
        new = "-" if isinstance(node.op, ast.Add) else "+"
        yield site.mutant("arith", f"`{new}` in place of the other at {site.where(node)}", (s, e, f" {new} "))


FINDERS: tuple[Callable[[ast.AST, _Site], Iterator[Mutant]], ...] = (
    _other_attribute, _twin, _not_left_out, _other_string, _drop, _negate, _compare, _constant, _other_param,
    _other_self_attr, _return_first_param, _unwrap, _last_arg, _boolop, _arith)


def _valid(m: Mutant, parent: str | None, reference: str) -> bool:
    try:
        text = m.apply(reference, parent)
    except (IndexError, ValueError):
        return False
    if text in (reference, parent):
        return False
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


def round_robin(per_file: list[list[Mutant]]) -> list[Mutant]:
    """Candidates interleaved by operator, then by file: the first tries cover every kind of mistake."""
    by_op: dict[str, list[Mutant]] = {op: [] for op in OPS_ORDER}
    for i in range(max((len(f) for f in per_file), default=0)):
        for f in per_file:
            if i < len(f):  # an op outside the order (`omit`: an added module left out) comes after it
                by_op.setdefault(f[i].op, []).append(f[i])
    queues = [q for q in by_op.values() if q]
    out = []
    while queues:
        for q in list(queues):
            out.append(q.pop(0))
            if not q:
                queues.remove(q)
    return out


# --- which candidates are worth trying ---------------------------------------------------------------

NEGATED = {ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Eq: ast.NotEq,
           ast.NotEq: ast.Eq}
VERSION_NAME = re.compile(r"(?i)^_*version(_info)?_*$")


class _Normal(ast.NodeTransformer):
    """One spelling for code that means the same: `not (a is b)` is `a is not b`, `not not x` is `x`, and a
    version assignment is left out (with `drop_versions`)."""

    def __init__(self, drop_versions: bool):
        self.drop_versions = drop_versions

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if not isinstance(node.op, ast.Not):
            return node
        x = node.operand
        if isinstance(x, ast.UnaryOp) and isinstance(x.op, ast.Not):
            return x.operand
        if isinstance(x, ast.Compare) and len(x.ops) == 1 and type(x.ops[0]) in NEGATED:
            return ast.Compare(left=x.left, ops=[NEGATED[type(x.ops[0])]()], comparators=x.comparators)
        return node

    def visit_Pass(self, node: ast.Pass) -> ast.AST | None:
        return None if self.drop_versions else node  # a version line dropped leaves a `pass`

    def visit_Assign(self, node: ast.Assign) -> ast.AST | None:
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if self.drop_versions and names and all(VERSION_NAME.match(n) for n in names):
            return None
        return self.generic_visit(node)


def fingerprint(text: str, drop_versions: bool = False) -> str | None:
    """What the code means, spelling aside (docstrings and comments are not in it either); None if it does not
    parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    return ast.dump(_Normal(drop_versions).visit(tree), annotate_fields=False)


def worth_trying(cands: list[Mutant], parent: str | None, reference: str) -> list[Mutant]:
    """The candidates of one file that change what the reference means, one of each meaning: a mutant that only
    respells the reference or the parent (`not (a is b)` for `a is not b`), repeats an earlier candidate, or
    changes nothing but a version number (or is the parent but for one) is left out."""
    ref_fp = fingerprint(reference)
    seen = {ref_fp, fingerprint(parent)} if parent is not None else {ref_fp}
    no_version = {fingerprint(reference, drop_versions=True), fingerprint(parent or "", drop_versions=True)}
    out = []
    for m in cands:
        text = m.apply(reference, parent)
        fp = fingerprint(text)
        if fp is None or fp in seen or fingerprint(text, drop_versions=True) in no_version:
            continue
        seen.add(fp)
        out.append(m)
    return out
