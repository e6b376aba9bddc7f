"""Parse the text of a .env file.

Supported syntax:

    # comment
    KEY=value            unquoted; surrounding spaces and a trailing ` # comment` are dropped
    export KEY=value     the `export ` prefix is accepted and ignored
    KEY='literal text'   single quotes: taken exactly as written
    KEY="a\\tb\\n"       double quotes: backslash escapes \\n \\t \\r \\" \\\\
"""

from __future__ import annotations

import re

from collections.abc import Mapping

from envfile.errors import ParseError

_VAR = re.compile(r"\$\{(\w+)\}")
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def parse(text: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return the key/value pairs of `text`, in file order. A repeated key keeps its last value."""
    values: dict[str, str] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, value = parse_line(line, lineno)
        if not line.split("=", 1)[1].strip().startswith("'"):
            scope = {**(environ or {}), **values}
            value = _VAR.sub(lambda m: scope.get(m.group(1), ""), value)
        values[key] = value
    return values


def parse_line(line: str, lineno: int) -> tuple[str, str]:
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
        value, tail = _double_quoted(rest, lineno)
    else:
        return key, _unquoted(rest)
    _check_tail(tail, lineno)
    return key, value


def _unquoted(rest: str) -> str:
    # A '#' only starts a comment after whitespace, so URLs with fragments survive.
    cut = re.search(r"\s#", rest)
    if cut:
        rest = rest[: cut.start()]
    return rest.strip()


def _single_quoted(rest: str, lineno: int) -> tuple[str, str]:
    end = rest.find("'", 1)
    if end < 0:
        raise ParseError("unterminated single-quoted value", lineno)
    return rest[1:end], rest[end + 1 :]


def _double_quoted(rest: str, lineno: int) -> tuple[str, str]:
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
        if ch == '"':
            return "".join(out), rest[i + 1 :]
        out.append(ch)
        i += 1
    raise ParseError("unterminated double-quoted value", lineno)


def _check_tail(tail: str, lineno: int) -> None:
    tail = tail.strip()
    if tail and not tail.startswith("#"):
        raise ParseError(f"unexpected text after closing quote: {tail!r}", lineno)
