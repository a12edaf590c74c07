"""Test support for the whole project: a scripted OpenAI-compatible server on loopback.

The real `openai` client talks to it over real HTTP, so timeouts, status codes, garbled bodies and the
fallback loop are exercised exactly as in production. Import the fixtures into a conftest:

    from llm.testing import offline_model, scripted_model  # noqa: F401
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from llm.client import clear_client_cache
from llm.wire import completion_body, dumps, error_body, prompt_text

__all__ = [
    "Fault",
    "Hang",
    "Malformed",
    "ScriptedModelServer",
    "Step",
    "offline_model",
    "scripted_model",
    "text_message",
    "tool_calls_message",
]

NO_MORE_STEPS = "(scripted: no more steps)"


@dataclass(frozen=True)
class Fault:
    """An HTTP error response with an OpenAI-style error body."""

    status: int = 500
    message: str = "scripted fault"


@dataclass(frozen=True)
class Hang:
    """Sleep, then answer 200 with `then` (for client timeouts)."""

    seconds: float
    then: dict = field(default_factory=lambda: text_message("(scripted: after hang)"))


@dataclass(frozen=True)
class Malformed:
    """A 200 response whose body is not a chat completion."""

    body: bytes = b"not json"
    content_type: str = "application/json"


# A dict is an assistant message (wrapped into a completion) or, if it has "choices", a full body.
Step = dict | Fault | Hang | Malformed


def text_message(content: str) -> dict:
    return {"role": "assistant", "content": content}


def tool_calls_message(calls: list[tuple[str, dict | str]]) -> dict:
    """An assistant message calling tools; a str argument is sent raw (for malformed-arguments tests)."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False),
                },
            }
            for index, (name, args) in enumerate(calls, start=1)
        ],
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a Hang must not keep close() waiting
    owner: ScriptedModelServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        owner = self.server.owner
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, dumps(error_body(f"no route for {self.path}", code="not_found")))
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, dumps(error_body("request body is not JSON")))
            return
        step = owner._take(body)
        if owner.latency_s:
            owner._stopping.wait(owner.latency_s)
        if isinstance(step, Fault):
            error_type = "rate_limit_error" if step.status == 429 else "server_error"
            self._send(step.status, dumps(error_body(step.message, type_=error_type)))
        elif isinstance(step, Malformed):
            self._send(200, step.body, content_type=step.content_type)
        elif isinstance(step, Hang):
            owner._stopping.wait(step.seconds)
            self._send(200, dumps(owner._completion(body, step.then)))
        else:
            self._send(200, dumps(owner._completion(body, step)))

    def do_GET(self) -> None:  # noqa: N802
        self._send(404, dumps(error_body("only POST /v1/chat/completions", code="not_found")))

    def _send(self, status: int, payload: bytes, *, content_type: str = "application/json") -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to answer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # keep test output clean; bodies are never logged anyway


class ScriptedModelServer:
    """A Chat Completions server on 127.0.0.1 that answers from a script.

    Script: `push(step)` queues steps answered in order; or `handler=(body) -> step` decides per request.
    With neither, every request gets the text "(scripted: no more steps)".
    """

    def __init__(self, handler: Callable[[dict], Step] | None = None, *, latency_s: float = 0) -> None:
        self.handler = handler
        self.latency_s = latency_s
        self._steps: deque[Step] = deque()
        self._requests: list[dict] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._count = 0

    # --- lifecycle ---
    def start(self) -> ScriptedModelServer:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        # A short poll interval keeps shutdown (once per test) from costing the default 0.5 s.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-model", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases any Hang at once
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    # --- script ---
    def push(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    @property
    def requests(self) -> list[dict]:
        """The parsed JSON bodies received so far (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def models_seen(self) -> list[str]:
        return [str(body.get("model")) for body in self.requests]

    def _take(self, body: dict) -> Step:
        with self._lock:
            self._requests.append(body)
            self._count += 1
            if self.handler is not None:
                handler = self.handler
            elif self._steps:
                return self._steps.popleft()
            else:
                return text_message(NO_MORE_STEPS)
        return handler(body)

    def _completion(self, body: dict, message: dict) -> dict:
        if "choices" in message:
            return message
        with self._lock:
            number = self._count
        return completion_body(
            model=str(body.get("model") or "scripted"),
            message=message,
            completion_id=f"chatcmpl-scripted-{number}",
            prompt_text=prompt_text(body),
        )


@pytest.fixture
def scripted_model(settings) -> Iterator[ScriptedModelServer]:
    """A running ScriptedModelServer wired into settings: primary "fast-model", fallback
    "strong-model", 2 s timeout."""
    with ScriptedModelServer() as server:
        settings.OPENAI_BASE_URL = server.base_url
        settings.OPENAI_API_KEY = "test-key"
        settings.CS_LLM_MODEL = "fast-model"
        settings.CS_LLM_FALLBACK_MODEL = "strong-model"
        settings.CS_LLM_TIMEOUT_S = 2
        clear_client_cache()
        yield server
    clear_client_cache()


@pytest.fixture
def offline_model(settings) -> Iterator[None]:
    """No model configured: the gateway uses the built-in deterministic model."""
    settings.OPENAI_BASE_URL = None
    settings.OPENAI_API_KEY = None
    clear_client_cache()
    yield
    clear_client_cache()
