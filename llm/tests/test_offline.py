"""Offline mode: no OPENAI_* settings means the built-in model, through the real SDK, with no network."""

from __future__ import annotations

import json
import socket

import httpx2
import pytest
from pydantic import BaseModel

from llm import offline
from llm.client import chat, get_client, is_offline, structured
from llm.models import LLMCall


class Verdict(BaseModel):
    ok: bool
    note: str


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network used in offline mode")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


@pytest.fixture
def verdict_handler():
    offline.register_structured("test_verdict", lambda body: {"ok": True, "note": f"{len(body['messages'])} msgs"})
    yield
    offline.unregister_structured("test_verdict")


def test_no_settings_means_offline_client(offline_model):
    client = get_client()

    assert is_offline() is True
    assert str(client.base_url).startswith("http://offline-model.local/v1")
    assert client.max_retries == 0


@pytest.mark.django_db
def test_offline_chat_returns_a_well_formed_completion_without_network(offline_model, no_network, settings):
    result = chat(purpose="chat", messages=[{"role": "user", "content": "안녕하세요"}])

    assert result.model == "builtin-offline"
    assert result.used_fallback is False
    assert result.finish_reason == "stop"
    assert "도와드릴 수 있어요" in result.content
    assert LLMCall.objects.get().outcome == LLMCall.Outcome.OK


def test_handle_http_speaks_chat_completions():
    body = {
        "model": "any-model",
        "messages": [{"role": "user", "content": "<customer_message>\n내 주문 조회\n</customer_message>"}],
        "tools": [{"type": "function", "function": {"name": "get_my_orders", "parameters": {}}}],
    }
    request = httpx2.Request("POST", "http://offline-model.local/v1/chat/completions", json=body)

    response = offline.handle_http(request)

    assert response.status_code == 200
    completion = json.loads(response.content)
    assert completion["object"] == "chat.completion"
    assert completion["model"] == "any-model"
    assert completion["id"].startswith("chatcmpl-offline-")
    assert isinstance(completion["created"], int)
    choice = completion["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["tool_calls"][0]["function"] == {"name": "get_my_orders", "arguments": "{}"}
    assert set(completion["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}


def test_handle_http_unknown_route_is_404():
    response = offline.handle_http(httpx2.Request("GET", "http://offline-model.local/v1/models"))

    assert response.status_code == 404


def test_unknown_structured_name_is_a_400():
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "x"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "nobody_registered_this", "schema": {}}},
    }

    response = offline.handle_http(httpx2.Request("POST", "http://x/v1/chat/completions", json=body))

    assert response.status_code == 400
    assert "nobody_registered_this" in json.loads(response.content)["error"]["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["json_schema", "json_object"])
def test_offline_structured_dispatches_to_registered_handler(offline_model, verdict_handler, settings, mode):
    settings.CS_LLM_STRUCTURED_MODE = mode

    verdict, result = structured(
        purpose="qa", messages=[{"role": "user", "content": "x"}], schema=Verdict, name="test_verdict"
    )

    assert verdict.ok is True
    assert verdict.note == ("1 msgs" if mode == "json_schema" else "2 msgs")  # json_object adds a system message
    assert result.used_fallback is False


@pytest.mark.django_db
def test_offline_structured_unknown_name_fails_once_without_a_pointless_retry(offline_model):
    from llm.client import LLMUnavailable

    with pytest.raises(LLMUnavailable) as info:
        structured(purpose="qa", messages=[{"role": "user", "content": "x"}], schema=Verdict, name="unregistered")

    # The built-in model is deterministic, so there is no fallback attempt in offline mode.
    assert [a.error_class for a in info.value.attempts] == ["BadRequestError"]


def test_conversations_go_to_the_registered_handler_with_the_tool_names(monkeypatch):
    seen = []

    def handler(messages, tools):
        seen.append((len(messages), tools))
        return offline.text("registered")

    monkeypatch.setattr(offline, "_conversation", [])
    offline.register_conversation(handler)
    body = {
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {}}}],
    }

    assert offline.respond(body) == {"role": "assistant", "content": "registered"}
    assert seen == [(1, frozenset({"lookup"}))]


def test_without_a_conversation_handler_the_gateway_answers_a_fixed_notice(monkeypatch):
    monkeypatch.setattr(offline, "_conversation", [])

    reply = offline.respond({"messages": [{"role": "user", "content": "hi"}]})

    assert reply == {"role": "assistant", "content": offline.NO_HANDLER_TEXT}
