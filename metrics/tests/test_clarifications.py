"""Honest metrics: the reason question (단순변심/상품하자/오배송?) is counted apart from refusals."""

import pytest

from actions.policy import CLARIFY_REASON
from chat.models import ChatMessage, Conversation, ToolCall
from metrics.selectors import metrics_compute
from orders.tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db


def test_the_reason_question_is_not_a_refusal():
    conversation = Conversation.objects.create(customer=CustomerFactory())
    reply = ChatMessage.objects.create(conversation=conversation, role="assistant", content="사유를 알려 주세요")
    ToolCall.objects.create(message=reply, tool="request_refund", ok=False, error="refused", reason=CLARIFY_REASON)
    ToolCall.objects.create(message=reply, tool="request_refund", ok=False, error="refused", reason="기간이 지났습니다")
    ToolCall.objects.create(message=reply, tool="request_refund", ok=True)
    chat = metrics_compute(since=None, until=None)["overall"]["chat"]
    assert (chat["tool_calls"], chat["refused"], chat["clarifications"]) == (3, 1, 1)
    assert chat["by_tool"] == [
        {"tool": "request_refund", "label": "환불 요청", "calls": 3, "ok": 1, "clarified": 1, "refused": 1}
    ]
    assert [r["reason"] for r in chat["refusal_reasons"]] == ["기간이 지났습니다"]
