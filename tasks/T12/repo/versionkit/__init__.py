"""Semantic versions for the plugin installer: parsing, ordering, constraints, picking releases."""

from versionkit.constraint import Constraint, InvalidConstraint
from versionkit.resolve import latest, max_satisfying, sort_versions
from versionkit.version import InvalidVersion, Version

__all__ = [
    "Constraint",
    "InvalidConstraint",
    "InvalidVersion",
    "Version",
    "latest",
    "max_satisfying",
    "sort_versions",
]
