"""The code's shape, checked on the source (SPEC.md section 1, "Shape"): no function in gatebench/ is longer than
MAX_LINES lines or more complex than MAX_COMPLEXITY (mccabe, as ruff's C901 counts it), except those named in
EXCEPTIONS with the reason they stay whole."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parent.parent / "gatebench"
MAX_LINES = 80
MAX_COMPLEXITY = 15

# "module:function" -> why it stays over a limit. The one place exceptions are named; an entry whose function
# is back under the limits (or gone) fails the test, so this list only shrinks.
EXCEPTIONS: dict[str, str] = {}


def ruff() -> list[str]:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.skip("ruff is not installed")  # pragma: no cover - a dev dependency, always there in CI
    return [exe]


def too_long(root: Path) -> dict[str, int]:
    """`module:function` -> lines (def line through last line, decorators excluded) for each function over
    MAX_LINES; nested functions count in their parent and are not listed themselves."""
    out = {}
    for f in sorted(root.rglob("*.py")):
        mod = f.relative_to(root).with_suffix("").as_posix().replace("/", ".")
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (n.end_lineno or n.lineno) - n.lineno + 1
                if lines > MAX_LINES:
                    out.setdefault(f"{mod}:{n.name}", lines)
    return out


def too_complex(root: Path) -> dict[str, int]:
    """`module:function` -> mccabe complexity for each function over MAX_COMPLEXITY, from ruff's C901."""
    r = subprocess.run([*ruff(), "check", "--isolated", "--select", "C901", "--output-format", "json",
                        "--config", f"lint.mccabe.max-complexity={MAX_COMPLEXITY}", str(root)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode in (0, 1), r.stderr
    out = {}
    for v in json.loads(r.stdout or "[]"):
        mod = Path(v["filename"]).resolve().relative_to(root.resolve()).with_suffix("").as_posix().replace("/", ".")
        name = v["message"].split("`")[1]
        out[f"{mod}:{name}"] = int(v["message"].rsplit("(", 1)[1].split()[0])
    return out


def over_limits(root: Path) -> dict[str, str]:
    out = {k: f"{n} lines > {MAX_LINES}" for k, n in too_long(root).items()}
    for k, c in too_complex(root).items():
        out[k] = (out[k] + ", " if k in out else "") + f"complexity {c} > {MAX_COMPLEXITY}"
    return out


def test_no_function_passes_the_limits_without_a_named_exception():
    over = over_limits(PKG)
    unnamed = {k: v for k, v in over.items() if k not in EXCEPTIONS}
    assert not unnamed, "over the limits (reshape it, or name it in EXCEPTIONS with why):\n" + "\n".join(
        f"  {k}: {v}" for k, v in sorted(unnamed.items()))
    stale = sorted(set(EXCEPTIONS) - set(over))
    assert not stale, f"EXCEPTIONS names functions that are within the limits now (remove them): {stale}"


def test_the_check_finds_a_long_function_and_a_complex_one_and_passes_a_small_one(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    branches = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(MAX_COMPLEXITY))
    (tmp_path / "m.py").write_text(f"def long():\n{body}\n\n\ndef branchy(x):\n{branches}\n    return -1\n\n\n"
                                   "def small(x):\n    if x:\n        return 1\n    return 0\n")
    over = over_limits(tmp_path)
    assert over == {"m:long": f"{MAX_LINES + 1} lines > {MAX_LINES}",
                    "m:branchy": f"complexity {MAX_COMPLEXITY + 1} > {MAX_COMPLEXITY}"}
