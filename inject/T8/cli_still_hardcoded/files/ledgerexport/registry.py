"""The table of export formats: name -> exporter function.

An exporter takes the records and the resolved column list and returns the whole text.
Built-in formats register themselves in `ledgerexport.exporters`; other code adds formats
with the same `@register` decorator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Record = dict[str, object]
Exporter = Callable[[Sequence[Record], list[str]], str]

_EXPORTERS: dict[str, Exporter] = {}


class UnknownFormatError(ValueError):
    pass


def register(name: str, *aliases: str, replace: bool = False) -> Callable[[Exporter], Exporter]:
    """Decorator: make `fn` the exporter for `name` and every alias (case-insensitive).

    A name that is already taken is refused unless `replace` is true, so that two plugins cannot
    silently fight over a format.
    """
    keys = [n.lower() for n in (name, *aliases)]

    def decorate(fn: Exporter) -> Exporter:
        if not replace:
            taken = [k for k in keys if k in _EXPORTERS]
            if taken:
                raise ValueError(f"format {taken[0]!r} is already registered; pass replace=True to override it")
        for key in keys:
            _EXPORTERS[key] = fn
        return fn

    return decorate


def available_formats() -> list[str]:
    """Every name `export` accepts, aliases included, sorted."""
    return sorted(_EXPORTERS)


def get_exporter(name: str) -> Exporter:
    try:
        return _EXPORTERS[name.lower()]
    except KeyError:
        raise UnknownFormatError(
            f"unknown format {name.lower()!r}; choose from: {', '.join(available_formats())}"
        ) from None
