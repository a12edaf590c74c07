"""The built-in deterministic model: a stand-in for demos and tests, with no weights.

It speaks the Chat Completions protocol through `handle_http` (mounted as an in-process transport by
`llm.client` when no model is configured), so the agent, the fallback loop and `LLMCall` recording run
exactly as with a real model. This module knows the protocol only, nothing of the shop; what the model
answers is registered by the apps that own the conversations:

- structured requests (`response_format` present) are dispatched by schema name to the handlers
  registered with `register_structured` (the draft pipeline registers its own);
- every other request goes to the conversation handler registered with `register_conversation`
  (the chat app registers its offline agent); with none registered, a fixed notice.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
from collections.abc import Callable

import httpx2

from llm.wire import STRUCTURED_NAME_PREFIX, completion_body, dumps, error_body, message_text, prompt_text

log = logging.getLogger(__name__)

__all__ = [
    "ConversationHandler",
    "OfflineBadRequest",
    "handle_http",
    "register_conversation",
    "register_structured",
    "respond",
    "text",
    "tool_call",
    "unregister_conversation",
    "unregister_structured",
]


class OfflineBadRequest(Exception):
    """A request the offline model cannot serve; answered with HTTP 400 like a real server would."""


# --- HTTP ----------------------------------------------------------------------------------------
_completion_ids = itertools.count(1)


def handle_http(request: httpx2.Request) -> httpx2.Response:
    if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
        return _json_response(404, error_body(f"no route for {request.method} {request.url.path}", code="not_found"))
    try:
        body = json.loads(request.content or b"{}")
    except ValueError:
        return _json_response(400, error_body("request body is not JSON"))
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return _json_response(400, error_body("'messages' is required"))
    try:
        message = respond(body)
    except OfflineBadRequest as exc:
        return _json_response(400, error_body(str(exc)))
    except Exception:
        # Surface our own bugs as a server error (recorded on LLMCall), not as a dropped connection.
        log.exception("llm.offline.error")
        return _json_response(500, error_body("offline model failed", type_="server_error"))
    completion = completion_body(
        model=str(body.get("model") or "offline"),
        message=message,
        completion_id=f"chatcmpl-offline-{next(_completion_ids)}",
        prompt_text=prompt_text(body),
    )
    return _json_response(200, completion)


def _json_response(status: int, payload: dict) -> httpx2.Response:
    return httpx2.Response(status, content=dumps(payload), headers={"content-type": "application/json"})


def respond(body: dict) -> dict:
    """The assistant message (a plain dict) for one Chat Completions request body."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if body.get("response_format"):
        return _respond_structured(body, messages)
    tools = body.get("tools") or []
    names = {(t.get("function") or {}).get("name") for t in tools if isinstance(t, dict)}
    handler = _conversation[0] if _conversation else None
    if handler is None:
        return text(NO_HANDLER_TEXT)
    return handler(messages, frozenset(n for n in names if isinstance(n, str) and n))


# --- conversations -------------------------------------------------------------------------------
# The handler gets the request's messages and the names of the tools offered, and returns the assistant
# message: a text reply (`text`) or tool calls (`tool_call`).
ConversationHandler = Callable[[list[dict], frozenset[str]], dict]
_conversation: list[ConversationHandler] = []
NO_HANDLER_TEXT = "내장 오프라인 모델입니다. 이 요청에 답할 처리기가 등록되어 있지 않습니다."


def register_conversation(fn: ConversationHandler) -> None:
    """Register the offline answer for conversations (requests without `response_format`).
    A later registration replaces an earlier one."""
    _conversation[:] = [fn]


def unregister_conversation() -> None:
    _conversation.clear()


# --- structured ----------------------------------------------------------------------------------
StructuredHandler = Callable[[dict], dict]
_structured: dict[str, StructuredHandler] = {}


def register_structured(name: str, fn: StructuredHandler) -> None:
    """Register the offline answer for structured requests named `name`. `fn` gets the request body
    and returns the JSON object the model replies with. A later registration replaces an earlier one."""
    _structured[name] = fn


def unregister_structured(name: str) -> None:
    _structured.pop(name, None)


_NAME_LINE = re.compile("^" + re.escape(STRUCTURED_NAME_PREFIX) + r"(\S+)\s*$", re.MULTILINE)


def structured_name(body: dict) -> str | None:
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return (response_format.get("json_schema") or {}).get("name")
    for m in body.get("messages") or []:
        if isinstance(m, dict) and m.get("role") in ("system", "developer"):
            match = _NAME_LINE.search(message_text(m.get("content")))
            if match:
                return match.group(1)
    return None


def _respond_structured(body: dict, messages: list[dict]) -> dict:
    name = structured_name(body)
    handler = _structured.get(name or "")
    if handler is None:
        raise OfflineBadRequest(f"offline model has no structured handler for schema {name!r}")
    return text(json.dumps(handler(body), ensure_ascii=False))


# --- message helpers -----------------------------------------------------------------------------
def text(content: str) -> dict:
    return {"role": "assistant", "content": content}


def tool_call(call_id: str, name: str, args: dict) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
            }
        ],
    }
