"""Simulated customers. A user is asked for its next message given the agent's last reply; None ends the
conversation. The scripted user is deterministic (CI); the LLM user plays the task's scenario through
the same model gateway as everything else (τ-bench style: it reveals facts only when asked and ends
with a stop or transfer token)."""

from __future__ import annotations

import re
from typing import Protocol

from evals.schema import UserScenario
from llm import client as llm

STOP = "###STOP###"
TRANSFER = "###TRANSFER###"
OUT_OF_SCOPE = "###OUT-OF-SCOPE###"
END_TOKENS = (STOP, TRANSFER, OUT_OF_SCOPE)


class SimulatedUser(Protocol):
    def next_message(self, agent_reply: str | None) -> str | None: ...


class ScriptedUser:
    """Sends the task's fixed turns in order. A turn with `when` is sent only if the agent's previous
    reply matches it (the agent asked); otherwise it is skipped. No turns left: the user stops."""

    def __init__(self, scenario: UserScenario) -> None:
        self._turns = list(scenario.turns)
        self._index = 0

    def next_message(self, agent_reply: str | None) -> str | None:
        while self._index < len(self._turns):
            turn = self._turns[self._index]
            self._index += 1
            if turn.when is None or (agent_reply is not None and re.search(turn.when, agent_reply)):
                return turn.text
        return None


def user_system_prompt(scenario: UserScenario) -> str:
    known = "\n".join(f"- {item}" for item in scenario.known_info) or "- (없음)"
    hidden = (
        "\n".join(f"- 상담원이 {q}을(를) 물으면: {a}" for q, a in scenario.reveal_only_if_asked.items()) or "- (없음)"
    )
    first = scenario.turns[0].text if scenario.turns else ""
    return f"""당신은 온라인 쇼핑몰 고객센터 채팅에 말을 거는 고객입니다. 상담원(AI)과 대화합니다.
당신은 고객이지 상담원이 아닙니다. 한 번에 한두 문장, 자연스러운 한국어 구어체로 말하세요.

## 당신은
{scenario.persona}

## 연락한 이유
{scenario.reason_for_contact}

## 처음부터 알고 말할 수 있는 것
{known}

## 상담원이 물어볼 때만 말할 것 (먼저 꺼내지 마세요)
{hidden}

## 행동
{scenario.behaviour or "협조적입니다."}
- 시나리오에 없는 사실을 지어내지 마세요. 모르는 것은 모른다고 하세요.
- 첫 메시지는 이 문장과 비슷하게 시작하세요: "{first}"
- 원하는 일이 처리되었거나 더 할 일이 없으면 {STOP} 만 보내세요.
- 상담원에게 연결하겠다는 안내를 받았으면 {TRANSFER} 만 보내세요.
"""


class LLMUser:
    """The scenario played by a model (`--user-model`). The conversation is shown to it with roles
    swapped: the agent's replies are its "user" turns."""

    def __init__(self, scenario: UserScenario, *, model: str) -> None:
        self.model = model
        self._messages: list[dict] = [{"role": "system", "content": user_system_prompt(scenario)}]
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def next_message(self, agent_reply: str | None) -> str | None:
        self._messages.append({"role": "user", "content": agent_reply or "안녕하세요, 무엇을 도와드릴까요?"})
        result = llm.chat(purpose="eval_user", messages=self._messages, model=self.model, temperature=0)
        self.prompt_tokens += result.prompt_tokens or 0
        self.completion_tokens += result.completion_tokens or 0
        text = result.content.strip()
        self._messages.append({"role": "assistant", "content": text})
        if not text or any(token in text for token in END_TOKENS):
            return None
        return text
