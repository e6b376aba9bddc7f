"""A plugin's own model calls, told apart from the agent's and answered by a stated policy (SPEC.md section 14).

A plugin that calls a model (TDD Guard's validator runs `claude -p` or the Agent SDK against the
ANTHROPIC_BASE_URL its hooks inherit) reaches the same fake API as the agent. Such a request is not the
agent's session: its CLI runs in another working directory (TDD Guard's in `<repo>/.claude`), or it sends no
environment block at all (a direct API call), or it does not carry the task's prompt. Answering it as an agent turn (a tool call, a prose reply) makes the plugin
fail (`Reached maximum number of turns (1)`, `did not return valid JSON`), which then reads as a denial.

Policies (`plugin_calls` of configs/sim/*.yaml):
- `approve`: one text turn in the shape the call asks for: when its text asks for a JSON object with a
  `decision` field (TDD Guard's validator: `{"decision": "block" | null, "reason": ...}`), that object with
  decision null; otherwise the text `OK`. The plugin's judgement is then the sim's, stated as such.
- `unscorable`: an API error (HTTP 400) naming the policy: the plugin fails, its decision is a
  plugin_error (cell/arms.py), and the report says its gate could not be measured offline.
Standard library only.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from gatebench.sim.brain import Turn, first_user_text, message_text, request_cwd, text_turn
from gatebench.sim.server import ApiError

POLICIES = ("approve", "unscorable")
_DECISION_RE = re.compile(r'"decision"\s*:', re.IGNORECASE)
APPROVE_REASON = "gatebench sim (plugin_calls: approve): no objection; this verdict is simulated"


def _all_text(request: dict) -> str:
    system = request.get("system")
    parts = [system] if isinstance(system, str) else [b.get("text", "") for b in system or [] if isinstance(b, dict)]
    return "\n".join([*parts, *(message_text(m) for m in request.get("messages") or [] if isinstance(m, dict))])


def asks_for_decision(request: dict) -> bool:
    return bool(_DECISION_RE.search(_all_text(request)))


def answer(policy: str, request: dict) -> Turn:
    """The policy's answer to one plugin model call."""
    if policy == "unscorable":
        raise ApiError(400, "invalid_request_error", "gatebench sim: a plugin's own model call is not simulated "
                                                     "(plugin_calls: unscorable)")
    if asks_for_decision(request):
        return text_turn(json.dumps({"decision": None, "reason": APPROVE_REASON}), note="plugin call: approve")
    return text_turn("OK", note="plugin call: approve")


@dataclass
class PluginCalls:
    """A Router route: `is_plugin_call` tells a plugin's request from the agent's; `respond` answers it."""

    policy: str
    agent_cwd: str | None = None
    agent_prompt: str | None = None
    calls: list[dict] = field(default_factory=list)

    def is_plugin_call(self, request: dict) -> bool:
        """Another working directory than the agent's, or none (a direct API call: the agent's CLI always sends
        its environment block), or, when the agent's prompt is known, a first message without it."""
        cwd = request_cwd(request)
        if self.agent_cwd and (cwd is None or os.path.realpath(cwd) != os.path.realpath(self.agent_cwd)):
            return True  # realpath: the CLI may name the work copy through a link (/tmp -> /private/tmp)
        prompt = (self.agent_prompt or "").strip()[:200]
        return bool(prompt) and prompt not in first_user_text(request)

    def respond(self, request: dict) -> Turn:
        self.calls.append({"cwd": request_cwd(request), "policy": self.policy,
                           "asks_for_decision": asks_for_decision(request)})
        return answer(self.policy, request)

    def truth(self) -> dict:
        return {"policy": self.policy, "calls": len(self.calls),
                "answered": len(self.calls) if self.policy == "approve" else 0}
