"""The choke point: every message is masked with the project's one policy (`common.redaction.redact`) on its
way to the wire, whatever stage built it, so a new prompt builder cannot forget. Builders mask too (JSON
values before encoding); masking is idempotent, so the second pass costs nothing but time.

The one exception, and how it is scoped: a prompt builder may mark ONE kind of data as allowed in a message
by setting `KEEP_KEY` on it, and only
- the kind "address" (`common.redaction.MODEL_EXCEPTIONS`; anything else raises ValueError),
- on a "user" message (the customer's own words; never on tool results, assistant turns or system text).
`chat.prompts` sets it on the customer's current chat message only, so the agent can pass a new shipping
address to change_shipping_address. The same message in a later turn is history and goes out masked, and the
address is masked everywhere else in the same request: in tool results (`new_address`, `shipping_address`,
action summaries) and in the agent's own tool-call arguments. `KEEP_KEY` itself never reaches the wire.
"""

from __future__ import annotations

import json
from typing import Any

from common.redaction import redact, redact_obj
from llm.fence import FENCE

KEEP_KEY = "mask_keep"


def mask_messages(messages: list[dict]) -> list[dict]:
    """Masked copies of `messages`; the caller's list and dicts are left as they are."""
    return [_mask_message(message) for message in messages]


def _mask_message(message: dict) -> dict:
    keep = frozenset(message.get(KEEP_KEY) or ())
    if keep and message.get("role") != "user":
        raise ValueError(f"{KEEP_KEY} is only allowed on user messages, not {message.get('role')!r}")
    out = {key: value for key, value in message.items() if key != KEEP_KEY}
    content = out.get("content")
    if isinstance(content, str):
        out["content"] = _mask_text(content, keep)
    elif isinstance(content, list):
        out["content"] = [
            {**part, "text": redact(part["text"], keep=keep)}
            if isinstance(part, dict) and isinstance(part.get("text"), str)
            else part
            for part in content
        ]
    if out.get("tool_calls"):
        out["tool_calls"] = [_mask_tool_call(call) for call in out["tool_calls"]]
    return out


def _mask_text(content: str, keep: frozenset[str]) -> str:
    """A fenced text is masked inside its fence: the body is what a builder wrote (the same words turn after
    turn, so its masked form is remembered) while the nonce is new on every build, and a pattern can never
    reach into the tags."""
    match = FENCE.fullmatch(content)
    if match is None:
        return redact(content, keep=keep)
    tag = f"{match['label']}-{match['nonce']}"
    return f"<{tag}>\n{redact(match['body'], keep=keep)}\n</{tag}>"


def _mask_tool_call(call: Any) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
        return call
    raw = function["arguments"]
    try:
        parsed = json.loads(raw)
    except ValueError:
        masked = redact(raw)
    else:
        masked = json.dumps(redact_obj(parsed), ensure_ascii=False)
    return {**call, "function": {**function, "arguments": masked}}
