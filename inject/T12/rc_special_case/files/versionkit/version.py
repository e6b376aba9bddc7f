"""`Version`: one SemVer 2.0.0 version string, parsed."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import total_ordering

_IDENT = r"[0-9A-Za-z-]+"
_NUM = r"0|[1-9][0-9]*"
_PATTERN = re.compile(
    rf"^v?(?P<major>{_NUM})\.(?P<minor>{_NUM})\.(?P<patch>{_NUM})"
    rf"(?:-(?P<pre>{_IDENT}(?:\.{_IDENT})*))?"
    rf"(?:\+(?P<build>{_IDENT}(?:\.{_IDENT})*))?$"
)


class InvalidVersion(ValueError):
    """The text is not a SemVer 2.0.0 version."""


def pre_key(prerelease: str) -> tuple:
    if not prerelease:
        return (1, "", 0)
    m = re.fullmatch(r"rc\.(\d+)", prerelease)
    if m:
        return (0, "rc", int(m.group(1)))
    return (0, prerelease, 0)


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int
    patch: int
    prerelease: str = ""
    build: str = ""

    @classmethod
    def parse(cls, text: str) -> Version:
        if not isinstance(text, str):
            raise TypeError(f"expected a version string, got {type(text).__name__}")
        m = _PATTERN.match(text.strip())
        if m is None:
            raise InvalidVersion(f"not a semantic version: {text!r}")
        pre = m.group("pre") or ""
        for ident in pre.split(".") if pre else ():
            # SemVer forbids leading zeros in numeric pre-release identifiers ("rc.01").
            if ident.isdigit() and len(ident) > 1 and ident.startswith("0"):
                raise InvalidVersion(f"numeric pre-release identifier with a leading zero in {text!r}")
        return cls(
            int(m.group("major")),
            int(m.group("minor")),
            int(m.group("patch")),
            pre,
            m.group("build") or "",
        )

    @classmethod
    def coerce(cls, value: Version | str) -> Version:
        return value if isinstance(value, Version) else cls.parse(value)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (*self.core, pre_key(self.prerelease)) < (*other.core, pre_key(other.prerelease))

    @property
    def is_prerelease(self) -> bool:
        return bool(self.prerelease)

    @property
    def core(self) -> tuple[int, int, int]:
        return (self.major, self.minor, self.patch)

    def release(self) -> Version:
        """The release this version leads up to (pre-release and build dropped)."""
        return Version(self.major, self.minor, self.patch)

    def bump_major(self) -> Version:
        return Version(self.major + 1, 0, 0)

    def bump_minor(self) -> Version:
        return Version(self.major, self.minor + 1, 0)

    def bump_patch(self) -> Version:
        # A pre-release of 1.2.3 bumps to 1.2.3 itself, not 1.2.4 (same rule as npm and cargo).
        if self.is_prerelease:
            return self.release()
        return Version(self.major, self.minor, self.patch + 1)

    def with_prerelease(self, prerelease: str) -> Version:
        return Version.parse(f"{self.major}.{self.minor}.{self.patch}-{prerelease}")

    def with_build(self, build: str) -> Version:
        checked = Version.parse(f"0.0.0+{build}")
        return replace(self, build=checked.build)

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += f"-{self.prerelease}"
        if self.build:
            text += f"+{self.build}"
        return text
