"""The decision rule: allow, block or give up (pure function, stdlib only).

A gate that blocks, or that errors under `on_error: closed`, counts against the stop. While the
session prompt's block budget lasts the stop is blocked with a reason built from those gates'
feedback; once it is spent the stop is allowed (give_up) and the user is warned via systemMessage.
With the honest exit on (hook/honest.py), a block reason says how to report a test that contradicts
the request, and a stop that makes such a claim is allowed (`honest`), the user told in systemMessage.
"""

from __future__ import annotations

from gatebench.common.text import trim


class Decision:
    __slots__ = ("counted", "decision", "honest", "reason", "system_message")

    def __init__(self, decision: str, reason: str | None, system_message: str | None, counted: list[str],
                 honest: bool = False):
        self.decision = decision  # allow | block | give_up
        self.reason = reason
        self.system_message = system_message
        self.counted = counted  # gates whose verdict counted against the stop
        self.honest = honest  # allowed through the honest exit although gates objected


def build_reason(items: list[tuple[str, str]], attempt: int, block_no: int, budget: int, limit: int) -> str:
    # Claude Code shows every block as "stop hook problem": the first line is what the gate found.
    found = items[0][1].strip().split("\n", 1)[0] if items else ""
    more = f" (and {len(items) - 1} more gate{'s' if len(items) > 2 else ''})" if len(items) > 1 else ""
    head = (
        f"gatebench stop gate: {trim(found, 300)}{more}\n"
        f"Your work is not accepted yet (stop attempt {attempt}, block {block_no} of at most {budget}). "
        "Address the points below, then finish.\n"
    )
    room = max(limit - len(head), 100)
    share = max(room // max(len(items), 1) - 20, 80)
    body = "".join(f"\n## {name}\n{trim(text.strip(), share)}\n" for name, text in items)
    return trim(head + body, limit).rstrip()


def decide(
    verdicts: list[tuple[str, dict]],
    *,
    blocks_so_far: int,
    budget: int,
    on_error: str,
    attempt: int,
    reason_chars: int,
    honest_exit: bool = False,
    claim: dict | None = None,
    installed: bool = False,
) -> Decision:
    """`verdicts` are (gate name, {"verdict", "feedback", "details"}) in run order. `honest_exit`: the config's
    switch; `claim`: what hook/honest.claim found in this stop (its `tests` non-empty), honoured only when on."""
    counted: list[tuple[str, str]] = []
    errors: list[str] = []
    for name, v in verdicts:
        if v["verdict"] == "block":
            counted.append((name, v.get("feedback") or f"gate {name} blocked without feedback"))
        elif v["verdict"] == "error":
            why = (v.get("details") or {}).get("error", "unknown error")
            errors.append(f"{name}: {why}")
            if on_error == "closed":
                counted.append((name, f"The {name} check could not run ({why}). Make sure the project runs."))
    err_note = f"gatebench: gate errors ({'; '.join(errors)[:500]})" if errors else None
    names = [n for n, _ in counted]
    if not counted:
        msg = f"{err_note}; the stop was allowed (on_error: open)" if err_note else None
        return Decision("allow", None, msg, names)
    if honest_exit and claim and claim.get("tests"):
        from gatebench.hook.honest import user_message

        msg = user_message(claim, names) + (f" {err_note}" if err_note else "")
        return Decision("allow", None, msg, names, honest=True)
    if blocks_so_far < budget:
        hint = ""
        if honest_exit:
            from gatebench.hook.honest import hint as exit_hint

            hint = exit_hint(installed)
        reason = build_reason(counted, attempt, blocks_so_far + 1, budget, max(reason_chars - len(hint), 200)) + hint
        return Decision("block", reason, err_note, names)
    msg = (
        f"gatebench: block budget of {budget} spent; the stop was allowed although these gates "
        f"still object: {', '.join(names)}."
    )
    if err_note:
        msg += f" {err_note}"
    return Decision("give_up", None, msg, names)
