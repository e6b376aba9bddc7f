"""Glob matching on repo-relative POSIX paths (stdlib only).

Rules (SPEC.md, "Globs"): `*` and `?` stay inside one path segment, `**` spans any number of
segments (zero included), `[...]` is a character class, and a pattern with no `/` matches the
file's name at any depth, as in .gitignore. fnmatch alone lets `*` cross `/`, which would make
`tests/*.py` match `tests/a/b.py`.
"""

from __future__ import annotations

TYPE_CHECKING = False  # collections.abc costs every stop an import; only type checkers need these names
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable


def _segment(seg: str) -> str:
    import re  # here, not at the top: GlobSet compiles lazily, and a no-gate stop may never need `re`

    out, i = [], 0
    while i < len(seg):
        c = seg[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = seg.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = seg[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def translate(pattern: str) -> str:
    if "/" not in pattern:
        pattern = "**/" + pattern
    parts = pattern.split("/")
    out = []
    for n, seg in enumerate(parts):
        last = n == len(parts) - 1
        if seg == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
        else:
            out.append(_segment(seg) + ("" if last else "/"))
    return "".join(out)


_MAGIC = set("*?[")


def _sort(patterns: list[str]) -> dict[str, list]:
    """Patterns by the test that decides them without a regex (the same answer as translate's regex):
    suffix `**/*.py`, name `**/conftest.py`, affix `**/test_*.py` (name starts and ends so), literal path
    `a/b.txt`, prefix `tests/**` (a literal folder); `rest` need the regex."""
    out: dict[str, list] = {"suffix": [], "name": [], "affix": [], "literal": [], "prefix": [], "rest": []}
    for p in patterns:
        q = p if "/" in p else "**/" + p
        tail = q[3:]
        one_name = q.startswith("**/") and "/" not in tail
        if one_name and tail.startswith("*") and not _MAGIC & set(tail[1:]):
            out["suffix"].append(tail[1:])
        elif one_name and not _MAGIC & set(tail):
            out["name"].append(tail)
        elif one_name and tail.count("*") == 1 and not set("?[") & set(tail):
            out["affix"].append(tuple(tail.split("*")))
        elif "/" in p and not _MAGIC & set(p):
            out["literal"].append(p)
        elif p.endswith("/**") and not _MAGIC & set(p[:-3]):
            out["prefix"].append(p[:-2])  # "tests/": the regex is `tests/.*`
        else:
            out["rest"].append(p)
    return out


def _one_line_after(path: str, prefixes: tuple[str, ...]) -> bool:
    """`.*` stops at a newline: a prefix pattern matches only if the rest of the path after it has none."""
    return any(path.startswith(pre) and "\n" not in path[len(pre):] for pre in prefixes)


def _compile(patterns: list[str]) -> re.Pattern[str]:
    import re

    return re.compile("|".join(f"(?:{translate(p)})" for p in patterns))


class GlobSet:
    """Many globs compiled into one regex, so a 10,000-file walk pays one match per path.

    The commonest patterns (`**/*.pyc`, `**/name`) skip the regex: a suffix or name test is far
    cheaper, and the hook runs this on every file of the repo at every stop.
    """

    def __init__(self, patterns: Iterable[str]):
        self.patterns = list(patterns)
        self.match = self._matcher(self.patterns)
        # A walk never enters a directory that `prunes`, so for the files it does visit, patterns
        # ending in "/**" can never match: `match_visited` leaves them out (the commonest ignores).
        self.match_visited = self._matcher([p for p in self.patterns if not p.endswith("/**")])
        self._prefixes = [p[:-3] for p in self.patterns if p.endswith("/**")]
        self._prune: Callable[..., bool] | None = None

    @staticmethod
    def _matcher(patterns: list[str]) -> Callable[..., bool]:
        sorts = _sort(patterns)
        suffixes, names, literals = tuple(sorts["suffix"]), set(sorts["name"]), set(sorts["literal"])
        prefixes, affixes, rest = tuple(sorts["prefix"]), sorts["affix"], sorts["rest"]
        regex: list[re.Pattern[str]] = []  # compiled at the first path that needs it: `re` costs a stop ~5 ms to import

        def match(path: str, name: str | None = None) -> bool:
            # `name` (the last segment) saves a split when the caller already has it, as a walk does.
            if suffixes and path.endswith(suffixes):
                return True
            if names or affixes:
                last = name if name is not None else path.rpartition("/")[2]
                if last in names or any(len(last) >= len(a) + len(b) and last.startswith(a) and last.endswith(b)
                                        for a, b in affixes):
                    return True
            if path in literals or (prefixes and path.startswith(prefixes) and _one_line_after(path, prefixes)):
                return True
            if not rest:
                return False
            if not regex:
                regex.append(_compile(rest))
            return bool(regex[0].fullmatch(path))

        return match

    def prunes(self, dirpath: str) -> bool:
        if not self._prefixes:
            return False
        if self._prune is None:  # `.git`, `**/__pycache__`: the same shortcuts as `match`, so no `re` either
            self._prune = self._matcher(self._prefixes)
        return self._prune(dirpath)

    def __bool__(self) -> bool:
        return bool(self.patterns)
