"""Does the prompt state what the hidden tests pin? (plain data: test sources and texts in, gaps out)

A hidden test that expects a particular exception type or message checks a detail the agent can only
guess unless the prompt, or a visible test it can read, states it. Read from each hidden test function
the fail-to-pass set names: `pytest.raises(T, match=M)`, `assertRaises(T)`, `assertRaisesRegex(T, M)`,
`str(...) == "message"` and `"message" in str(...)`. A type counts as stated when its name is in the
prompt or a visible test file; a message when its words are (case and spacing folded; regex escapes
and anchors dropped). Each detail that is not is a gap, named `test id: what`.
"""

from __future__ import annotations

import ast
import re


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


def pinned(func: ast.AST) -> list[tuple[str, str]]:
    """[(kind 'type'|'message', value)] a test function pins."""
    out: list[tuple[str, str]] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Call):
            fn = _name(node.func)
            if fn == "raises" and node.args:
                out += [("type", t) for t in _types(node.args[0])]
                for kw in node.keywords:
                    if kw.arg == "match" and (m := _literal(kw.value)):
                        out.append(("message", m))
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
            if isinstance(node.ops[0], ast.In) and _is_str_call(right) and (m := _literal(left)):
                out.append(("message", m))
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
