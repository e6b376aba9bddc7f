"""JSON for the hook's hot path through CPython's C accelerator `_json` alone (stdlib only).

`import json` pulls in `re` and with it enum, functools and collections: about a third of what a
no-gate stop spends importing. `_json` is what `json` itself calls for these cases (C scanner, C
encoder with ensure_ascii), so the output is the same; without `_json` this falls back to `json`.
Errors: `loads` raises ValueError (as json.JSONDecodeError is one), `dumps` TypeError.
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # another interpreter: the plain module
    _json = None  # type: ignore[assignment]

_WS = " \t\n\r"


class _Context:
    """The attributes the C scanner reads from a json.JSONDecoder (its defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scan = _json.make_scanner(_Context()) if _json else None  # type: ignore[arg-type]


def loads(s: str | bytes) -> object:
    if _scan is None:
        import json

        return json.loads(s)
    if isinstance(s, bytes):
        s = s.decode("utf-8")
    s = s.strip(_WS)
    try:
        obj, end = _scan(s, 0)
        if end == len(s):
            return obj
    except (StopIteration, ValueError, SystemError):
        # The C scanner reports errors through json.decoder, which it does not import itself: let
        # `json` say what is wrong (a json.JSONDecodeError, a ValueError), paying its import only here.
        pass
    import json

    return json.loads(s)


def _no_default(o: object) -> object:
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def dumps(obj: object, default=None, compact: bool = False) -> str:
    """json.dumps(obj, default=default[, separators=(",", ":") if compact]); ensure_ascii, no indent."""
    if _json is None:
        import json

        return json.dumps(obj, default=default, separators=(",", ":") if compact else None)
    enc = _json.make_encoder({}, default or _no_default, _json.encode_basestring_ascii, None,
                             ":" if compact else ": ", "," if compact else ", ", False, False, True)
    return "".join(enc(obj, 0))


def read(path: str) -> object:
    with open(path, encoding="utf-8") as f:
        return loads(f.read())
