"""The scripted server itself: other apps' tests depend on it."""

from __future__ import annotations

import threading

import pytest

from llm.client import chat
from llm.testing import NO_MORE_STEPS, ScriptedModelServer, text_message

pytestmark = pytest.mark.django_db


def test_empty_script_answers_no_more_steps(scripted_model):
    assert chat(purpose="chat", messages=[{"role": "user", "content": "x"}]).content == NO_MORE_STEPS


def test_handler_decides_per_request_and_sees_the_body(scripted_model):
    scripted_model.handler = lambda body: text_message(f"{body['model']}:{len(body['messages'])}")

    result = chat(purpose="chat", messages=[{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])

    assert result.content == "fast-model:2"
    assert scripted_model.requests[0]["messages"][1]["content"] == "b"


def test_concurrent_requests_are_all_recorded():
    with ScriptedModelServer(handler=lambda body: text_message("ok"), latency_s=0.05) as server:
        import httpx2

        def post() -> None:
            httpx2.post(f"{server.base_url}/chat/completions", json={"model": "m", "messages": []}, timeout=5)

        threads = [threading.Thread(target=post) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

        assert len(server.requests) == 8
