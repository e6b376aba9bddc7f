"""What pytest reads from its configuration files: the one reader the harness and the test policy share (stdlib only).

The rules are pytest 9's own (`_pytest/config/findpaths.py`, `CONFIG_LOADERS_BY_NAME`), written in SPEC.md
section 8 ("Pytest configuration"). At each folder pytest tries `NAMES` in this order and takes the first
that gives it configuration. The four dedicated files (`ALWAYS`) are the configuration even when empty; a
`pyproject.toml`, `tox.ini` or `setup.cfg` only through its pytest section (`SHARED`). INI files are read
as pytest's parser reads them: option names keep their case, a second section or option of one name is an
error, `[DEFAULT]` is a section like any other, no inline comments, no interpolation.
"""

from __future__ import annotations

NAMES = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
ALWAYS = frozenset(NAMES[:4])
SHARED = frozenset(NAMES[4:])
INI_SECTION = {"pytest.ini": "pytest", ".pytest.ini": "pytest", "tox.ini": "pytest", "setup.cfg": "tool:pytest"}
_NO_DEFAULT = "\0no default section"  # configparser's DEFAULT would leak into every section; pytest has none


class Unparsable(ValueError):
    """pytest would refuse this file (it does not parse, or holds what pytest rejects)."""


def is_config(rel: str) -> bool:
    return rel.rsplit("/", 1)[-1] in NAMES


def options(name: str, data: bytes) -> dict | None:
    """The options pytest reads from a config file called `name`: a dict (empty for a dedicated file that
    sets none), or None when the file gives pytest no configuration. Raises Unparsable."""
    try:
        text = data.decode("utf-8")  # pytest reads its config as UTF-8, strictly
    except UnicodeDecodeError as e:
        raise Unparsable(f"not UTF-8: {e}") from None
    if name.endswith(".toml"):
        return _toml(name, text)
    return _ini(name, text)


def gives_config(name: str, data: bytes) -> bool:
    """Whether pytest, searching a folder, stops at this file: it gives configuration, or pytest refuses it
    (and then fails on it, as the run under it must)."""
    try:
        return options(name, data) is not None
    except Unparsable:
        return True


def _toml(name: str, text: str) -> dict | None:
    import tomllib

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise Unparsable(str(e)) from None
    if name != "pyproject.toml":
        table = doc.get("pytest")
        if table is None and any(not isinstance(v, dict) for v in doc.values()):
            raise Unparsable("options outside the [pytest] table")
        return _table(table, "[pytest]") or {}
    tool = doc.get("tool", {})
    if not isinstance(tool, dict):
        raise Unparsable("`tool` is not a table")
    return _table(tool.get("pytest"), "[tool.pytest]") or None


def _table(value: object, what: str) -> dict | None:
    if value is not None and not isinstance(value, dict):
        raise Unparsable(f"{what} is not a table")
    return value


def _ini(name: str, text: str) -> dict | None:
    import configparser

    parser = configparser.RawConfigParser(strict=True, default_section=_NO_DEFAULT, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # pytest's option names keep their case
    try:
        parser.read_string(text)
    except configparser.Error as e:
        raise Unparsable(str(e).splitlines()[0]) from None
    section = INI_SECTION.get(name, "pytest")
    if parser.has_section(section):
        return dict(parser.items(section))
    if name == "setup.cfg" and parser.has_section("pytest"):
        raise Unparsable("[pytest] in setup.cfg (pytest wants [tool:pytest] and fails on it)")
    return {} if name in ALWAYS else None


def same(name: str, a: bytes | None, b: bytes | None) -> bool:
    """Whether pytest reads the same configuration from two versions of a file (None: no file). A file
    pytest refuses is the same only as itself, byte for byte."""
    if a == b:
        return True
    try:
        return (None if a is None else options(name, a)) == (None if b is None else options(name, b))
    except Unparsable:
        return False
