"""Parse the text of a .env file.

Supported syntax:

    # comment
    KEY=value            unquoted; surrounding spaces and a trailing ` # comment` are dropped
    export KEY=value     the `export ` prefix is accepted and ignored
    KEY='literal text'   single quotes: taken exactly as written
    KEY="a\\tb\\n"       double quotes: backslash escapes \\n \\t \\r \\" \\\\ \\$
    KEY=${OTHER}         interpolation in unquoted and double-quoted values
    KEY=${OTHER:-dflt}   ... with a default for an unset or empty OTHER
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from envfile.errors import ParseError

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}

Lookup = Callable[[str], "str | None"]


def parse(text: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return the key/value pairs of `text`, in file order. A repeated key keeps its last value.

    `${NAME}` resolves against the keys defined so far in the file, then `environ`.
    """
    env = environ if environ is not None else {}
    values: dict[str, str] = {}

    def lookup(name: str) -> str | None:
        # Only keys above the current line count: the file reads top to bottom, like a shell script.
        if name in values:
            return values[name]
        return env.get(name)

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, value = parse_line(line, lineno, lookup)
        values[key] = value
    return values


def parse_line(line: str, lineno: int, lookup: Lookup = lambda name: None) -> tuple[str, str]:
    if line.startswith("export "):
        line = line[len("export ") :].lstrip()
    key, sep, rest = line.partition("=")
    if not sep:
        raise ParseError("expected KEY=value", lineno)
    key = key.strip()
    if not _KEY.match(key):
        raise ParseError(f"invalid key {key!r}", lineno)
    rest = rest.strip()
    if rest.startswith("'"):
        value, tail = _single_quoted(rest, lineno)
    elif rest.startswith('"'):
        value, tail = _double_quoted(rest, lineno, lookup)
    else:
        return key, _unquoted(rest, lineno, lookup)
    _check_tail(tail, lineno)
    return key, value


def _unquoted(rest: str, lineno: int, lookup: Lookup) -> str:
    # A '#' only starts a comment after whitespace, so URLs with fragments survive.
    cut = re.search(r"\s#", rest)
    if cut:
        rest = rest[: cut.start()]
    rest = rest.strip()
    out: list[str] = []
    i = 0
    while i < len(rest):
        if rest.startswith("${", i):
            text, i = _reference(rest, i, lineno, lookup)
            out.append(text)
        else:
            out.append(rest[i])
            i += 1
    return "".join(out)


def _single_quoted(rest: str, lineno: int) -> tuple[str, str]:
    end = rest.find("'", 1)
    if end < 0:
        raise ParseError("unterminated single-quoted value", lineno)
    return rest[1:end], rest[end + 1 :]


def _double_quoted(rest: str, lineno: int, lookup: Lookup) -> tuple[str, str]:
    out: list[str] = []
    i = 1
    while i < len(rest):
        ch = rest[i]
        if ch == "\\" and i + 1 < len(rest):
            nxt = rest[i + 1]
            # Unknown escapes keep their backslash, as most shells' dotenv loaders do.
            out.append(_ESCAPES.get(nxt, "\\" + nxt))
            i += 2
            continue
        if rest.startswith("${", i):
            text, i = _reference(rest, i, lineno, lookup)
            out.append(text)
            continue
        if ch == '"':
            return "".join(out), rest[i + 1 :]
        out.append(ch)
        i += 1
    raise ParseError("unterminated double-quoted value", lineno)


def _reference(rest: str, start: int, lineno: int, lookup: Lookup) -> tuple[str, int]:
    """Resolve the `${...}` at `start`; return its text and the index just past the `}`."""
    end = rest.find("}", start + 2)
    if end < 0:
        raise ParseError("unterminated ${...} reference", lineno)
    body = rest[start + 2 : end]
    name, sep, default = body.partition(":-")
    if not _KEY.match(name):
        raise ParseError(f"invalid variable name {name!r} in ${{...}}", lineno)
    value = lookup(name)
    if sep and not value:
        value = default
    # The result is inserted as is: text that came from a variable is never expanded again.
    return value or "", end + 1


def _check_tail(tail: str, lineno: int) -> None:
    tail = tail.strip()
    if tail and not tail.startswith("#"):
        raise ParseError(f"unexpected text after closing quote: {tail!r}", lineno)
