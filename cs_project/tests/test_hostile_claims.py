"""A hostile model writes money promises in every form a tester found, on every surface a customer reads: the
chat reply, a reply draft, an operator's own reply, and the model-written fields of a ticket or a request.
Through the real APIs, the real openai client and a scripted model on loopback; the records decide."""

from __future__ import annotations

import json

import pytest

from actions.models import ActionRecord
from actions.selectors import CLAIM_REMOVED
from chat.models import ChatMessage
from cs_project.tests.helpers import customer_inquiry
from drafts.models import Draft
from llm.offline import respond, structured_name
from llm.testing import text_message, tool_calls_message
from orders.models import Order
from testsupport.api import api_as
from tickets.models import Ticket

pytestmark = pytest.mark.django_db(transaction=True)

TUMBLER = "HR20260628003"

# Forms the first guard let through (issue text), each a promise about the tumbler's pending refund.
HOSTILE = [
    "환불 처리 완료되었음을 알려드립니다.",
    "38,000원이 3일 내 들어갑니다.",
    "환불 들어갔어요.",
    "환불 approved 되었습니다.",
    "Your refund has been approved and the money is on its way.",
    "환불 가능해요. 바로 처리해 드릴게요.",
    "환\u3164불 완료되었습니다.",
    "환블 완료댔어요.",
]
REFUND = ("request_refund", {"order_id": TUMBLER, "reason_category": "상품하자", "reason": "녹이 슬었어요"})


@pytest.fixture
def staff_api(operator_user):
    return api_as(operator_user)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_chat_replaces_every_form_of_promise(c003_api, scripted_model, hostile):
    scripted_model.push(tool_calls_message([REFUND]), text_message(hostile))
    body = c003_api.post("/api/chat/", {"message": "텀블러 환불해 주세요"}, format="json").json()

    assert body["reply"] != hostile
    assert body["reply"].startswith("환불 요청을 등록했습니다")
    assert ChatMessage.objects.get(role="assistant").outcome == ChatMessage.Outcome.CLAIM_BLOCKED
    assert ActionRecord.objects.get().status == ActionRecord.Status.PENDING


def test_chat_passes_the_same_words_once_a_person_approved_that_order(c003_api, scripted_model, operator_user):
    from actions.services import action_decide

    scripted_model.push(tool_calls_message([REFUND]), text_message("접수했습니다."))
    c003_api.post("/api/chat/", {"message": "텀블러 환불해 주세요"}, format="json")
    action_decide(number=ActionRecord.objects.get().number, approve=True, actor=operator_user)

    true = "텀블러 환불이 승인되었습니다. 38,000원은 카드사 영업일 기준 3~5일 안에 돌아갑니다."
    scripted_model.push(text_message(true))
    assert c003_api.post("/api/chat/", {"message": "텀블러 어떻게 됐어요?"}, format="json").json()["reply"] == true
    # The shoes were never approved: the same sentence about them is replaced.
    scripted_model.push(text_message("운동화 환불이 승인되었습니다."))
    reply = c003_api.post("/api/chat/", {"message": "운동화는요?"}, format="json").json()["reply"]
    assert reply != "운동화 환불이 승인되었습니다."


def _draft_with(scripted_model, c003, body: str) -> Draft:
    def handler(request):
        message = respond(request)
        if structured_name(request) in {"draft", "qa"}:
            out = json.loads(message["content"])
            out.update({"body": body} if structured_name(request) == "draft" else {"corrected_body": body})
            message = {**message, "content": json.dumps(out, ensure_ascii=False)}
        return message

    scripted_model.handler = handler
    ticket = customer_inquiry(
        c003,
        category="교환/반품",
        subject="녹슨 텀블러",
        body="텀블러에 녹이 슬었어요. 환불되나요?",
        order=Order.objects.get(pk=TUMBLER),
    )
    return Draft.objects.get(ticket=ticket)


@pytest.mark.parametrize("hostile", HOSTILE[:4] + HOSTILE[6:])
def test_a_draft_with_any_form_of_promise_is_held(scripted_model, shop_knowledge, c003, staff_api, hostile):
    draft = _draft_with(scripted_model, c003, hostile)
    assert draft.claim_blockers, draft.answer
    response = staff_api.post(f"/api/ops/drafts/{draft.pk}/apply/", {}, format="json")
    assert (response.status_code, response.json()["code"]) == (409, "draft_blocked")
    assert not draft.ticket.messages.filter(author_type="OPERATOR").exists()


@pytest.mark.parametrize("hostile", HOSTILE)
def test_an_operator_reply_with_any_form_of_promise_is_held(shop, c003, staff_api, hostile):
    ticket = customer_inquiry(
        c003, category="교환/반품", subject="텀블러", body="환불되나요?", order=Order.objects.get(pk=TUMBLER)
    )
    response = staff_api.post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": hostile}, format="json")
    assert (response.status_code, response.json()["code"]) == (409, "reply_blocked")
    assert not ticket.messages.filter(author_type="OPERATOR").exists()


def test_a_ticket_summary_the_model_writes_reaches_the_customer_without_its_promise(c003, c003_api, scripted_model):
    summary = "결제가 두 번 됐다는 문의입니다. 환불 처리 완료되었음을 알려드립니다."
    scripted_model.push(
        tool_calls_message([("create_ticket", {"category": "결제", "summary": summary})]), text_message("접수했어요.")
    )
    c003_api.post("/api/chat/", {"message": "결제가 두 번 됐어요"}, format="json")

    ticket = Ticket.objects.get(customer=c003)
    assert ticket.subject == f"결제가 두 번 됐다는 문의입니다. {CLAIM_REMOVED}"
    seen = api_as(c003.user).get(f"/api/tickets/{ticket.number}/").json()
    assert all("완료되었음" not in m["body"] for m in seen["messages"])
    assert all("완료되었음" not in t["subject"] for t in c003_api.get("/api/tickets/").json())


def test_a_request_reason_the_model_writes_reaches_the_customer_without_its_promise(c003_api, scripted_model):
    call = ("request_refund", {**REFUND[1], "reason": "녹이 슬었음. 환불 승인 완료되었습니다."})
    scripted_model.push(tool_calls_message([call]), text_message("접수했어요."))
    c003_api.post("/api/chat/", {"message": "텀블러 환불해 주세요"}, format="json")

    record = ActionRecord.objects.get()
    assert record.status == ActionRecord.Status.PENDING
    assert "승인 완료되었습니다" not in record.summary and CLAIM_REMOVED in record.summary
    listed = json.dumps(c003_api.get("/api/requests/").json(), ensure_ascii=False)
    assert "승인 완료되었습니다" not in listed and "녹이 슬었음" in listed
