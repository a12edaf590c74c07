"""The Chat Completions wire format, shared by the built-in offline model and the scripted test
server, so both answer exactly what a real OpenAI-compatible server would."""

from __future__ import annotations

import json
from typing import Any

# json_object mode cannot carry a schema name in `response_format`; the gateway writes it on a line
# of its own in the schema system message so the offline model can dispatch on it.
STRUCTURED_NAME_PREFIX = "JSON schema name: "

# Fixed so completions are byte-for-byte deterministic.
CREATED_AT = 1_767_225_600


def message_text(content: Any) -> str:
    """Message content as text; content may be a string, None or a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"
        )
    return str(content)


def estimate_tokens(text: str) -> int:
    # Crude but stable: enough to make `usage` present and plausible.
    return max(1, len(text) // 2) if text else 0


def completion_body(*, model: str, message: dict, completion_id: str, prompt_text: str = "") -> dict:
    """A full `chat.completion` object around one assistant message."""
    message = {"role": "assistant", "content": None, **message}
    tool_calls = message.get("tool_calls") or []
    if not tool_calls:
        message.pop("tool_calls", None)
    completion_text = message_text(message.get("content")) + "".join(
        tc.get("function", {}).get("arguments", "") for tc in tool_calls
    )
    prompt_tokens = estimate_tokens(prompt_text)
    completion_tokens = estimate_tokens(completion_text)
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": CREATED_AT,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if tool_calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def error_body(message: str, *, type_: str = "invalid_request_error", code: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def prompt_text(body: dict) -> str:
    return "".join(message_text(m.get("content")) for m in body.get("messages") or [] if isinstance(m, dict))


def dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode("utf-8")
