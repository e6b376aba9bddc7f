"""What a JavaScript/TypeScript test checks (Jest, Vitest, ava, mocha, tape, node:test), stdlib only.

A small tokenizer (strings, template literals, comments, regex literals, numbers, names,
punctuation; no parser) finds the test calls (`test`, `it`, `describe`, their `.skip`/`.only`/
`.todo`/`.failing`/`.each` forms, `xit`, `fit`, ...), the skips called in a test's body
(`this.skip()`, `ctx.skip()`, `t.skip()`, `pending()`: markers as `.skip` is) and, inside each test, the checks:
`expect(...)` chains (`expect(x).toBe(y)`, `expect(x).not.toEqual(y)`, chai's `expect(x).to.equal(y)`),
`t.is`/`t.deepEqual`/`t.true`/... (ava, tape), `assert.*` and `assert(...)` (node, mocha). A check's
key is its token text; its shape masks the literals, so `expect(add(2, 2)).toBe(4)` rewritten to
`toBe(5)` is an expected value changed, not a new check. Tests are `Test`s as in `pychecks.py`,
matched across files by `testident.py`: a renamed, moved or split test keeps its checks.
"""

from __future__ import annotations

import re

from gatebench.testguard.testident import finding

SUFFIXES = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
TEST_DIRS = {"test", "tests", "__tests__", "spec"}
HARNESS = re.compile(r"^(jest|vitest|vite|ava|karma)\.config\.[cm]?[jt]s$|^\.mocharc(\.[a-z]+)?$|^\.taprc$")
RUNNER_KEYS = ("jest", "ava", "mocha", "vitest", "tap", "c8", "nyc")
TEST_CALLS = {"test", "it", "specify", "xit", "xtest", "fit", "ftest", "tape"}
SUITE_CALLS = {"describe", "suite", "context", "xdescribe", "fdescribe", "xcontext"}
SKIP_MODS = {"skip", "todo", "failing", "fixme"}
COND_MODS = {"skipIf", "runIf"}  # `it.skipIf(cond)(title, fn)`: a skip chosen at run time
ONLY = {"only", "fit", "ftest", "fdescribe"}
X_CALLS = {"xit", "xtest", "xdescribe", "xcontext"}
BODY_SKIPS = {"skip", "skipIf", "runIf", "todo", "pending"}  # `this.skip()`, `ctx.skip()`, `t.skip()`, `it.skipIf(c)`
T_METHODS = {"is", "not", "deepEqual", "notDeepEqual", "like", "true", "false", "truthy", "falsy", "throws",
             "throwsAsync", "notThrows", "notThrowsAsync", "equal", "notEqual", "same", "notSame", "ok", "notOk",
             "strictEqual", "notStrictEqual", "deepStrictEqual", "notDeepStrictEqual", "match", "notMatch", "regex",
             "notRegex", "snapshot", "assert", "equals", "deepEquals", "error", "ifError", "rejects", "doesNotThrow",
             "fail", "looseEqual", "isTrue", "isFalse", "isNull", "isNotNull", "isUndefined", "include", "lengthOf"}
ASSERT_RECEIVERS = {"t", "assert", "tt", "st"}

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<tmpl>`(?:\\.|\$\{(?:[^{}`]|\{[^{}]*\})*\}|[^`\\])*`)
  | (?P<num>(?:0[xXbBoO][0-9a-fA-F_]+|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)n?)
  | (?P<id>[A-Za-z_$][\w$]*)
  | (?P<punct>=>|\.\.\.|===|!==|==|!=|<=|>=|&&|\|\||\?\?|\?\.|[^\s\w])
""", re.S | re.X)
_REGEX = re.compile(r"/(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n\[])+/[a-z]*")
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^") | {"return", "typeof", "case", "in", "of", "=>", "&&", "||", "??"}


def is_test_file(rel: str) -> bool:
    base = rel.rsplit("/", 1)[-1]
    if not base.endswith(SUFFIXES) or base.endswith(".d.ts"):
        return False
    stem = base.rsplit(".", 1)[0]
    return (stem.endswith((".test", ".spec", "-test", "_test", ".e2e")) or stem in ("test", "tests")
            or any(p in TEST_DIRS for p in rel.split("/")[:-1])) and "node_modules" not in rel.split("/")


def is_snapshot(rel: str) -> bool:
    """A stored snapshot (Jest, Vitest, ava, node:test): the expected output of its tests, wherever it lives."""
    parts = rel.split("/")
    return "node_modules" not in parts and (parts[-1].endswith((".snap", ".snapshot")) or "__snapshots__" in parts[:-1])


def is_harness(rel: str) -> bool:
    base = rel.rsplit("/", 1)[-1]
    return bool(HARNESS.match(base)) or (base == "package.json" and "node_modules" not in rel.split("/"))


def tokens(src: str) -> list[tuple[str, str, int, int]]:
    """(kind, text, start, end) of every significant token; literals keep their source text."""
    out: list[tuple[str, str, int, int]] = []
    i, n = 0, len(src)
    while i < n:
        if src[i] == "/" and (not out or out[-1][1] in _REGEX_AFTER) and src[i:i + 2] not in ("//", "/*"):
            m = _REGEX.match(src, i)
            if m:
                out.append(("regex", m.group(), i, m.end()))
                i = m.end()
                continue
        m = _TOKEN.match(src, i)
        if not m:
            out.append(("punct", src[i], i, i + 1))
            i += 1
            continue
        kind = m.lastgroup or "punct"
        if kind not in ("ws", "comment"):
            out.append((kind, m.group(), i, m.end()))
        i = m.end()
    return out


def _close(toks: list, i: int) -> int:
    """Index of the bracket closing the one at `i` (len(toks) if unbalanced)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(i, len(toks)):
        t = toks[j][1]
        if toks[j][0] == "punct" and t in pairs:
            stack.append(pairs[t])
        elif toks[j][0] == "punct" and stack and t == stack[-1]:
            stack.pop()
            if not stack:
                return j
    return len(toks)


def _key(toks: list) -> str:
    return " ".join(t[1] for t in toks)


def _shape(toks: list) -> str:
    return " ".join("<lit>" if t[0] in ("str", "num", "tmpl", "regex") else t[1] for t in toks)


def _text(src: str, toks: list) -> str:
    return " ".join(src[toks[0][2]:toks[-1][3]].split()) if toks else ""


class Test:
    __slots__ = ("checks", "markers", "setup", "source")

    def __init__(self, source: str):
        self.source = source
        self.checks: list[tuple[str, str, str, str, str]] = []
        self.setup: list[tuple[str, str]] = []
        self.markers: list[str] = []


def _chosen_head(toks: list, i: int) -> tuple[str, list[str], int] | None:
    """`(cond ? it : it.skip)(` at `i`: a test whose runner is chosen at run time (Jest's conditional skip);
    a skipping choice is its `it.skip` marker."""
    end = _close(toks, i)
    inner = [t[1] for t in toks[i + 1:end]]
    if end + 1 >= len(toks) or toks[end + 1][1] != "(" or "?" not in inner or ":" not in inner:
        return None
    names = [x for x in inner if x in TEST_CALLS]
    if not names:
        return None
    return names[0], ["skip"] if any(x in SKIP_MODS or x in X_CALLS for x in inner) else [], end + 1


def _call_head(toks: list, i: int) -> tuple[str, list[str], int] | None:
    """At a test/suite call `name(.mod)*(`: (name, modifiers, index of its `(`)."""
    kind, name = toks[i][0], toks[i][1]
    if name == "(" and kind == "punct" and (i == 0 or toks[i - 1][0] != "id"):
        return _chosen_head(toks, i)
    if kind != "id" or (name not in TEST_CALLS and name not in SUITE_CALLS):
        return None
    if i and toks[i - 1][1] in (".", "function"):
        return None
    mods, j = [], i + 1
    while j + 1 < len(toks) and toks[j][1] == "." and toks[j + 1][0] == "id":
        mods.append(toks[j + 1][1])
        j += 2
        if mods[-1] == "each" and j < len(toks) and toks[j][1] in ("(", "["):
            end = _close(toks, j)
            mods[-1] = "each " + _text_of(toks[j:end + 1])
            j = end + 1
        elif mods[-1] in COND_MODS and j < len(toks) and toks[j][1] == "(":  # Vitest's `it.skipIf(cond)(...)`
            j = _close(toks, j) + 1
    return (name, mods, j) if j < len(toks) and toks[j][1] == "(" else None


def _each_table(toks: list, i: int, paren: int) -> list:
    """The `(table)` of a `name.each(table)(...)` head at `i` (its call's `(` at `paren`)."""
    for k in range(i + 1, paren - 1):
        if toks[k][1] == "each" and toks[k - 1][1] == "." and toks[k + 1][1] == "(":
            return toks[k + 1:_close(toks, k + 1) + 1]
    return []


def _text_of(toks: list) -> str:
    return " ".join(t[1] for t in toks)


def _title(tok: tuple) -> str:
    if tok[0] in ("str", "tmpl"):
        return tok[1][1:-1]
    return tok[1]


def tests_of(src: str) -> dict[str, Test]:
    """test id (`suite > title`) -> Test."""
    toks = tokens(src)
    out: dict[str, Test] = {}
    _scan(src, toks, 0, len(toks), [], [], out, _constants(toks))
    return out


def _constants(toks: list) -> dict[str, list]:
    """`const NAME = [...]` (or `{...}`, a `for ... in` table) anywhere in the file: NAME -> its bindings,
    each (scope start, scope end, declared at, tokens), the scope being the innermost `{...}` holding the
    declaration (the file for a module constant); `_lookup` resolves a use to the binding in scope there."""
    out: dict[str, list] = {}
    opens: list[int] = []  # the `{` tokens open at k
    for k in range(len(toks)):
        text = toks[k][1]
        if toks[k][0] == "punct" and text == "{":
            opens.append(k)
        elif toks[k][0] == "punct" and text == "}" and opens:
            opens.pop()
        elif text in ("const", "let", "var") and k + 3 < len(toks) and toks[k + 1][0] == "id" \
                and toks[k + 2][1] == "=" and toks[k + 3][1] in ("[", "{"):
            end = _close(toks, opens[-1]) if opens else len(toks)
            lo, hi = (toks[opens[-1]][2], toks[end][3] if end < len(toks) else 1 << 62) if opens else (0, 1 << 62)
            out.setdefault(toks[k + 1][1], []).append((lo, hi, toks[k][2], toks[k + 3:_close(toks, k + 3) + 1]))
    return out


def _lookup(consts: dict[str, list], name: tuple) -> list | None:
    """The tokens of the binding of the name token `name` in scope where it is used: the innermost scope
    holding the use, and in it the last declaration before the use (or the first after: a hoisted use)."""
    at = name[2]
    here = [b for b in consts.get(name[1], ()) if b[0] <= at < b[1]]
    if not here:
        return None
    inner = max(b[0] for b in here)
    mine = sorted((b for b in here if b[0] == inner), key=lambda b: b[2])
    before = [b for b in mine if b[2] < at]
    return (before[-1] if before else mine[0])[3]


def _items(toks: list) -> list[list]:
    """The top-level comma-separated items inside a bracket pair `toks` (its first and last token)."""
    out: list[list] = [[]]
    depth = 0
    for t in toks[1:-1]:
        if t[0] == "punct" and t[1] in "([{":
            depth += 1
        elif t[0] == "punct" and t[1] in ")]}":
            depth -= 1
        if depth == 0 and t[1] == ",":
            out.append([])
        else:
            out[-1].append(t)
    return [x for x in out if x]


def _params(toks: list) -> list[str] | None:
    """The parameter names of the test function `toks` starts with (`(a, b) =>`, `function (a, b)`, `a =>`)."""
    k = 1 if toks and toks[0][1] in ("function", "async") else 0
    k += 1 if k and k < len(toks) and toks[k][1] == "function" else 0
    if k < len(toks) and toks[k][0] == "id" and k + 1 < len(toks) and toks[k + 1][1] == "=>":
        return [toks[k][1]]
    if k < len(toks) and toks[k][0] == "id" and toks[k - 1][1] == "function":
        k += 1  # a named function expression
    if k >= len(toks) or toks[k][1] != "(":
        return None
    names = [item[0][1] for item in _items(toks[k:_close(toks, k) + 1])]
    return names if all(n.isidentifier() for n in names) else None


def _rows(table: list, consts: dict, params: list[str] | None, spread: bool = True) -> list[dict[str, list]] | None:
    """A literal `.each` table (or a constant naming one) as one name -> tokens binding per row. Rows are
    spread over the parameters when every row is an array (as Jest and Vitest do: a table with one row that
    is not passes each row whole) and `spread` is not False (one parameter takes its row whole)."""
    bound = _lookup(consts, table[1]) if len(table) == 3 and table[1][0] == "id" else None
    if bound is not None:
        table = [table[0], *bound, table[-1]]
    if not params or len(table) < 3 or table[1][1] != "[":
        return None
    items = _items(table[1:-1])
    spread = spread and all(row[0][1] == "[" and _close(row, 0) == len(row) - 1 for row in items)
    rows = []
    for row in items:
        cells = _items(row) if spread else [row]
        if len(cells) != len(params):
            return None
        rows.append(dict(zip(params, cells, strict=True)))
    return rows or None


def _pattern(toks: list, k: int) -> tuple[list[str], bool, int] | None:
    """A loop variable at `k`: `[a, b]` (names, spread, index after) or `x` (a single name)."""
    if toks[k][1] == "[":
        end = _close(toks, k)
        names = [item[0][1] for item in _items(toks[k:end + 1]) if len(item) == 1]
        return (names, True, end + 1) if names and all(n.isidentifier() for n in names) else None
    return ([toks[k][1]], False, k + 1) if toks[k][0] == "id" else None


def _for_of(toks: list, k: int, consts: dict) -> tuple[int, int, list] | None:
    """`for (const [a, b] of TABLE) { ... }` at `k`: (body start, body end, rows)."""
    if not (toks[k][1] == "for" and k + 3 < len(toks) and toks[k + 1][1] == "(" and toks[k + 2][1] in (
            "const", "let", "var")):
        return None
    head_end = _close(toks, k + 1)
    pat = _pattern(toks, k + 3)
    if pat is None or pat[2] >= head_end or toks[pat[2]][1] != "of" or head_end + 1 >= len(toks) \
            or toks[head_end + 1][1] != "{":
        return None
    rows = _rows([toks[k + 1], *toks[pat[2] + 1:head_end], toks[head_end]], consts, pat[0], pat[1])
    return (head_end + 1, _close(toks, head_end + 1), rows) if rows else None


def _for_in(toks: list, k: int, consts: dict) -> tuple[int, int, list] | None:
    """`for (const key in TABLE) { ... TABLE[key] ... }` at `k`, TABLE an object literal or a name bound to one:
    (body start, body end, rows), each row the key as a string and `TABLE[key]` as its value."""
    if not (toks[k][1] == "for" and k + 6 < len(toks) and toks[k + 1][1] == "(" and toks[k + 2][1] in (
            "const", "let", "var") and toks[k + 3][0] == "id" and toks[k + 4][1] == "in"):
        return None
    head_end = _close(toks, k + 1)
    table = toks[k + 5:head_end]
    name = table[0][1] if len(table) == 1 and table[0][0] == "id" else None
    if name is not None:
        table = _lookup(consts, toks[k + 5]) or []
    if not table or table[0][1] != "{" or head_end + 1 >= len(toks) or toks[head_end + 1][1] != "{":
        return None
    key, rows = toks[k + 3][1], []
    for item in _items(table):
        if len(item) < 3 or item[1][1] != ":" or item[0][0] not in ("id", "str", "num"):
            return None
        text = item[0][1] if item[0][0] != "id" else repr(item[0][1])
        row = {key: [("str" if item[0][0] != "num" else "num", text, item[0][2], item[0][3])]}
        if name is not None:
            row[f"{name}[{key}]"] = item[2:]
        rows.append(row)
    return (head_end + 1, _close(toks, head_end + 1), rows) if rows else None


def _for_each(toks: list, k: int, consts: dict) -> tuple[int, int, list] | None:
    """`TABLE.forEach(([a, b]) => { ... })` at the `forEach` token `k` (or `function ([a, b]) { ... }`, or an
    arrow's expression body): (body start, body end, rows)."""
    if not (toks[k][1] == "forEach" and k >= 2 and toks[k - 1][1] == "." and k + 2 < len(toks)
            and toks[k + 1][1] == "("):
        return None
    if toks[k - 2][0] == "id":
        table = [toks[k - 2]]
    else:
        start = next((j for j in range(k - 2, -1, -1) if toks[j][1] == "[" and _close(toks, j) == k - 2), None)
        table = toks[start:k - 1] if start is not None else []
    back = _callback(toks, k + 2, _close(toks, k + 1))
    if not table or back is None:
        return None
    pat, lo, hi = back
    rows = _rows([toks[k + 1], *table, toks[k + 1]], consts, pat[0], pat[1])
    return (lo, hi, rows) if rows else None


def _callback(toks: list, j: int, call_end: int) -> tuple[tuple, int, int] | None:
    """The callback at `j` of a call closing at `call_end`: (its parameter pattern, body start, body end); an
    arrow's expression body runs from the `=>` to the call's `)`."""
    fn = j < len(toks) and toks[j][1] == "function"
    if fn:
        j += 1 + (j + 1 < len(toks) and toks[j + 1][0] == "id")  # a named function expression
        if j >= len(toks) or toks[j][1] != "(":
            return None
        j += 1
    elif j < len(toks):
        j += toks[j][1] == "("
    pat = _pattern(toks, j) if j < len(toks) else None
    if pat is None:
        return None
    at = next((x for x in range(pat[2], min(pat[2] + 3, len(toks))) if toks[x][1] == ("{" if fn else "=>")), None)
    if at is None:
        return None
    if fn:
        return pat, at, _close(toks, at)
    if at + 1 < len(toks) and toks[at + 1][1] == "{":
        return pat, at + 1, _close(toks, at + 1)
    return pat, at, call_end
def _loops(toks: list, consts: dict) -> list[tuple[int, int, list]]:
    """The table loops of a test body: `for...of` and `forEach` over a literal table or a constant."""
    return [loop for k in range(len(toks)) if (loop := _for_of(toks, k, consts) or _for_in(toks, k, consts)
                                                or _for_each(toks, k, consts))]


def _bind(toks: list, env: dict[str, list]) -> list:
    """`toks` with each parameter name (not a property) replaced by its row's tokens."""
    out: list = []
    skip = 0
    for k, t in enumerate(toks):
        if skip:
            skip -= 1
            continue
        if t[0] == "id" and k + 3 < len(toks) and toks[k + 1][1] == "[" and toks[k + 3][1] == "]" and \
                f"{t[1]}[{toks[k + 2][1]}]" in env:  # `TABLE[key]` of a `for ... in` row: its value
            out += env[f"{t[1]}[{toks[k + 2][1]}]"]
            skip = 3
        elif t[0] == "id" and t[1] in env and (k == 0 or toks[k - 1][1] not in (".", "?.")):
            out += env[t[1]]
        else:
            out.append(t)
    return out


_SLOT = re.compile(r"\$\{\s*([A-Za-z_$][\w$]*)\s*\}")


def _bind_titles(toks: list, env: dict[str, list]) -> list:
    """Template literals with `${name}` of a row's parameter filled in with the row's literal value."""
    def value(m: re.Match) -> str:
        cell = env.get(m.group(1))
        if not cell or len(cell) != 1 or cell[0][0] not in ("str", "num"):
            return m.group()
        return cell[0][1][1:-1] if cell[0][0] == "str" else cell[0][1]

    return [(k, _SLOT.sub(value, text) if k == "tmpl" else text, a, b) for k, text, a, b in toks]


def _scan(src: str, toks: list, lo: int, hi: int, prefix: list[str], marks: list[str], out: dict,
          consts: dict, row: dict | None = None) -> None:
    """The tests in toks[lo:hi] into `out`; `row`: the table row the tests were generated from."""
    i = lo
    while i < hi:
        loop = _for_of(toks, i, consts) or _for_in(toks, i, consts) or _for_each(toks, i, consts)
        if loop and any(_call_head(toks, k) for k in range(loop[0], loop[1])):
            for env in loop[2]:  # tests generated from a table (mocha's way): one set per row, titles filled in
                bound = _bind_titles(_bind(toks[loop[0]:loop[1] + 1], env), env)
                _scan(src, bound, 0, len(bound), prefix, marks, out, consts, env)
            i = loop[1] + 1
            continue
        head = _call_head(toks, i)
        if head is None:
            i += 1
            continue
        name, mods, paren = head
        end = min(_close(toks, paren), hi)
        args = toks[paren + 1:end]
        if not args or args[0][0] not in ("str", "tmpl"):
            i = paren + 1
            continue
        title = _title(args[0])
        mine = [*marks, *(f"{name}.{m}" for m in mods if m in SKIP_MODS or m in COND_MODS)]
        if name in X_CALLS:
            mine.append(name)
        case = next((m[5:] for m in mods if m.startswith("each ")), "")
        if name in SUITE_CALLS:
            _scan(src, toks, paren + 1, end, [*prefix, title], mine, out, consts, row)
        else:
            tid = " > ".join([*prefix, title])
            while tid in out:
                tid += " #2"
            t = Test(src[toks[i][2]:toks[end][3]] if end < len(toks) else src[toks[i][2]:])
            t.markers = [*mine, *_body_skips(args[1:])]
            rows = _rows(_each_table(toks, i, paren), consts, _params(args[2:])) if case else [row] if row else None
            if row:  # the same source for every row: the row tells them apart
                t.source += " /* row " + _text_of([x for v in row.values() for x in v]) + " */"
            _checks(src, args[1:], t, case, rows, consts)
            out[tid] = t
        i = end + 1


def _body_skips(toks: list) -> list[str]:
    """Skips called inside a test's body, conditional or not: `this.skip()` (mocha), `ctx.skip()` /
    `context.skip()` (Vitest), `t.skip()` (node:test, tape), `test.skip(...)`, `pending()` (Jasmine)."""
    out = []
    for k, (kind, text, _s, _e) in enumerate(toks):
        call = k + 1 < len(toks) and toks[k + 1][1] == "("
        if kind != "id" or not call:
            continue
        if text in BODY_SKIPS and k >= 2 and toks[k - 1][1] == "." and toks[k - 2][0] == "id":
            out.append(f"{toks[k - 2][1]}.{text}()")
        elif text == "pending" and (k == 0 or toks[k - 1][1] != "."):
            out.append("pending()")
    return list(dict.fromkeys(out))


def _checks(src: str, toks: list, t: Test, case: str, rows: list[dict] | None = None,
            consts: dict | None = None) -> None:
    """The checks of a test body; with `rows` (a `.each` table read), each check once per row with the
    row's values in place of the parameters, keyed as the same check written out would be; a check
    inside a `for...of`/`forEach` over a table, once per row of that table the same way."""
    loops = _loops(toks, consts or {})
    i = 0
    seen: set[str] = set()
    while i < len(toks):
        kind, name = toks[i][0], toks[i][1]
        span = None
        if kind == "id" and name == "expect" and i + 1 < len(toks) and toks[i + 1][1] == "(" and (
                i == 0 or toks[i - 1][1] != "."):
            j = _close(toks, i + 1) + 1
            while j + 1 < len(toks) and toks[j][1] == "." and toks[j + 1][0] == "id":
                j += 2
                if j < len(toks) and toks[j][1] == "(":
                    j = _close(toks, j) + 1
                    if not (j + 1 < len(toks) and toks[j][1] == "."):
                        break
            span = (i, j)
        elif kind == "id" and name in ASSERT_RECEIVERS and (i == 0 or toks[i - 1][1] != "."):
            j = i + 1
            if j + 1 < len(toks) and toks[j][1] == "." and toks[j + 1][1] in T_METHODS:
                j += 2
            if j < len(toks) and toks[j][1] == "(" and (j > i + 1 or name == "assert"):
                span = (i, _close(toks, j) + 1)
        if span is None:
            i += 1
            continue
        part = toks[span[0]:span[1]]
        here = rows
        for lo, hi, loop_rows in loops:
            if lo < span[0] < hi:  # the innermost loop's rows, over the .each row's values
                here = [{**env, **r} for env in (rows or [{}]) for r in loop_rows]
        for label, bound in ([(case, part)] if here is None else
                             [(_text_of([x for v in env.values() for x in v]), _bind(part, env)) for env in here]):
            key = repr((_key(bound), "" if here is not None else case))
            if key not in seen:
                seen.add(key)
                shown = _text(src, part) if here is None else _key(bound)
                t.checks.append((key, repr((_shape(bound), "" if here is not None else case)), shown, label,
                                 _key(bound)))
        i = span[1]


def _only(src: str | None) -> int:
    if src is None:
        return 0
    toks = tokens(src)
    return sum(1 for k, (_kind, text, _s, _e) in enumerate(toks)
               if (text == "only" and k and toks[k - 1][1] == ".") or (text in ONLY and text != "only"
                                                                      and k + 1 < len(toks) and toks[k + 1][1] == "("))


def file_findings(rel: str, old: bytes | None, new: bytes | None, sides: dict) -> list[dict]:
    """Per-file findings of one JavaScript/TypeScript test file; its tests go into `sides`."""
    old_src = old.decode("utf-8", "replace") if old is not None else None
    new_src = new.decode("utf-8", "replace") if new is not None else None
    if old_src is not None:
        sides["old"]["tests"][rel] = tests_of(old_src)
    if new_src is not None:
        sides["new"]["tests"][rel] = tests_of(new_src)
    if _only(new_src) > _only(old_src):
        return [finding("only_added", rel, "", "`.only` (or `fit`/`fdescribe`) runs the marked tests alone")]
    return []


def compare_harness(rel: str, old: bytes | None, new: bytes | None) -> list[dict]:
    """A runner config file added, changed or removed; in package.json, the runner sections and the
    test script."""
    if old == new:
        return []
    if rel.rsplit("/", 1)[-1] != "package.json":
        what = "added" if old is None else "removed" if new is None else "changed"
        return [finding("harness_changed", rel, "", f"test runner configuration {what}")]
    import json

    def part(data: bytes | None) -> dict:
        try:
            doc = json.loads(data or b"{}")
        except ValueError:
            return {"(unparsable)": True}
        if not isinstance(doc, dict):
            return {}
        scripts = doc["scripts"] if isinstance(doc.get("scripts"), dict) else {}
        picked = {k: doc[k] for k in RUNNER_KEYS if k in doc}
        picked.update({f"scripts.{k}": v for k, v in scripts.items() if k == "test" or k.startswith(("test:", "pretest"))})
        return picked

    before, after = part(old), part(new)
    keys = sorted(k for k in {*before, *after} if before.get(k) != after.get(k))
    return [finding("harness_changed", rel, "", f"`{k}`: {json.dumps(before.get(k))} -> {json.dumps(after.get(k))}")
            for k in keys]
