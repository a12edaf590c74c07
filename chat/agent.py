"""The customer agent's tool loop. The model proposes tool calls; the registry (code) decides.

Bounded: at most MAX_ROUNDS model calls per turn and MAX_CALLS_PER_ROUND executed calls per round, and
`before_call` (the customer's model-call budget) may end the turn before any further call.
Unknown tools, malformed JSON and invalid values go back to the model as tool errors.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from chat import prompts
from chat.tools import ToolRegistry
from llm import client as llm

log = logging.getLogger(__name__)

MAX_ROUNDS = 4
MAX_CALLS_PER_ROUND = 4
MAX_REPLY_CHARS = 2000


@dataclass
class ExecutedCall:
    tool: str
    result: dict


@dataclass
class AgentOutcome:
    reply: str
    calls: list[ExecutedCall] = field(default_factory=list)
    model: str = ""
    bounded: bool = False


def _execute(registry: ToolRegistry, name: str, arguments: object) -> dict:
    try:
        return registry.call(name, arguments if isinstance(arguments, (str, dict)) else None)
    except Exception:  # a bug or a database fault must not crash the turn; the model is told
        log.exception("agent.tool_crashed tool=%s", name)
        return {"ok": False, "error": "internal_error", "reason": "일시적인 오류로 처리하지 못했습니다."}


def run_agent(
    *, registry: ToolRegistry, messages: list[dict], before_call: Callable[[int], bool] | None = None
) -> AgentOutcome:
    """Raises llm.LLMUnavailable when the model (and its fallback) fail; the caller handles it.
    `before_call(round)` is asked before each model call; False ends the turn as bounded."""
    outcome = AgentOutcome(reply="")
    specs = registry.specs()
    for round_index in range(MAX_ROUNDS):
        if before_call is not None and not before_call(round_index):
            outcome.bounded = True
            break
        result = llm.chat(purpose="chat", messages=messages, tools=specs)
        outcome.model = result.model
        message = result.message
        tool_calls = message.get("tool_calls") or []
        if not tool_calls:
            outcome.reply = (message.get("content") or "").strip()
            break
        messages.append({"role": "assistant", "content": message.get("content") or "", "tool_calls": tool_calls})
        for index, call in enumerate(tool_calls):
            function = call.get("function") or {}
            name = str(function.get("name") or "")
            if index >= MAX_CALLS_PER_ROUND:
                tool_result = {
                    "ok": False,
                    "error": "too_many_calls",
                    "reason": "한 번에 너무 많은 도구를 호출했습니다.",
                }
            else:
                tool_result = _execute(registry, name, function.get("arguments"))
                outcome.calls.append(ExecutedCall(name, tool_result))
            messages.append(prompts.tool_turn(str(call.get("id") or f"call_{index}"), tool_result))
    else:
        outcome.bounded = True
    if outcome.bounded:
        done = prompts.summarize_results([c.result for c in outcome.calls])
        outcome.reply = prompts.BOUNDED_REPLY + (f"\n지금까지 처리된 내용:\n{done}" if done else "")
    elif not outcome.reply:
        done = prompts.summarize_results([c.result for c in outcome.calls])
        outcome.reply = done or prompts.EMPTY_REPLY
    outcome.reply = outcome.reply[:MAX_REPLY_CHARS]
    return outcome
