"""A fake Anthropic Messages API on 127.0.0.1 that answers Claude Code with a Brain's turns.

Standard library only. It speaks exactly the SSE the real CLI accepted (see
shared/claude-code/README.md, "SSE the CLI accepted"): message_start (usage with input and
cache tokens), ping, content_block_start/delta/stop (text_delta, input_json_delta),
message_delta (stop_reason, output_tokens), message_stop; HTTP/1.1, `Connection: close`, no
Content-Length. Non-stream requests get the same message as one JSON object.

Token usage is a pure function of the request bytes and the reply (see `usage_for`), so a test
can check that the CLI's own totals equal what this server reported, to the token.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from gatebench.sim.brain import Brain, Turn, assistant_turns

HOST = "127.0.0.1"
MESSAGES_PATH = "/v1/messages"
CHARS_PER_TOKEN = 4
DEFAULT_CHUNK = 40  # split text and tool input over several deltas, as the real API does
LOGGED_HEADERS = (
    "user-agent",
    "anthropic-version",
    "anthropic-beta",
    "x-claude-code-session-id",
    "x-app",
    "x-stainless-retry-count",
    "content-type",
    "content-length",
)
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _tokens(n_chars: int) -> int:
    return -(-n_chars // CHARS_PER_TOKEN)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def usage_for(raw_body: bytes, body: dict, content: list[dict]) -> dict[str, int]:
    """Deterministic usage for one request and its reply.

    All prompt tokens are ceil(len(raw_body) / 4). The `system` + `tools` prefix counts as
    cached: written on a session's first request (no assistant message yet), read on the others,
    so the CLI's cache counters are exercised with known values. Output is ceil(len(reply)/4).
    """
    total_in = max(2, _tokens(len(raw_body)))
    prefix = (
        _tokens(len(_dumps([body.get("system"), body.get("tools")])))
        if body.get("tools") or body.get("system")
        else 0
    )
    prefix = min(prefix, total_in - 1)
    first = assistant_turns(body) == 0
    return {
        "input_tokens": total_in - prefix,
        "output_tokens": max(1, _tokens(len(_dumps(content)))),
        "cache_creation_input_tokens": prefix if first else 0,
        "cache_read_input_tokens": 0 if first else prefix,
    }


def check_turn(turn: object) -> None:
    """Refuse what the SSE encoder cannot send, instead of streaming something half-formed."""
    if not isinstance(turn, Turn):
        raise TypeError(f"brain returned {type(turn).__name__}, not Turn")
    for i, block in enumerate(turn.content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            continue
        if kind == "tool_use" and isinstance(block.get("name"), str) and isinstance(block.get("input"), dict):
            continue
        raise TypeError(f"turn content[{i}] is not a text or tool_use block: {block!r}")


def message_id(seq: int) -> str:
    return f"msg_sim_{seq:06d}"


def with_tool_ids(seq: int, content: list[dict]) -> list[dict]:
    """Copy of the blocks with ids on tool_use blocks, unique per server (seq) and block index."""
    out = []
    for i, block in enumerate(content):
        block = dict(block)
        if block.get("type") == "tool_use":
            block["id"] = f"toolu_sim_{seq:06d}_{i:02d}"
        out.append(block)
    return out


def build_message(seq: int, model: str, content: list[dict], stop_reason: str, usage: dict) -> dict:
    return {
        "id": message_id(seq),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": dict(usage),
    }


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def sse_events(message: dict, chunk: int = DEFAULT_CHUNK) -> list[tuple[str, dict]]:
    """The (event name, data) sequence that streams `message`."""
    usage = message["usage"]
    start_usage = {k: usage[k] for k in USAGE_KEYS if k != "output_tokens"}
    start_usage["output_tokens"] = 1  # the real API reports a placeholder here; message_delta has the count
    start_usage["cache_creation"] = {
        "ephemeral_5m_input_tokens": usage["cache_creation_input_tokens"],
        "ephemeral_1h_input_tokens": 0,
    }
    events: list[tuple[str, dict]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {**message, "content": [], "stop_reason": None, "usage": start_usage},
            },
        ),
        ("ping", {"type": "ping"}),
    ]
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            start_block = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in _chunks(_dumps(block["input"]), chunk)
            ]
        else:
            start_block = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in _chunks(block.get("text", ""), chunk)]
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start_block},
            )
        )
        events.extend(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
            for d in deltas
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def encode_sse(events: Iterable[tuple[str, dict]]) -> bytes:
    return "".join(f"event: {name}\ndata: {_dumps(data)}\n\n" for name, data in events).encode("utf-8")


def error_body(status: int, kind: str, message: str) -> bytes:
    return _dumps({"type": "error", "error": {"type": kind, "message": message}}).encode("utf-8")


class ApiError(Exception):
    """Raised by a brain to answer with an HTTP error and the API's JSON error body (scripted failures)."""

    def __init__(self, status: int, kind: str, message: str):
        super().__init__(f"{status} {kind}: {message}")
        self.status, self.kind, self.message = status, kind, message


@dataclass(frozen=True)
class Reply:
    status: int
    content_type: str
    body: bytes


class FakeMessagesApi:
    """The fake API: `handle()` is the whole logic; `start()` puts it behind HTTP on 127.0.0.1.

    Brain calls are serialized (brains keep state and need no locking of their own). Every
    request is logged, in memory and optionally as one JSONL line, with its reply and usage.
    """

    def __init__(
        self, brain: Brain, *, port: int = 0, log_path: Path | None = None, chunk: int = DEFAULT_CHUNK
    ):
        self.brain = brain
        self.log_path = Path(log_path) if log_path else None
        self.chunk = chunk
        self._port = port
        self._seq = 0
        self._log: list[dict] = []
        self._log_lock = threading.Lock()
        self._brain_lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -------------------------------------------------------------- logic

    def _next_seq(self) -> int:
        with self._log_lock:
            self._seq += 1
            return self._seq

    def _record(self, entry: dict) -> None:
        line = _dumps(entry) + "\n"
        with self._log_lock:
            self._log.append(entry)
            if self.log_path:
                with self.log_path.open("a", encoding="utf-8") as f:
                    f.write(line)

    def record_server_error(self, text: str) -> None:
        """A failure outside `handle()` (e.g. the client hung up mid-request)."""
        self._record({"seq": self._next_seq(), "ts": round(time.time(), 3), "error": text})

    def handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        seq = self._next_seq()
        entry: dict[str, Any] = {
            "seq": seq,
            "ts": round(time.time(), 3),
            "method": method,
            "path": path,
            "headers": {k: headers[k] for k in LOGGED_HEADERS if k in headers},
        }
        reply = self._answer(seq, method, path, raw, entry)
        entry["status"] = reply.status
        self._record(entry)
        return reply

    def _answer(self, seq: int, method: str, path: str, raw: bytes, entry: dict) -> Reply:
        if method != "POST" or urlsplit(path).path != MESSAGES_PATH:
            entry["error"] = "not found"
            return Reply(
                404, "application/json", error_body(404, "not_found_error", f"no route for {method} {path}")
            )
        try:
            body = json.loads(raw.decode("utf-8"))
            if not isinstance(body, dict):
                raise ValueError("the body is not a JSON object")
        except (UnicodeDecodeError, ValueError) as e:
            entry["error"] = f"bad request body: {e}"
            entry["raw"] = raw[:2000].decode("utf-8", "replace")
            return Reply(
                400, "application/json", error_body(400, "invalid_request_error", f"bad JSON body: {e}")
            )
        entry["body"] = body
        entry["stream"] = body.get("stream") is True
        try:
            with self._brain_lock:
                turn = self.brain.respond(body)
            check_turn(turn)
        except ApiError as e:
            entry["error"] = str(e)
            return Reply(e.status, "application/json", error_body(e.status, e.kind, e.message))
        except Exception as e:
            entry["error"] = "brain failed:\n" + traceback.format_exc()
            return Reply(500, "application/json", error_body(500, "api_error", f"sim brain failed: {e!r}"))
        content = with_tool_ids(seq, turn.content)
        usage = usage_for(raw, body, content)
        message = build_message(seq, str(body.get("model", "claude-sim")), content, turn.stop_reason, usage)
        entry["reply"] = {"content": content, "stop_reason": turn.stop_reason, "note": turn.note}
        entry["usage"] = usage
        if entry["stream"]:
            return Reply(200, "text/event-stream", encode_sse(sse_events(message, self.chunk)))
        return Reply(200, "application/json", _dumps(message).encode("utf-8"))

    # -------------------------------------------------------------- what happened

    @property
    def requests(self) -> list[dict]:
        """Every request so far, in arrival order (shared dicts: do not mutate)."""
        with self._log_lock:
            return sorted(self._log, key=lambda e: e["seq"])

    def message_requests(self) -> list[dict]:
        """Requests that got a message back (status 200)."""
        return [e for e in self.requests if e.get("status") == 200]

    def usage_totals(self) -> dict[str, int]:
        totals = dict.fromkeys(USAGE_KEYS, 0)
        answered = self.message_requests()
        for e in answered:
            for k in USAGE_KEYS:
                totals[k] += e["usage"][k]
        totals["requests"] = len(answered)
        return totals

    # -------------------------------------------------------------- HTTP

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the fake API is not started")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> FakeMessagesApi:
        if self._httpd is not None:
            raise RuntimeError("the fake API is already started")
        httpd = _Server((HOST, self._port), _Handler)
        httpd.api = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="gatebench-sim", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, thread = self._httpd, self._thread
        if httpd is None:
            return
        httpd.shutdown()
        if thread is not None:
            thread.join(timeout=10)
        httpd.server_close()
        self._httpd = self._thread = None

    def __enter__(self) -> FakeMessagesApi:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # an in-flight request must not hold up shutdown
    request_queue_size = 64  # the default 5 drops bursts of connects (parallel reviewers): 1 s SYN retry
    api: FakeMessagesApi

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Into the request log, not stderr: a launcher reading stderr through a pipe must never block.
        self.api.record_server_error(traceback.format_exc())


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the API keeps its own log; stderr noise would mix with the caller's output

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []  # type: ignore[var-annotated]
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _serve(self) -> None:
        try:
            raw = self._read_body()
        except ValueError:
            raw = b"\x00bad framing"
        headers = {k.lower(): v for k, v in self.headers.items()}
        reply = self.server.api.handle(self.command, self.path, headers, raw)
        self.close_connection = True
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        if reply.content_type == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        else:
            self.send_header("Content-Length", str(len(reply.body)))
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            self.wfile.write(reply.body)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. the CLI was killed); the request is logged anyway

    do_POST = do_GET = do_PUT = do_DELETE = do_PATCH = _serve
