"""Picking versions out of what a plugin index offers."""

from __future__ import annotations

from collections.abc import Iterable

from versionkit.constraint import Constraint
from versionkit.version import Version


def sort_versions(versions: Iterable[Version | str], reverse: bool = False) -> list[Version]:
    """Parse (where needed) and sort, lowest precedence first. Equal versions keep their input order."""
    return sorted((Version.coerce(v) for v in versions), key=Version.precedence_key, reverse=reverse)


def latest(versions: Iterable[Version | str], include_prerelease: bool = False) -> Version | None:
    """The highest version offered; pre-releases only count when asked for. None if there is none."""
    candidates = [v for v in sort_versions(versions) if include_prerelease or not v.is_prerelease]
    return candidates[-1] if candidates else None


def max_satisfying(
    versions: Iterable[Version | str],
    constraint: Constraint | str,
    include_prerelease: bool = False,
) -> Version | None:
    """The highest version that satisfies `constraint`, or None."""
    c = constraint if isinstance(constraint, Constraint) else Constraint.parse(constraint)
    ok = [v for v in sort_versions(versions) if c.allows(v, include_prerelease=include_prerelease)]
    return ok[-1] if ok else None
