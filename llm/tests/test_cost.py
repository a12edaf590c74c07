"""What one model call costs us in this process: the request is built once, by our code, and posted as it is."""

from __future__ import annotations

import pytest
from openai._utils import _transform

from llm.client import chat
from llm.testing import text_message, tool_calls_message
from testsupport.counting import calls_counted

pytestmark = pytest.mark.django_db

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_my_orders",
            "description": "주문 목록",
            "parameters": {"type": "object", "properties": {"status": {"type": "string"}}, "required": []},
        },
    }
]


def test_a_chat_call_posts_our_body_without_the_sdk_walking_it(scripted_model):
    scripted_model.push(tool_calls_message([("get_my_orders", {})]), text_message("네"))
    messages = [{"role": "system", "content": "sys"}, {"role": "user", "content": "주문 보여 주세요"}]

    with calls_counted(_transform._transform_recursive, _transform.transform) as counts:
        first = chat(purpose="chat", messages=messages, tools=TOOLS)
        messages.append(first.message)
        messages.append({"role": "tool", "tool_call_id": first.tool_calls[0]["id"], "content": "[]"})
        chat(purpose="chat", messages=messages, tools=TOOLS)

    assert sum(counts.values()) == 0
    sent = scripted_model.requests
    assert [r["tools"] for r in sent] == [TOOLS, TOOLS]
    assert sent[1]["messages"][2]["tool_calls"][0]["function"]["name"] == "get_my_orders"
    assert sent[0]["model"] == "fast-model" and sent[0]["temperature"] == 0
