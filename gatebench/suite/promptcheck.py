"""Does the prompt state what the hidden tests pin? (plain data: test sources and texts in, gaps out)

A hidden test that expects a particular exception type or message checks a detail the agent can only
guess unless the prompt, or a visible test it can read, states it. Read from each hidden test function
the fail-to-pass set names: `pytest.raises(T, match=M)`, `assertRaises(T)`, `assertRaisesRegex(T, M)`,
`str(...) == "message"` and `"message" in str(...)` (a looked-for message may be a parametrized argument:
its `@pytest.mark.parametrize` values). A type counts as stated when its name is in the
prompt or a visible test file; a message when its words are (case and spacing folded; regex escapes
and anchors dropped). Each detail that is not is a gap, named `test id: what`.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys

from gatebench.testguard.pychecks import parametrize_cases


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _types(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Tuple):
        return [n for e in node.elts if (n := _name(e))]
    n = _name(node)
    return [n] if n else []


def _literal(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _is_str_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _name(node.func) in ("str", "repr", "format")


def _parametrized(func: ast.AST) -> dict[str, list[str]]:
    """Argument name -> the string literals its `@pytest.mark.parametrize` cases give it."""
    out: dict[str, list[str]] = {}
    for _label, bound, _marks in parametrize_cases(getattr(func, "decorator_list", []), {})[0]:
        for name, node in bound.items():
            if (lit := _literal(node)) is not None:
                out.setdefault(name, []).append(lit)
    return out


def pinned(func: ast.AST) -> list[tuple[str, str]]:
    """[(kind 'type'|'message', value)] a test function pins. A message looked for (`M in str(e)`, `match=M`)
    may come through a parametrized argument (`@pytest.mark.parametrize("M", [...])`): each value is pinned. An
    equality over a parametrized value is left out: `str(v) == expected` is more often output than a message."""
    out: list[tuple[str, str]] = []
    params = _parametrized(func)

    def messages(node: ast.AST | None) -> list[str]:
        if (m := _literal(node)) is not None:
            return [m]
        return params.get(node.id, []) if isinstance(node, ast.Name) else []

    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            fn = _name(node.func)
            if fn == "raises" and node.args:
                out += [("type", t) for t in _types(node.args[0])]
                for kw in node.keywords:
                    if kw.arg == "match":
                        out += [("message", m) for m in messages(kw.value)]
            elif fn in ("assertRaises", "assertRaisesRegex", "assertRaisesRegexp") and node.args:
                out += [("type", t) for t in _types(node.args[0])]
                if fn != "assertRaises" and len(node.args) > 1 and (m := _literal(node.args[1])):
                    out.append(("message", m))
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = node.left, node.comparators[0]
            if isinstance(node.ops[0], ast.Eq):
                for a, b in ((left, right), (right, left)):
                    if _is_str_call(a) and (m := _literal(b)):
                        out.append(("message", m))
            if isinstance(node.ops[0], ast.In) and _is_str_call(right):
                out += [("message", m) for m in messages(left)]
    return list(dict.fromkeys(out))


def _fold(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().lower()


def _words(pattern: str) -> str:
    """A match= regex as the plain words it looks for."""
    s = re.sub(r"\\(.)", r"\1", pattern.strip("^$"))
    s = re.sub(r"\.\*|\.\+|[()\[\]?*+]", " ", s)
    return _fold(s)


def stated(kind: str, value: str, texts: list[str]) -> bool:
    folded = [_fold(t) for t in texts]
    if kind == "type":
        return any(re.search(rf"\b{re.escape(value.lower())}\b", t) for t in folded)
    words = _words(value)
    if not words or any(words in t for t in folded):
        return True
    # A long message counts when each of its longer words is stated somewhere.
    return len(words.split()) > 3 and all(any(w in t for t in folded) for w in words.split() if len(w) > 3)


def functions(source: str) -> dict[str, ast.AST]:
    """`name` and `Class::name` -> function node, for every test function of a module."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    out[f"{node.name}::{sub.name}"] = sub
    return out


def gaps(tests: list[str], hidden_sources: dict[str, str], prompt: str, visible_sources: list[str]) -> list[str]:
    """`test id: what` for each pinned detail of the given test ids that no text states."""
    texts = [prompt, *visible_sources]
    parsed = {path: functions(src) for path, src in hidden_sources.items()}
    out = []
    for tid in dict.fromkeys(t.split("[", 1)[0] for t in tests):  # parametrized instances share one function
        path, _, rest = tid.partition("::")
        func = parsed.get(path, {}).get(rest)
        if func is None:
            continue
        for kind, value in pinned(func):
            if not stated(kind, value, texts):
                out.append(f"{tid}: {'exception type' if kind == 'type' else 'message'} {value!r}")
    return list(dict.fromkeys(out))


# --- what a prompt must not give away, and what it must not leave out (real tasks) ---------------------

BUILTIN_NAMES = frozenset(dir(builtins)) | {"self", "cls", "pytest", "unittest", "mock", "re", "os", "sys"}
CODE_SPAN = re.compile(r"`([^`\n]+)`")
CALLED = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(")
TOKEN_MIN = 8  # a hidden test's literal this long, and not plain words, is a token an agent could special-case


def _code_shaped(name: str) -> bool:
    """A name no prose spells by accident: snake_case, a digit, or a capital inside it (camelCase, PascalCase)."""
    return "_" in name.strip("_") or any(c.isdigit() for c in name) or any(c.isupper() for c in name[1:])


def code_mentions(prompt: str) -> set[str]:
    """The identifiers a prompt writes as code: inside backticks, called (`name(`), or code-shaped anywhere."""
    spans = CODE_SPAN.findall(prompt)
    out = {w for s in spans for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", s)} | set(CALLED.findall(prompt))
    out |= {w for w in re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", prompt) if _code_shaped(w)}
    return out


def _names_and_strings(source: str) -> tuple[set[str], set[str]]:
    """Identifiers (names, attributes, definitions, arguments) and string constants of a module, or empty sets."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), set()
    names: set[str] = set()
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.arg, ast.keyword)) and node.arg:
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.update(node.name.split(".") + ([node.asname] if node.asname else []))
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(node.module.split("."))
        elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            v = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
            strings.add(v)
    return names, strings


def fix_code(base: dict[str, str], reference: dict[str, str]) -> tuple[set[str], set[str]]:
    """(identifiers, string literals) the fix adds (the base has them nowhere) or removes (the reference lacks
    them in the file it changed): what a prompt naming them gives away."""
    base_names, base_strings = set(), set()
    for rel, src in base.items():
        n, s = _names_and_strings(src)
        base_names |= n | set(rel[:-3].split("/"))  # a module's own name is the base's too
        base_strings |= s
    names, strings = set(), set()
    for rel, ref in reference.items():
        rn, rs = _names_and_strings(ref)
        on, os_ = _names_and_strings(base.get(rel, ""))
        names |= (rn - base_names) | (on - rn)
        strings |= (rs - base_strings) | (os_ - rs)
    return names, {s for s in strings if len(s.strip()) >= 3 and "\n" not in s}


def _quoted(literal: str, prompt: str) -> bool:
    return any(f"{q}{literal}{q}" in prompt for q in ('"', "'", "`"))


def param_ids(tests: list[str]) -> set[str]:
    """The parameter ids of parametrized test ids (`f::t[a-b]` -> a, b, a-b): a test parametrized over the
    reference's own data (six's moves) names each value in its id, so that value is the interface."""
    out: set[str] = set()
    for t in tests:
        if t.endswith("]") and "[" in t:
            p = t.split("[", 1)[1][:-1]
            out |= {p, *p.split("-")}
    return out


def given_away(prompt: str, base: dict[str, str], reference: dict[str, str], hidden: dict[str, str],
               tests: list[str] = ()) -> list[str]:  # type: ignore[assignment]
    """Code the fix adds or removes that the prompt names (as code) or quotes: the cure prescribed. Names and
    literals the hidden tests themselves use, or name in their ids, are the task's interface and must be named,
    so they are not."""
    names, strings = fix_code(base, reference)
    used_names, used_strings = set(), param_ids(list(tests))
    for src in hidden.values():
        n, s = _names_and_strings(src)
        used_names |= n
        used_strings |= s
    out = [f"names the code the fix adds or removes: {n!r}" for n in sorted((names - used_names) & code_mentions(prompt))]
    pinned = [w for w in map(_words, used_strings) if len(w) >= 4]
    out += [f"quotes a literal the fix adds or removes: {s!r}" for s in sorted(strings - used_strings - used_names)
            if _quoted(s, prompt) and not any(w in _fold(s) for w in pinned)]  # a message a test pins is stated
    return out


def _token_like(value: str) -> bool:
    return len(value) >= TOKEN_MIN and not re.fullmatch(r"[A-Za-z][A-Za-z ,.;:'!?-]*", value)


def _literals(func: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            out.add(node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, int) and abs(node.value) >= 1000:
            out.add(str(node.value))
    return out


def quoted_tokens(tests: list[str], hidden: dict[str, str], prompt: str, base: dict[str, str]) -> list[str]:
    """A hidden test's own token (a long literal that is not plain words, a number of 4 digits or more) that the
    prompt quotes and the base has nowhere: a ready-made special case."""
    base_text = "\n".join(base.values())
    parsed = {path: functions(src) for path, src in hidden.items()}
    out = []
    for tid in dict.fromkeys(t.split("[", 1)[0] for t in tests):
        path, _, rest = tid.partition("::")
        func = parsed.get(path, {}).get(rest)
        messages = {v for k, v in pinned(func) if k == "message"} if func is not None else set()
        for lit in sorted(_literals(func) - messages if func is not None else ()):  # a pinned message must be stated
            if (_token_like(lit) or (lit.isdigit() and len(lit) >= 4)) and lit in prompt and lit not in base_text:
                out.append(f"{tid}: quotes the hidden test's token {lit[:60]!r}")
    return list(dict.fromkeys(out))


ASSERT_CALLS = re.compile(r"^(assert\w*|raises|fail\w*)$")


def _bound(func: ast.AST) -> set[str]:
    """Names the test binds itself (arguments, assignments, loop and with targets, imports, comprehensions)."""
    out: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not func:
            out.add(node.name)
    return out


def checked_names(func: ast.AST) -> set[str]:
    """The names a test's checks touch: in `assert` statements and in the arguments of assert*/raises calls
    (the `with pytest.raises(...)` block's body too), less what the test binds itself and the builtins."""
    exprs: list[ast.AST] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Assert):
            exprs.append(node.test)
        elif isinstance(node, ast.Call) and ASSERT_CALLS.match(_name(node.func) or ""):
            exprs += [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.With) and any(isinstance(i.context_expr, ast.Call)
                                                and _name(i.context_expr.func) in ("raises", "assertRaises")
                                                for i in node.items):
            exprs += node.body
    nodes = [n for e in exprs for n in ast.walk(e) if isinstance(n, (ast.Name, ast.Attribute))]
    # `typing.cast(...)`, `math.isclose`: the standard library is every reader's vocabulary, no behaviour of the
    # project's to state (marshmallow's tests were flagged for `cast`)
    stdlib = {id(n) for n in nodes if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
              and n.value.id in sys.stdlib_module_names}
    names = {n.id if isinstance(n, ast.Name) else n.attr for n in nodes
             if id(n) not in stdlib and not (isinstance(n, ast.Name) and n.id in sys.stdlib_module_names)}
    return {n for n in names - _bound(func) - BUILTIN_NAMES if not ASSERT_CALLS.match(n)}


def unstated(tests: list[str], hidden: dict[str, str], base_tests: dict[str, str], prompt: str,
             visible_sources: list[str]) -> list[str]:
    """Hidden tests the fix added or changed whose checks touch a name that neither the prompt nor any visible
    test mentions: behaviour pinned and never stated (state it, or move the test out)."""
    texts = [prompt, *visible_sources]
    parsed = {path: functions(src) for path, src in hidden.items()}
    old = {path: {k: ast.dump(v) for k, v in functions(src).items()} for path, src in base_tests.items()}
    out = []
    for tid in dict.fromkeys(t.split("[", 1)[0] for t in tests):
        path, _, rest = tid.partition("::")
        func = parsed.get(path, {}).get(rest)
        if func is None or old.get(path, {}).get(rest) == ast.dump(func):
            continue
        missing = sorted(n for n in checked_names(func)
                         if not any(re.search(rf"\b{re.escape(n)}\b", t) for t in texts))
        if missing:
            out.append(f"{tid}: checks {', '.join(missing[:5])}, which neither the prompt nor a visible test mentions")
    return out


def flags(prompt: str, tests: list[str], hidden: dict[str, str], base: dict[str, str], reference: dict[str, str],
          visible: dict[str, str]) -> list[str]:
    """Every prompt-check flag of a real task: code given away, a hidden token quoted, pinned behaviour unstated.
    `tests`: FAIL_TO_PASS and PASS_TO_PASS; `hidden`: the hidden test modules; `base`: every source file of the
    base; `reference`: the fix's files; `visible`: the base's test modules (the agent reads them)."""
    return [*given_away(prompt, base, reference, hidden, tests), *quoted_tokens(tests, hidden, prompt, base),
            *unstated(tests, hidden, {p: visible[p] for p in hidden if p in visible}, prompt, list(visible.values()))]
