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
    starts = _offsets(reference)

    def pos(line: int, col: int) -> int:
        # ast columns are UTF-8 byte offsets
        row = reference[starts[line - 1]:starts[line] if line < len(starts) else None]
        return starts[line - 1] + len(row.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    def span(node: ast.AST) -> tuple[int, int]:
        return pos(node.lineno, node.col_offset), pos(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    found: dict[str, list[Mutant]] = {op: [] for op in OPS_ORDER}
    first_param: dict[int, str] = {}  # id(return node) -> the enclosing function's first parameter
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args:
            for sub in ast.walk(fn):
                if isinstance(sub, ast.Return):
                    first_param.setdefault(id(sub), fn.args.args[0].arg)
    params: dict[int, list[str]] = {}  # id(Name node) -> the enclosing function's parameters
    attrs: dict[int, list[str]] = {}  # id(self.X node) -> attributes the enclosing class sets on self
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            own = sorted({t.attr for n in ast.walk(cls) if isinstance(n, ast.Assign) for t in n.targets
                          if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"})
            for n in ast.walk(cls):
                if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) \
                        and n.value.id == "self" and n.attr in own:
                    attrs[id(n)] = own
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [a.arg for a in fn.args.args if a.arg not in ("self", "cls")]
            for n in ast.walk(fn):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names:
                    params[id(n)] = names
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    literals = [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and _in(n, lines)
                and id(n) not in docstrings and n.lineno == n.end_lineno]
    # name -> [(attribute, span of the attribute's name)] read on a variable of that name anywhere in the file
    reads: dict[str, list[tuple[str, tuple[int, int]]]] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and isinstance(n.ctx, ast.Load) \
                and n.value.id != "self":
            e = span(n)[1]
            reads.setdefault(n.value.id, []).append((n.attr, (e - len(n.attr), e)))
    for node in ast.walk(tree):
        if not _in(node, lines):
            continue
        where = f"line {node.lineno} of {rel}"  # type: ignore[attr-defined]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load):
            alt = next(((a, sp) for a, sp in reads.get(node.value.id, []) if a != node.attr), None)
            if alt is not None:
                e = span(node)[1]
                found["names"].append(Mutant(rel, "names", f"`{node.value.id}.{alt[0]}` read in place of "
                                             f"`{node.value.id}.{node.attr}` at {where}",
                                             ((e - len(node.attr), e, f"@{alt[1][0]}:{alt[1][1]}"),)))
        twin = None
        if isinstance(node, ast.Name) and node.id in TWINS and isinstance(node.ctx, ast.Load):
            twin = (span(node), node.id)
        elif isinstance(node, ast.Attribute) and node.attr in TWINS and isinstance(node.ctx, ast.Load):
            e = span(node)[1]
            twin = ((e - len(node.attr), e), node.attr)
        if twin is not None:
            (s, e), name = twin
            found["twins"].append(Mutant(rel, "twins", f"`{TWINS[name]}` in place of `{name}` at {where}",
                                         ((s, e, TWINS[name]),)))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            s, e = span(node)
            found["twins"].append(Mutant(rel, "twins", f"the `not` at {where} left out",
                                         ((s, span(node.operand)[0], ""),)))
        if node in literals:
            other = next((o for o in literals if o.value != node.value), None)
            if other is not None:
                s, e = span(node)
                os_, oe = span(other)
                found["strings"].append(Mutant(rel, "strings", f"the string at {where} swapped for the one at line "
                                               f"{other.lineno}", ((s, e, f"@{os_}:{oe}"),)))
        kept_stmt = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass, ast.Import, ast.ImportFrom)
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if isinstance(node, ast.stmt) and not isinstance(node, kept_stmt) and not docstring:
            s, e = span(node)
            found["drop"].append(Mutant(rel, "drop", f"the statement at {where} left out", ((s, e, "pass"),)))
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            s, e = span(node.test)
            found["negate"].append(Mutant(rel, "negate", f"the condition at {where} inverted",
                                          ((s, s, "not ("), (e, e, ")"))))
        if isinstance(node, ast.Compare) and type(node.ops[0]) in SWAP:
            s, e = span(node.left)[1], span(node.comparators[0])[0]
            new = SWAP[type(node.ops[0])]
            found["compare"].append(Mutant(rel, "compare", f"the comparison at {where} changed to `{new}`",
                                           ((s, e, f" {new} "),)))
        if isinstance(node, ast.Constant) and type(node.value) is int:
            s, e = span(node)
            found["constant"].append(Mutant(rel, "constant", f"the constant {node.value} at {where} off by one",
                                            ((s, e, str(node.value + 1)),)))
        if isinstance(node, ast.Constant) and type(node.value) is bool:
            s, e = span(node)
            found["constant"].append(Mutant(rel, "constant", f"{node.value} at {where} flipped",
                                            ((s, e, str(not node.value)),)))
        others = [x for x in params.get(id(node), []) if x != getattr(node, "id", None)]
        if isinstance(node, ast.Name) and others:
            s, e = span(node)
            found["names"].append(Mutant(rel, "names", f"`{others[0]}` read in place of `{node.id}` at {where}",
                                         ((s, e, others[0]),)))
        others = [x for x in attrs.get(id(node), []) if x != getattr(node, "attr", None)]
        if isinstance(node, ast.Attribute) and others:
            s, e = span(node)
            found["names"].append(Mutant(rel, "names", f"`self.{others[0]}` read in place of `self.{node.attr}` "
                                         f"at {where}", ((s, e, f"self.{others[0]}"),)))
        if isinstance(node, ast.Return) and node.value is not None and id(node) in first_param:
            name = first_param[id(node)]
            if not (isinstance(node.value, ast.Name) and node.value.id == name):
                s, e = span(node.value)
                found["returns"].append(Mutant(rel, "returns", f"`{name}` returned at {where}", ((s, e, name),)))
        if isinstance(node, ast.Call) and not node.keywords:
            inner = None
            if isinstance(node.func, ast.Attribute) and not node.args:
                inner = node.func.value
            elif isinstance(node.func, ast.Name) and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
                inner = node.args[0]
            if inner is not None:
                s, e = span(node)
                i0, i1 = span(inner)
                found["unwrap"].append(Mutant(rel, "unwrap", f"the call at {where} left out",
                                              ((s, i0, ""), (i1, e, ""))))
        if isinstance(node, ast.Call) and node.args and not node.keywords and not isinstance(node.args[-1], ast.Starred):
            s = span(node.args[-2])[1] if len(node.args) > 1 else span(node.args[0])[0]
            e = span(node.args[-1])[1]
            found["args"].append(Mutant(rel, "args", f"the last argument of the call at {where} left out",
                                        ((s, e, ""),)))
        if isinstance(node, ast.BoolOp) and len(node.values) >= 2:
            s, e = span(node.values[0])[1], span(node.values[1])[0]
            new = "or" if isinstance(node.op, ast.And) else "and"
            found["boolop"].append(Mutant(rel, "boolop", f"`{new}` in place of the other at {where}",
                                          ((s, e, f" {new} "),)))
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            s, e = span(node.left)[1], span(node.right)[0]
            new = "-" if isinstance(node.op, ast.Add) else "+"
            found["arith"].append(Mutant(rel, "arith", f"`{new}` in place of the other at {where}",
                                         ((s, e, f" {new} "),)))
    for op in OPS_ORDER[1:]:
        out += sorted(found[op], key=lambda m: m.edits[0][0])
    return [m for m in out if _valid(m, parent, reference)]


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
            if i < len(f):
                by_op[f[i].op].append(f[i])
    queues = [q for q in by_op.values() if q]
    out = []
    while queues:
        for q in list(queues):
            out.append(q.pop(0))
            if not q:
                queues.remove(q)
    return out
