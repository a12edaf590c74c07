"""The gateway against a real HTTP server on loopback: one attempt per model, fallback once, every
attempt recorded without bodies."""

from __future__ import annotations

import logging

import pytest

from llm.client import LLMUnavailable, chat, get_client
from llm.models import LLMCall
from llm.testing import Fault, Hang, Malformed, text_message, tool_calls_message

pytestmark = pytest.mark.django_db

MESSAGES = [{"role": "system", "content": "sys"}, {"role": "user", "content": "안녕하세요 010-1234-5678"}]


def _calls() -> list[tuple[str, bool, str, str]]:
    return [(c.model, c.is_fallback, c.outcome, c.error_class) for c in LLMCall.objects.order_by("id")]


def test_primary_ok_uses_primary_model_and_records_one_call(scripted_model):
    scripted_model.push(text_message("네, 도와드릴게요."))

    result = chat(purpose="chat", messages=MESSAGES)

    assert result.content == "네, 도와드릴게요."
    assert result.message == {"role": "assistant", "content": "네, 도와드릴게요.", "tool_calls": []}
    assert (result.model, result.used_fallback, result.finish_reason) == ("fast-model", False, "stop")
    assert _calls() == [("fast-model", False, LLMCall.Outcome.OK, "")]
    call = LLMCall.objects.get()
    assert call.purpose == "chat"
    assert call.prompt_tokens is not None and call.completion_tokens is not None
    assert result.prompt_tokens == call.prompt_tokens


def test_primary_500_falls_back_to_strong_model(scripted_model):
    scripted_model.push(Fault(500), text_message("fallback answer"))

    result = chat(purpose="chat", messages=MESSAGES)

    assert result.content == "fallback answer"
    assert (result.model, result.used_fallback) == ("strong-model", True)
    assert scripted_model.models_seen == ["fast-model", "strong-model"]
    assert _calls() == [
        ("fast-model", False, LLMCall.Outcome.ERROR, "InternalServerError"),
        ("strong-model", True, LLMCall.Outcome.OK, ""),
    ]


def test_rate_limit_falls_back(scripted_model):
    scripted_model.push(Fault(429), text_message("ok"))

    result = chat(purpose="chat", messages=MESSAGES)

    assert result.used_fallback is True
    assert _calls()[0] == ("fast-model", False, LLMCall.Outcome.ERROR, "RateLimitError")
    assert len(scripted_model.requests) == 2


def test_timeout_falls_back(scripted_model, settings):
    settings.CS_LLM_TIMEOUT_S = 0.5
    scripted_model.push(Hang(5), text_message("after timeout"))

    result = chat(purpose="chat", messages=MESSAGES)

    assert result.content == "after timeout"
    assert result.used_fallback is True
    timed_out = LLMCall.objects.get(is_fallback=False)
    assert (timed_out.outcome, timed_out.error_class) == (LLMCall.Outcome.ERROR, "APITimeoutError")
    assert 400 <= timed_out.latency_ms < 3000


def test_malformed_body_falls_back(scripted_model):
    scripted_model.push(Malformed(b"not json"), text_message("ok"))

    result = chat(purpose="chat", messages=MESSAGES)

    assert result.used_fallback is True
    assert _calls()[0] == ("fast-model", False, LLMCall.Outcome.ERROR, "MalformedResponse")


@pytest.mark.parametrize(
    "step",
    [
        Malformed(b"plain text", content_type="text/plain"),
        Malformed(b'{"id": "x"}'),
        Malformed(b"[]"),
        {"id": "x", "object": "chat.completion", "created": 0, "model": "fast-model", "choices": []},
    ],
    ids=["text-plain", "no-choices-key", "json-list", "empty-choices"],
)
def test_body_that_is_not_a_completion_falls_back(scripted_model, step):
    scripted_model.push(step, text_message("ok"))

    result = chat(purpose="chat", messages=MESSAGES)

    assert result.used_fallback is True
    assert _calls()[0][2:] == (LLMCall.Outcome.ERROR, "MalformedResponse")


def test_both_models_fail_raises_unavailable_after_exactly_two_requests(scripted_model):
    scripted_model.push(Fault(500), Fault(503))

    with pytest.raises(LLMUnavailable) as info:
        chat(purpose="draft", messages=MESSAGES)

    # Two requests in total proves the SDK's own retries (max_retries=2 by default) are off.
    assert len(scripted_model.requests) == 2
    assert [a.model for a in info.value.attempts] == ["fast-model", "strong-model"]
    assert info.value.retryable is True
    assert info.value.error_class == "InternalServerError"
    assert _calls() == [
        ("fast-model", False, LLMCall.Outcome.ERROR, "InternalServerError"),
        ("strong-model", True, LLMCall.Outcome.ERROR, "InternalServerError"),
    ]


def test_400_is_not_retryable_but_still_gets_the_one_fallback_try(scripted_model):
    scripted_model.push(Fault(400, "bad request"), Fault(401, "no key"))

    with pytest.raises(LLMUnavailable) as info:
        chat(purpose="chat", messages=MESSAGES)

    first, second = info.value.attempts
    assert (first.error_class, first.retryable, first.status_code) == ("BadRequestError", False, 400)
    assert (second.error_class, second.retryable) == ("AuthenticationError", False)
    assert info.value.retryable is False
    assert len(scripted_model.requests) == 2


def test_tool_calls_come_back_as_plain_dicts(scripted_model):
    scripted_model.push(tool_calls_message([("get_my_orders", {}), ("create_ticket", '{"summary": "x"')]))

    tools = [{"type": "function", "function": {"name": "get_my_orders"}}]

    result = chat(purpose="chat", messages=MESSAGES, tools=tools)

    assert result.finish_reason == "tool_calls"
    assert result.message["content"] is None
    assert result.tool_calls == [
        {"id": "call_1", "type": "function", "function": {"name": "get_my_orders", "arguments": "{}"}},
        {"id": "call_2", "type": "function", "function": {"name": "create_ticket", "arguments": '{"summary": "x"'}},
    ]
    sent = scripted_model.requests[0]
    assert sent["tools"][0]["function"]["name"] == "get_my_orders"
    assert sent["temperature"] == 0


def test_a_plain_reply_can_be_sent_back_as_history(scripted_model):
    scripted_model.push(text_message("first"), text_message("second"))
    first = chat(purpose="chat", messages=MESSAGES)

    chat(purpose="chat", messages=[*MESSAGES, first.message, {"role": "user", "content": "또"}])

    # OpenAI rejects `tool_calls: []`, so the gateway drops it on the wire.
    assert scripted_model.requests[1]["messages"][2] == {"role": "assistant", "content": "first"}


def test_log_line_per_attempt_has_no_message_content(scripted_model, caplog):
    scripted_model.push(Fault(500), text_message("답변 본문"))

    with caplog.at_level(logging.INFO, logger="llm.client"):
        chat(purpose="chat", messages=MESSAGES)

    lines = [r.getMessage() for r in caplog.records if r.name == "llm.client"]
    assert lines == [
        lines[0],
        lines[1],
    ]
    assert lines[0].startswith("llm.call purpose=chat model=fast-model is_fallback=False outcome=ERROR latency_ms=")
    assert lines[0].endswith("error_class=InternalServerError")
    assert lines[1].startswith("llm.call purpose=chat model=strong-model is_fallback=True outcome=OK")
    assert not any(secret in line for line in lines for secret in ("010-1234-5678", "안녕하세요", "답변 본문"))


def test_client_has_sdk_retries_off_and_explicit_timeout(scripted_model):
    client = get_client()

    assert client.max_retries == 0
    assert client.timeout.read == 2
    assert client.timeout.connect == 2  # never longer than the whole budget
    assert str(client.base_url).rstrip("/") == scripted_model.base_url
    assert get_client() is client  # cached per settings


def test_client_follows_settings_changes_without_restart(scripted_model, settings):
    first = get_client()
    settings.CS_LLM_TIMEOUT_S = 7

    second = get_client()

    assert second is not first
    assert second.timeout.read == 7
    assert second.timeout.connect == 5
