"""Version constraints as written in plugin manifests: ">=1.2.0, <2.0.0", "^1.4.0", "~0.9.1", "*"."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from versionkit.version import InvalidVersion, Version

_OPS: dict[str, Callable[[Version, Version], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}


class InvalidConstraint(ValueError):
    """The text is not a constraint this module understands."""


@dataclass(frozen=True)
class Comparator:
    op: str
    version: Version

    def allows(self, version: Version) -> bool:
        return _OPS[self.op](version, self.version)

    def __str__(self) -> str:
        return f"{self.op}{self.version}"


def _caret(v: Version) -> list[Comparator]:
    # ^1.2.3 := >=1.2.3 <2.0.0; below 1.0.0 the left-most non-zero part is the one that may not change.
    if v.major > 0:
        upper = Version(v.major + 1, 0, 0)
    elif v.minor > 0:
        upper = Version(0, v.minor + 1, 0)
    else:
        upper = Version(0, 0, v.patch + 1)
    return [Comparator(">=", v), Comparator("<", upper)]


def _tilde(v: Version) -> list[Comparator]:
    return [Comparator(">=", v), Comparator("<", Version(v.major, v.minor + 1, 0))]


def _parse_one(part: str) -> list[Comparator]:
    if part == "*":
        return []
    try:
        if part[0] == "^":
            return _caret(Version.parse(part[1:].strip()))
        if part[0] == "~":
            return _tilde(Version.parse(part[1:].strip()))
        for op in sorted(_OPS, key=len, reverse=True):
            if part.startswith(op):
                return [Comparator(op, Version.parse(part[len(op):].strip()))]
        return [Comparator("==", Version.parse(part))]
    except InvalidVersion as exc:
        raise InvalidConstraint(f"bad version in constraint part {part!r}: {exc}") from None


@dataclass(frozen=True)
class Constraint:
    """All comparators must hold (comma means AND)."""

    comparators: tuple[Comparator, ...]
    text: str

    @classmethod
    def parse(cls, text: str) -> Constraint:
        parts = [p.strip() for p in text.split(",")]
        if not text.strip() or any(not p for p in parts):
            raise InvalidConstraint(f"empty constraint or empty part in {text!r}")
        comparators: list[Comparator] = []
        for part in parts:
            comparators.extend(_parse_one(part))
        return cls(tuple(comparators), text.strip())

    def allows(self, version: Version | str, include_prerelease: bool = False) -> bool:
        """Whether `version` satisfies every comparator.

        Pre-releases are refused unless `include_prerelease` is set, so that "^1.0.0" never
        installs a release candidate by accident.
        """
        v = Version.coerce(version)
        if v.is_prerelease and not include_prerelease:
            return False
        return all(c.allows(v) for c in self.comparators)

    def __str__(self) -> str:
        return self.text
