"""What a Python test checks, independent of where it sits (stdlib `ast`; it runs at every stop).

A test is reduced to *checks*: each assertion normalised to one canonical expression, with the
test's parametrize cases and literal `for`/`subTest` tables expanded case by case and its local
names replaced by what they were assigned. `assert v.major == 1` after `v = Version.parse(s)`
with the case `s = "1.2.3"` is the check `Version.parse('1.2.3').major == 1`, whether it was
written as a plain test, a parametrize case, a `subTest` row or `self.assertEqual(1, v.major)`.
Beside the checks, a test keeps its *setup* (other statements, normalised the same way) and its
*markers* (skip/xfail marks and calls, `expectedFailure`, `return`): a check under a marker does
not run. The matcher (`testident.py`) compares these across files, so renaming, moving,
splitting, merging or tabulating tests changes nothing, and only a lost or loosened check counts.
"""

from __future__ import annotations

import ast
import copy
import itertools

SKIP_WORDS = ("skip", "xfail", "expectedFailure")
SKIP_CALLS = {"skip", "xfail", "skipTest", "importorskip", "fail_if_not"}
RAISES = {"raises", "warns", "deprecated_call", "assertRaises", "assertRaisesRegex", "assertWarns",
          "assertWarnsRegex", "assertLogs", "assertNoLogs"}
TRANSPARENT_WITH = {"subTest"}
MAX_CASES = 2000  # a larger expansion is kept as written (one check per assertion)
FLIP = {ast.Gt: ast.Lt, ast.GtE: ast.LtE}
SYMMETRIC = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
# unittest assertion -> (comparison op or None for a truth test, negate, arity)
UNITTEST: dict[str, tuple[type | None, bool, int]] = {
    "assertEqual": (ast.Eq, False, 2), "assertEquals": (ast.Eq, False, 2),
    "assertNotEqual": (ast.NotEq, False, 2), "assertIs": (ast.Is, False, 2), "assertIsNot": (ast.IsNot, False, 2),
    "assertIn": (ast.In, False, 2), "assertNotIn": (ast.NotIn, False, 2), "assertLess": (ast.Lt, False, 2),
    "assertLessEqual": (ast.LtE, False, 2), "assertGreater": (ast.Gt, False, 2),
    "assertGreaterEqual": (ast.GtE, False, 2), "assertTrue": (None, False, 1), "assertFalse": (None, True, 1),
    "assertDictEqual": (ast.Eq, False, 2), "assertListEqual": (ast.Eq, False, 2),
    "assertTupleEqual": (ast.Eq, False, 2), "assertSetEqual": (ast.Eq, False, 2),
    "assertSequenceEqual": (ast.Eq, False, 2), "assertMultiLineEqual": (ast.Eq, False, 2),
}
NONE_TESTS = {"assertIsNone": ast.Is, "assertIsNotNone": ast.IsNot}


def call_name(node: ast.AST) -> str:
    fn = node.func if isinstance(node, ast.Call) else node
    return fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""


def text(node: ast.AST) -> str:
    try:
        return " ".join(ast.unparse(node).split())
    except Exception:  # unparse of an odd node must not cost the analysis
        return type(node).__name__


class _Subst(ast.NodeTransformer):
    def __init__(self, env: dict):
        self.env = env

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(getattr(node, "ctx", None), ast.Load) and node.id in self.env:
            return copy.deepcopy(self.env[node.id])
        return node


class _Mask(ast.NodeTransformer):
    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        return ast.Constant(value="<const>")


def subst(node: ast.AST, env: dict) -> ast.AST:
    node = copy.deepcopy(node)
    return _Subst(env).visit(node) if env else node


def canonical(expr: ast.expr) -> ast.expr:
    """One form per meaning: `5 == f()` is `f() == 5`, `a > b` is `b < a`."""
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        left, op, right = expr.left, expr.ops[0], expr.comparators[0]
        if type(op) in FLIP:
            left, op, right = right, FLIP[type(op)](), left
        if isinstance(op, SYMMETRIC) and ast.dump(right) < ast.dump(left):
            left, right = right, left
        return ast.Compare(left=left, ops=[op], comparators=[right])
    return expr


def assertion(node: ast.AST) -> ast.expr | None:
    """The canonical expression an assertion statement checks, or None if it is not one."""
    if isinstance(node, ast.Assert):
        return canonical(node.test)
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return None
    call = node.value
    name = call_name(call)
    args = list(call.args)
    if name in UNITTEST:
        op, negate, arity = UNITTEST[name]
        if len(args) < arity:
            return None
        if op is None:
            return ast.UnaryOp(op=ast.Not(), operand=args[0]) if negate else args[0]
        return canonical(ast.Compare(left=args[0], ops=[op()], comparators=[args[1]]))
    if name in NONE_TESTS and args:
        return canonical(ast.Compare(left=args[0], ops=[NONE_TESTS[name]()], comparators=[ast.Constant(None)]))
    if name.startswith(("assert", "fail")) or name in RAISES:
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args,
                        keywords=[k for k in call.keywords if k.arg not in ("msg",)])
    return None


def _is_marker_expr(node: ast.AST) -> bool:
    return any(w in text(node) for w in SKIP_WORDS)


def body_markers(stmts: list) -> list[str]:
    """Skip calls, raises of skip exceptions and `return`s in a test body (not in nested defs)."""
    out = []
    for st in stmts:
        for sub in _walk_no_defs(st):
            if isinstance(sub, ast.Return):
                out.append("return")
            elif (isinstance(sub, ast.Call) and call_name(sub) in SKIP_CALLS) or (
                    isinstance(sub, ast.Raise) and "skip" in text(sub).lower()):
                out.append(text(sub))
    return out


def _walk_no_defs(node: ast.AST):
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                todo.append(child)


def _literal_items(node: ast.AST, consts: dict) -> list | None:
    if isinstance(node, ast.Name) and node.id in consts:
        node = consts[node.id]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return list(node.elts)
    return None


def _names(target: ast.AST) -> list[str] | None:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
        return [e.id for e in target.elts]  # type: ignore[attr-defined]
    return None


def _bind(names: list[str], value: ast.AST) -> dict | None:
    if len(names) == 1:
        return {names[0]: value}
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(names):
        return dict(zip(names, value.elts, strict=True))
    return None


def parametrize_cases(decorators: list, consts: dict) -> tuple[list[tuple[str, dict, list[str]]], list]:
    """(cases, other decorators). A case is (label, name -> value, its own marks); stacked
    parametrize decorators multiply, as in pytest."""
    tables: list[list[tuple[str, dict, list[str]]]] = []
    rest: list = []
    for d in decorators:
        if isinstance(d, ast.Call) and call_name(d) == "parametrize" and len(d.args) >= 2:
            names_node, values = d.args[0], _literal_items(d.args[1], consts)
            names: list[str] | None = None
            if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
                names = [n.strip() for n in names_node.value.split(",") if n.strip()]
            elif isinstance(names_node, (ast.List, ast.Tuple)):
                names = [str(e.value) for e in names_node.elts if isinstance(e, ast.Constant)]
            if names is None or values is None:
                rest.append(d)
                continue
            rows: list[tuple[str, dict, list[str]]] | None = []
            for v in values:
                marks: list[str] = []
                shown = v
                if isinstance(v, ast.Call) and call_name(v) == "param":
                    marks = [text(k.value) for k in v.keywords if k.arg == "marks" and _is_marker_expr(k.value)]
                    v = ast.Tuple(elts=list(v.args)) if len(v.args) != 1 else v.args[0]
                bound = _bind(names, v)
                if bound is None:
                    rest.append(d)
                    rows = None
                    break
                rows.append((text(shown), bound, marks))  # type: ignore[union-attr]
            if rows is not None:
                tables.append(rows)
        else:
            rest.append(d)
    cases: list[tuple[str, dict, list[str]]] = [("", {}, [])]
    for rows in tables:
        cases = [(" ".join(filter(None, (a[0], b[0]))), {**a[1], **b[1]}, a[2] + b[2])
                 for a, b in itertools.product(cases, rows)]
        if len(cases) > MAX_CASES:
            return [("", {}, [])], decorators
    return cases, rest


class Test:
    """One test: its checks, setup and markers, ready for matching."""

    __slots__ = ("checks", "markers", "setup", "source")

    def __init__(self, source: str):
        self.source = source
        self.checks: list[tuple[str, str, str, str, str]] = []  # (key, shape, text, case, bare)
        self.setup: list[tuple[str, str]] = []  # (key, text)
        self.markers: list[str] = []


def _once_assigned(fn: ast.AST) -> set[str]:
    counts: dict[str, int] = {}
    for sub in _walk_no_defs(fn):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            counts[sub.id] = counts.get(sub.id, 0) + 1
    return {n for n, c in counts.items() if c == 1}


def test_of(fn: ast.FunctionDef | ast.AsyncFunctionDef, source: str, consts: dict, inherited: list[str]) -> Test:
    t = Test(source)
    cases, decorators = parametrize_cases(fn.decorator_list, consts)
    t.markers = [*inherited, *(text(d) for d in decorators if _is_marker_expr(d)), *body_markers(fn.body)]
    single = _once_assigned(fn)
    seen: set[str] = set()
    for d in decorators:
        if not _is_marker_expr(d):
            t.setup.append(("@" + ast.dump(d), "@" + text(d)))
    for label, env, marks in cases:
        walker = _Walker(t, single, consts, label, marks, seen)
        walker.walk(fn.body, dict(env), ())
    return t


class _Walker:
    def __init__(self, test: Test, single: set[str], consts: dict, case: str, marks: list[str], seen: set[str]):
        self.t, self.single, self.consts, self.case, self.marks, self.seen = test, single, consts, case, marks, seen

    def check(self, expr: ast.AST, guards: tuple, env: dict, stmt_text: str) -> None:
        node = subst(expr, env)
        key = repr((guards, ast.dump(node), self.marks))
        if key in self.seen:
            return
        self.seen.add(key)
        shape = repr((guards, ast.dump(_Mask().visit(copy.deepcopy(node)))))
        shown = ("assert " + text(node)) if stmt_text.startswith("assert") else text(node)
        self.t.checks.append((key, shape, shown, self.case, ast.dump(node)))

    def setup(self, node: ast.AST, guards: tuple, env: dict) -> None:
        node = subst(node, env)
        key = repr((guards, ast.dump(node)))
        if key not in self.seen:
            self.seen.add(key)
            self.t.setup.append((key, text(node)))

    def walk(self, stmts: list, env: dict, guards: tuple) -> None:
        for st in stmts:
            self.statement(st, env, guards)

    def statement(self, st: ast.stmt, env: dict, guards: tuple) -> None:
        expr = assertion(st)
        if expr is not None:
            self.check(expr, guards, env, "assert" if isinstance(st, ast.Assert) else "call")
        elif _inert(st):
            pass
        elif isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            self.assign(st, st.targets[0].id, env, guards)
        elif isinstance(st, ast.For) and not st.orelse and self.unrolled(st, env, guards):
            pass
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            self.with_block(st, env, guards)
        elif not self.compound(st, env, guards):
            self.setup(st.value if isinstance(st, ast.Expr) else st, guards, env)

    def assign(self, st: ast.Assign, name: str, env: dict, guards: tuple) -> None:
        value = subst(st.value, env)
        if name in self.single and not guards:
            env[name] = value  # it lives on in the checks that use it
        else:
            self.setup(st.value, guards, env)

    def unrolled(self, st: ast.For, env: dict, guards: tuple) -> bool:
        """Walk a `for` over a literal table once per row; False when it is not one (then it is walked as
        written, after the rows already walked when a row does not unpack)."""
        names, items = _names(st.target), _literal_items(subst(st.iter, env), self.consts)  # a local table too
        if names is None or items is None or len(items) > MAX_CASES:
            return False
        for item in items:
            bound = _bind(names, subst(item, env))
            if bound is None:
                return False
            outer = self.case
            self.case = " ".join(filter(None, (outer, text(item))))
            self.walk(st.body, {**env, **bound}, guards)
            self.case = outer
        return True

    def with_block(self, st: ast.With | ast.AsyncWith, env: dict, guards: tuple) -> None:
        inner, consumed = guards, set()
        for item in st.items:
            name = call_name(item.context_expr) if isinstance(item.context_expr, ast.Call) else ""
            if name in TRANSPARENT_WITH:
                continue
            ctx_text = ast.dump(subst(item.context_expr, env))
            if name in RAISES:
                consumed |= self.raised(item.context_expr, st.body, env, inner)
            inner = (*inner, "with " + ctx_text)
        self.walk([sub for sub in st.body if id(sub) not in consumed], env, inner)

    def raised(self, ctx_call: ast.expr, body: list, env: dict, guards: tuple) -> set[int]:
        """What must raise under a `raises` block is itself checked; returns the statements so consumed."""
        assert isinstance(ctx_call, ast.Call)
        consumed = set()
        for sub in body:
            if not isinstance(sub, ast.Expr) or assertion(sub) is not None:
                continue
            raised = ast.Call(func=ast.Name(id="raises", ctx=ast.Load()), args=list(ctx_call.args),
                              keywords=[k for k in ctx_call.keywords if k.arg != "msg"])
            self.check(ast.Tuple(elts=[raised, sub.value]), guards, env, "call")
            consumed.add(id(sub))
        return consumed

    def compound(self, st: ast.stmt, env: dict, guards: tuple) -> bool:
        """Walk each body of a compound statement under its header; False for a simple statement."""
        bodies = [f for f in ("body", "orelse", "finalbody", "handlers", "cases") if getattr(st, f, None)]
        if not bodies:
            return False
        head = copy.copy(st)
        for f in bodies:
            setattr(head, f, [])
        head_dump = ast.dump(subst(head, env))
        for f in bodies:
            for kid in getattr(st, f):
                if isinstance(kid, (ast.ExceptHandler, ast.match_case)):
                    h = copy.copy(kid)
                    h.body = []
                    self.walk(kid.body, env, (*guards, f"{head_dump}|{f}|{ast.dump(h)}"))
                else:
                    self.statement(kid, env, (*guards, f"{head_dump}|{f}"))
        return True


def _inert(st: ast.stmt) -> bool:
    """Statements that neither check nor set up: imports, `pass`, nested definitions, `return`, docstrings."""
    if isinstance(st, (ast.Import, ast.ImportFrom, ast.Pass, ast.FunctionDef, ast.AsyncFunctionDef,
                       ast.ClassDef, ast.Return)):
        return True
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)


def is_def(node: ast.AST) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))


def is_test_class(node: ast.AST) -> bool:
    if not isinstance(node, ast.ClassDef):
        return False
    return node.name.startswith("Test") or any("TestCase" in text(b) for b in node.bases)


def _pytestmark(stmts: list) -> list[str]:
    out = []
    for node in stmts:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                for t in node.targets) and _is_marker_expr(node.value):
            out.append("pytestmark = " + text(node.value))
    return out


def module_consts(tree: ast.Module) -> dict:
    """Module-level names bound once to a literal table (what `for`/parametrize may iterate)."""
    counts: dict[str, int] = {}
    values: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            counts[name] = counts.get(name, 0) + 1
            values[name] = node.value
    return {n: v for n, v in values.items() if counts[n] == 1 and isinstance(v, (ast.List, ast.Tuple, ast.Set))}


def tests_of(tree: ast.Module, lines: list[str]) -> dict[str, Test]:
    """test id (`name` or `Class::name`) -> Test; a later definition of a name wins, as in Python."""
    consts = module_consts(tree)
    file_marks = _pytestmark(tree.body)
    out: dict[str, Test] = {}

    def source(node) -> str:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        return "\n".join(lines[start - 1:node.end_lineno])

    for node in tree.body:
        if is_def(node) and node.name.startswith("test"):  # type: ignore[attr-defined]
            out[node.name] = test_of(node, source(node), consts, file_marks)  # type: ignore[attr-defined,arg-type]
        elif is_test_class(node):
            assert isinstance(node, ast.ClassDef)
            cls_marks = [*file_marks, *(text(d) for d in node.decorator_list if _is_marker_expr(d)),
                         *_pytestmark(node.body)]
            for sub in node.body:
                if is_def(sub) and sub.name.startswith("test"):  # type: ignore[attr-defined]
                    out[f"{node.name}::{sub.name}"] = test_of(sub, source(sub), consts, cls_marks)  # type: ignore[attr-defined,arg-type]
    return out
