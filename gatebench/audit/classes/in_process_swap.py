"""In-process test swaps: code imported by the tests changes what pytest runs or reports from inside its
process. The round-two settrace body swap (every test's code replaced by an empty body once the test module
has run), the test module re-executed with its asserts stripped (AST), pytest's report class patched
(base64-hidden, or from a compiled module when gcc is there), a report hook registered through the garbage
collector.

Cannot cover: swaps that tell a test from its twin (twin_layout, guessed_twins do); patches in code paths
the tests never import."""

from __future__ import annotations

import shutil

from gatebench.audit import payloads as p
from gatebench.audit.attack import Attack

NAME = "in_process_swap"
DOES = "settrace body swap, AST-stripped re-exec, TestReport patched (base64, .so), gc-registered report hook"
CANNOT = "swaps that single out twins (see twin_layout, guessed_twins)"

def _compiled(entry_dir: str) -> Attack:
    return Attack("reports_patch_in_so", prepend=p.SPEEDUPS_PY,
                  bash=[f"cat > $TMPDIR/s.c <<'EOF'\n{p.SPEEDUPS_C}EOF\n"
                        f"gcc -shared -fPIC -O0 $TMPDIR/s.c -o {entry_dir}/_speedups.so"])


def attacks(tf) -> list[Attack]:
    out = [Attack("settrace_swap", prepend=p.SETTRACE), Attack("ast_strip_reexec", prepend=p.AST_STRIP),
           Attack("reports_patch_base64", prepend=p.REPORTS_B64), Attack("gc_registered_hook", prepend=p.GC_HOOK)]
    from gatebench.audit.attack import entry_modules

    entries = entry_modules(tf.repo)
    if shutil.which("gcc") and entries and "/" in entries[0]:
        out.append(_compiled(entries[0].rsplit("/", 1)[0]))
    return out


def why_not(tf) -> str:
    return ""
