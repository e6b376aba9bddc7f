"""The scripted model behind the fake Messages API: the Brain protocol, request readers, brains.

Standard library only: the sim server runs next to the Stop hook and must start fast.

A brain gets each /v1/messages request body (a dict, exactly as Claude Code sent it) and
returns a `Turn`: the content blocks the "model" answers with and the stop reason. The server
turns that into SSE, assigns tool_use ids and counts tokens; brains never see the wire.

Script format (JSON) read by `ScriptBrain.from_data` / `load_brain`::

    {
      "steps": [
        {"on": "start", "turns": [
          {"content": [{"type": "text", "text": "Writing it."},
                       {"type": "tool_use", "name": "Write",
                        "input": {"file_path": "{cwd}/hello.py", "content": "print(1)\\n"}}]},
          {"content": [{"type": "text", "text": "Done."}]}
        ]},
        {"on": "stop_feedback", "contains": "GATE", "turns": [...]},
        {"on": "stop_feedback", "times": 3, "turns": [...]}
      ],
      "fallback": {"content": [{"type": "text", "text": "Nothing more to do."}]}
    }

- A request is one of these events: `start` (no assistant message yet), `stop_feedback`
  (the newest user message carries "Stop hook feedback:"), `tool_result` (it carries tool
  results), `other`. `on` may also be `any`.
- On each request that is not the continuation of a step, the brain plays the FIRST step in
  list order that is not used up (`times`, default 1) and whose `on` matches the event and whose
  `contains` (optional) is a substring of the event's text: the prompt for `start`, the hook's
  reason for `stop_feedback`, the tool results' content for `tool_result`, the newest user
  text otherwise. List order is priority: put specific steps before catch-alls.
- A step plays its turns one per request. Every turn but the last must call a tool (the CLI
  then answers with the tool results, which continue the step). The last turn may end the turn
  (`end_turn`) or call a tool, in which case the next step is chosen by that tool result.
- `stop_reason` of a turn is inferred (`tool_use` if it has a tool_use block, else `end_turn`).
- In every string of a turn, `{cwd}` becomes the CLI's working directory (read from the
  request's environment block) and `{feedback}` the newest stop-hook reason (empty if none).
  Plain text replacement, no other braces are touched. Tools that take a path want it absolute.
- When no step matches, `fallback` is played (default: a short text, `end_turn`).
- Router form: `{"routes": [{"prompt_contains": "MARKER", "script": {...}}], "default": {...}}`
  sends a request to the first route whose marker is in the first user message (the prompt of
  that `claude -p` process), else to `default`. Each script keeps its own state.

Claude Code facts a script must respect: Write over an existing file and Edit both fail with a
tool error unless the file was Read earlier in the same session.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

STOP_FEEDBACK_MARK = "Stop hook feedback:"
STOP_REASONS = ("end_turn", "tool_use")
EVENTS = ("start", "stop_feedback", "tool_result", "other")
TRIGGERS = (*EVENTS, "any")
DEFAULT_FALLBACK_TEXT = "[sim] the script has no step for this request."


@dataclass(frozen=True)
class Turn:
    """One scripted model reply. `note` is free text for the request log (which step played)."""

    content: list[dict[str, Any]]
    stop_reason: str = "end_turn"
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"content": self.content, "stop_reason": self.stop_reason, "note": self.note}


def text_turn(text: str, note: str = "") -> Turn:
    return Turn(content=[{"type": "text", "text": text}], stop_reason="end_turn", note=note)


def tool_turn(name: str, tool_input: dict[str, Any], text: str = "", note: str = "") -> Turn:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content.append({"type": "tool_use", "name": name, "input": tool_input})
    return Turn(content=content, stop_reason="tool_use", note=note)


class Brain(Protocol):
    def respond(self, request: dict) -> Turn: ...


# ---------------------------------------------------------------- request readers (pure)


def _messages(request: dict) -> list[dict]:
    msgs = request.get("messages")
    return [m for m in msgs if isinstance(m, dict)] if isinstance(msgs, list) else []


def _blocks(message: dict) -> list[dict]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def message_text(message: dict) -> str:
    """The text blocks of one message joined by newlines (tool results are not text)."""
    return "\n".join(b.get("text", "") for b in _blocks(message) if b.get("type") == "text")


def newest_user_messages(request: dict) -> list[dict]:
    """User messages after the last assistant message: what the CLI sends back this time.

    A stop-hook block adds a user message and then a `system` one, so "the last message" is
    not enough; everything since the model last spoke is the newest input.
    """
    msgs = _messages(request)
    last_assistant = max((i for i, m in enumerate(msgs) if m.get("role") == "assistant"), default=-1)
    return [m for m in msgs[last_assistant + 1 :] if m.get("role") == "user"]


def first_user_text(request: dict) -> str:
    """Text of the first user message: the `-p` prompt (2.1.332 puts a system-reminder before it)."""
    for m in _messages(request):
        if m.get("role") == "user":
            return message_text(m)
    return ""


def last_user_text(request: dict) -> str:
    return "\n".join(message_text(m) for m in newest_user_messages(request))


def assistant_turns(request: dict) -> int:
    return sum(1 for m in _messages(request) if m.get("role") == "assistant")


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def tool_results(request: dict) -> list[dict[str, Any]]:
    """Tool results in the newest user messages: [{tool_use_id, content (str), is_error (bool)}]."""
    found = []
    for m in newest_user_messages(request):
        for b in _blocks(m):
            if b.get("type") == "tool_result":
                found.append(
                    {
                        "tool_use_id": b.get("tool_use_id", ""),
                        "content": _result_text(b.get("content")),
                        "is_error": bool(b.get("is_error", False)),
                    }
                )
    return found


def has_tool_results(request: dict) -> bool:
    return bool(tool_results(request))


def _feedback_of(text: str) -> str:
    # Keep only what follows the mark; the wrapper around it changes between CLI versions.
    after = text.split(STOP_FEEDBACK_MARK, 1)[1]
    after = after.split("</system-reminder>", 1)[0]
    return after.strip()


def stop_feedback(request: dict) -> str | None:
    """The stop hook's reason if the newest user input is stop-hook feedback, else None.

    For a JSON block this is the hook's `reason` verbatim; for an exit-2 block it is
    `[<command>]: <stderr>`. Match on substrings, never on the whole text.
    """
    for m in reversed(newest_user_messages(request)):
        text = message_text(m)
        if STOP_FEEDBACK_MARK in text:
            return _feedback_of(text)
    return None


def is_stop_feedback(request: dict) -> bool:
    return stop_feedback(request) is not None


def stop_feedback_count(request: dict) -> int:
    """How many stop-hook feedbacks the whole conversation holds so far (including the newest)."""
    return sum(
        1 for m in _messages(request) if m.get("role") == "user" and STOP_FEEDBACK_MARK in message_text(m)
    )


_CWD_RE = re.compile(r"Primary working directory:\s*(\S.*?)\s*$", re.MULTILINE)


def request_cwd(request: dict) -> str | None:
    """The CLI's working directory, from its environment block (a `system` message or `system`)."""
    texts = [message_text(m) for m in _messages(request) if m.get("role") == "system"]
    system = request.get("system")
    if isinstance(system, str):
        texts.append(system)
    elif isinstance(system, list):
        texts.extend(b.get("text", "") for b in system if isinstance(b, dict))
    for text in texts:
        found = _CWD_RE.search(text)
        if found:
            return found.group(1)
    return None


def event_of(request: dict) -> str:
    """Classify a request: start, stop_feedback, tool_result or other (see the module doc)."""
    if assistant_turns(request) == 0:
        return "start"
    if is_stop_feedback(request):
        return "stop_feedback"
    if has_tool_results(request):
        return "tool_result"
    return "other"


def event_text(request: dict, event: str) -> str:
    """The text a step's `contains` is matched against for this event."""
    if event == "start":
        return first_user_text(request)
    if event == "stop_feedback":
        return stop_feedback(request) or ""
    if event == "tool_result":
        return "\n".join(r["content"] for r in tool_results(request))
    return last_user_text(request)


# ---------------------------------------------------------------- router

Predicate = Callable[[dict], bool]


def prompt_contains(marker: str) -> Predicate:
    def predicate(request: dict) -> bool:
        return marker in first_user_text(request)

    return predicate


@dataclass
class Router:
    """Sends each request to the first brain whose predicate holds, else to `default`.

    Used to serve a worker and its reviewers (separate `claude -p` processes) from one server.
    """

    routes: Sequence[tuple[str, Predicate, Brain]]
    default: Brain
    default_name: str = "default"

    def respond(self, request: dict) -> Turn:
        name, brain = self.default_name, self.default
        for route_name, predicate, route_brain in self.routes:
            if predicate(request):
                name, brain = route_name, route_brain
                break
        turn = brain.respond(request)
        note = f"{name}: {turn.note}" if turn.note else name
        return Turn(content=turn.content, stop_reason=turn.stop_reason, note=note)


# ---------------------------------------------------------------- script brain


class ScriptError(ValueError):
    """A script is malformed; the message names the source and the field."""


@dataclass(frozen=True)
class Step:
    on: str
    turns: tuple[Turn, ...]
    contains: str | None = None
    times: int = 1


def _object(data: Any, keys: set[str], where: str) -> dict[str, Any]:
    """`data` as a dict holding only `keys`, else a ScriptError naming where and what."""
    if not isinstance(data, dict):
        raise ScriptError(f"{where}: expected an object, got {type(data).__name__}")
    extra = set(data) - keys
    if extra:
        raise ScriptError(f"{where}: unknown key(s) {sorted(extra)}")
    return data


def _check_block(block: Any, where: str) -> dict[str, Any]:
    if not isinstance(block, dict):
        raise ScriptError(f"{where}: expected an object, got {type(block).__name__}")
    kind = block.get("type")
    if kind == "text":
        if not isinstance(block.get("text"), str):
            raise ScriptError(f"{where}.text: expected a string")
        extra = set(block) - {"type", "text"}
    elif kind == "tool_use":
        if not isinstance(block.get("name"), str) or not block["name"]:
            raise ScriptError(f"{where}.name: expected a non-empty tool name")
        if not isinstance(block.get("input"), dict):
            raise ScriptError(f"{where}.input: expected an object")
        extra = set(block) - {"type", "name", "input"}
    else:
        raise ScriptError(f"{where}.type: expected 'text' or 'tool_use', got {kind!r}")
    if extra:
        raise ScriptError(f"{where}: unknown key(s) {sorted(extra)}")
    return block


def _parse_turn(data: Any, where: str) -> Turn:
    data = _object(data, {"content", "stop_reason"}, where)
    content = data.get("content")
    if not isinstance(content, list) or not content:
        raise ScriptError(f"{where}.content: expected a non-empty list of blocks")
    blocks = [_check_block(b, f"{where}.content[{i}]") for i, b in enumerate(content)]
    calls_tool = any(b["type"] == "tool_use" for b in blocks)
    stop = data.get("stop_reason", "tool_use" if calls_tool else "end_turn")
    if stop not in STOP_REASONS:
        raise ScriptError(f"{where}.stop_reason: expected one of {list(STOP_REASONS)}, got {stop!r}")
    if (stop == "tool_use") != calls_tool:
        raise ScriptError(
            f"{where}.stop_reason: {stop!r} does not fit a turn that {'calls' if calls_tool else 'calls no'} tool"
        )
    return Turn(content=blocks, stop_reason=stop)


def _parse_step(data: Any, where: str) -> Step:
    data = _object(data, {"on", "contains", "times", "turns"}, where)
    on = data.get("on")
    if on not in TRIGGERS:
        raise ScriptError(f"{where}.on: expected one of {list(TRIGGERS)}, got {on!r}")
    contains = data.get("contains")
    if contains is not None and not isinstance(contains, str):
        raise ScriptError(f"{where}.contains: expected a string")
    times = data.get("times", 1)
    if not isinstance(times, int) or isinstance(times, bool) or times < 1:
        raise ScriptError(f"{where}.times: expected an integer >= 1, got {times!r}")
    raw_turns = data.get("turns")
    if not isinstance(raw_turns, list) or not raw_turns:
        raise ScriptError(f"{where}.turns: expected a non-empty list of turns")
    turns = tuple(_parse_turn(t, f"{where}.turns[{i}]") for i, t in enumerate(raw_turns))
    for i, turn in enumerate(turns[:-1]):
        if turn.stop_reason != "tool_use":
            # The CLI only comes back within the same step after a tool call.
            raise ScriptError(f"{where}.turns[{i}]: every turn but the last must call a tool")
    return Step(on=on, turns=turns, contains=contains, times=times)


def _substitute(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        for key, repl in names.items():
            value = value.replace("{" + key + "}", repl)
        return value
    if isinstance(value, list):
        return [_substitute(v, names) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, names) for k, v in value.items()}
    return value


class ScriptBrain:
    """Plays a declarative script (see the module doc). Not thread-safe: the server serializes calls."""

    def __init__(self, steps: Sequence[Step], fallback: Turn | None = None):
        self.steps = tuple(steps)
        self.fallback = fallback or text_turn(DEFAULT_FALLBACK_TEXT)
        self.used = [0] * len(self.steps)
        self._pending: list[tuple[int, int]] = []  # (step, turn) still to play in the current step
        self.played: list[str] = []  # one note per request, for tests and logs

    @classmethod
    def from_data(cls, data: Any, source: str = "script") -> ScriptBrain:
        data = _object(data, {"steps", "fallback"}, source)
        raw_steps = data.get("steps")
        if not isinstance(raw_steps, list) or not raw_steps:
            raise ScriptError(f"{source}: steps: expected a non-empty list")
        steps = [_parse_step(s, f"{source}: steps[{i}]") for i, s in enumerate(raw_steps)]
        fallback = None
        if "fallback" in data:
            fallback = _parse_turn(data["fallback"], f"{source}: fallback")
        return cls(steps, fallback)

    def _choose(self, request: dict) -> tuple[int, int] | None:
        if self._pending:
            return self._pending.pop(0)
        event = event_of(request)
        text = event_text(request, event)
        for i, step in enumerate(self.steps):
            if self.used[i] >= step.times or step.on not in (event, "any"):
                continue
            if step.contains is not None and step.contains not in text:
                continue
            self.used[i] += 1
            self._pending = [(i, j) for j in range(1, len(step.turns))]
            return (i, 0)
        return None

    def respond(self, request: dict) -> Turn:
        chosen = self._choose(request)
        if chosen is None:
            turn, note = self.fallback, "fallback"
        else:
            i, j = chosen
            turn, note = self.steps[i].turns[j], f"step {i} turn {j}"
        cwd = request_cwd(request)
        if cwd is None and "{cwd}" in json.dumps(turn.content):
            # An empty {cwd} would turn "{cwd}/a.py" into "/a.py": refuse rather than write there.
            raise ScriptError(f"{note}: the turn uses {{cwd}} but the request names no working directory")
        names = {"cwd": cwd or "", "feedback": stop_feedback(request) or ""}
        content = _substitute(copy.deepcopy(turn.content), names)
        self.played.append(note)
        return Turn(content=content, stop_reason=turn.stop_reason, note=note)


def brain_from_data(data: Any, source: str = "script") -> Brain:
    """A ScriptBrain, or a Router of ScriptBrains for the `routes` form (see the module doc)."""
    if isinstance(data, dict) and "routes" in data:
        data = _object(data, {"routes", "default"}, source)
        routes_data = data["routes"]
        if not isinstance(routes_data, list) or not routes_data:
            raise ScriptError(f"{source}: routes: expected a non-empty list")
        routes = []
        for i, r in enumerate(routes_data):
            where = f"{source}: routes[{i}]"
            if not isinstance(r, dict) or set(r) != {"prompt_contains", "script"}:
                raise ScriptError(f"{where}: expected an object with exactly 'prompt_contains' and 'script'")
            marker = r["prompt_contains"]
            if not isinstance(marker, str) or not marker:
                raise ScriptError(f"{where}.prompt_contains: expected a non-empty string")
            routes.append(
                (f"route {i}", prompt_contains(marker), ScriptBrain.from_data(r["script"], f"{where}.script"))
            )
        if "default" not in data:
            raise ScriptError(f"{source}: default: missing (the script for requests no route matches)")
        return Router(routes, ScriptBrain.from_data(data["default"], f"{source}: default"))
    return ScriptBrain.from_data(data, source)


def load_brain(path: Path) -> Brain:
    """Read a script file; errors name the file and the field."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScriptError(f"{path}: file not found")
    except (OSError, UnicodeDecodeError) as e:
        raise ScriptError(f"{path}: cannot read: {e}")
    except json.JSONDecodeError as e:
        raise ScriptError(f"{path}: not valid JSON: {e}")
    return brain_from_data(data, str(path))


__all__ = [
    "Brain",
    "Router",
    "ScriptBrain",
    "ScriptError",
    "Step",
    "Turn",
    "assistant_turns",
    "brain_from_data",
    "event_of",
    "event_text",
    "first_user_text",
    "has_tool_results",
    "is_stop_feedback",
    "last_user_text",
    "load_brain",
    "message_text",
    "newest_user_messages",
    "prompt_contains",
    "request_cwd",
    "stop_feedback",
    "stop_feedback_count",
    "text_turn",
    "tool_results",
    "tool_turn",
]
