"""Answers reach the customer wherever they are, end to end through the APIs: an operator's answer on a ticket a
chat handed over appears in that conversation (the admin reply box, the staff API and an applied draft alike);
a money request's outcome appears as a line built by code in the conversation that made it; the customer's
change cursor moves and counts what is unread; the shop hears `ticket.replied` (signed, once, in its pull feed);
a customer of the desk's own gets an e-mail with the thread link and nothing personal but the name, unless they
turned notices off; the customer rates the answer once (CSAT), and the metrics count it per day and category.

Embedded mode: every outbox row (the draft request, the shop event, the webhook, the e-mail) is handled in-process
right after its commit, so these tests run with real transactions."""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from accounts.services import token_issue
from actions.models import ActionRecord
from chat.models import ChatMessage
from common.models import OutboxMessage
from common.numbering import parse_number
from drafts.models import Draft
from integration.models import ShopEvent
from integration.policy import session_signature
from integration.tests.factories import CUSTOMER_ID, ORDER_ID, shop_connected
from orders.models import Customer
from testsupport.api import api_as
from tickets.models import Ticket, TicketMessage, TicketRating
from tickets.notices import REPLY_NOTICE_TOPIC

pytestmark = pytest.mark.django_db(transaction=True)

ANSWER = "확인해 보니 택배사에서 내일 오전에 배송할 예정입니다. 불편을 드려 죄송합니다."


def say(api, text, conversation_id=None) -> dict:
    payload = {"message": text, **({"conversation_id": conversation_id} if conversation_id else {})}
    response = api.post("/api/chat/", payload, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def conversation(api, conversation_id, **query) -> list[dict]:
    response = api.get(f"/api/chat/{conversation_id}/", query)
    assert response.status_code == 200, response.content
    return response.json()["messages"]


@pytest.fixture
def handoff(c003_api, offline_model) -> tuple[str, Ticket]:
    """C003 asks the agent for a person: the conversation and the ticket it handed over."""
    body = say(c003_api, "상담원 연결해 주세요")
    [number] = [r["ticket_id"] for r in body["tool_results"] if r.get("ticket_id")]
    ticket = Ticket.objects.get(pk=parse_number("T", number))
    assert ticket.chat_conversation_id is not None and str(ticket.chat_conversation_id) == body["conversation_id"]
    return body["conversation_id"], ticket


def operator_lines(messages: list[dict]) -> list[tuple]:
    return [(m["role"], m["author"], m["content"], m["ticket_id"]) for m in messages if m["role"] == "operator"]


# --- the answer in the conversation, whichever way it was sent ------------------------------------------------


def test_an_answer_from_the_admin_reply_box_appears_in_the_conversation(c003_api, handoff, operator_user):
    conversation_id, ticket = handoff
    admin = Client()
    admin.force_login(operator_user)
    response = admin.post(f"/admin/tickets/ticket/{ticket.pk}/reply/", {"body": ANSWER})
    assert response.status_code == 302
    assert TicketMessage.objects.filter(ticket=ticket, author_type="OPERATOR").count() == 1

    messages = conversation(c003_api, conversation_id)
    # The demo operator's display name is 김상담 (never the login "operator").
    assert operator_lines(messages) == [("operator", "상담원 김상담", ANSWER, ticket.number)]
    assert [m["role"] for m in messages][:2] == ["customer", "assistant"]
    assert messages[1]["author"] == "AI 상담" and messages[0]["author"] == ""
    assert set(messages[-1]) == {"id", "role", "author", "content", "tool_results", "created_at", "ticket_id"}


def test_an_answer_from_the_staff_api_appears_and_an_operator_without_a_name_is_just_상담원(
    c003_api, handoff, operator_user
):
    conversation_id, ticket = handoff
    operator_user.first_name = operator_user.last_name = ""
    operator_user.save()
    response = api_as(operator_user).post(
        f"/api/ops/tickets/{ticket.number}/reply/", {"body": ANSWER, "close": True}, format="json"
    )
    assert response.status_code == 201, response.content
    assert operator_lines(conversation(c003_api, conversation_id)) == [("operator", "상담원", ANSWER, ticket.number)]


def test_an_applied_draft_appears_in_the_conversation(c003_api, handoff, operator_user):
    conversation_id, ticket = handoff
    draft = Draft.objects.get(ticket=ticket, status=Draft.Status.GENERATED)  # made after the handoff's commit
    response = api_as(operator_user).post(
        f"/api/ops/drafts/{draft.pk}/apply/",
        {"final_body": ANSWER, "override_reason": "내용을 직접 확인함"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert operator_lines(conversation(c003_api, conversation_id)) == [
        ("operator", "상담원 김상담", ANSWER, ticket.number)
    ]
    # Once per answer: the line's origin is the ticket message.
    message = TicketMessage.objects.get(ticket=ticket, author_type="OPERATOR")
    assert ChatMessage.objects.filter(origin=f"ticket_message:{message.pk}").count() == 1


def test_after_returns_only_the_newer_lines_and_a_bad_after_is_400(c003_api, handoff, operator_user):
    conversation_id, ticket = handoff
    seen = conversation(c003_api, conversation_id)
    last_id = seen[-1]["id"]
    assert conversation(c003_api, conversation_id, after=last_id) == []
    api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": ANSWER}, format="json")
    newer = conversation(c003_api, conversation_id, after=last_id)
    assert [(m["role"], m["content"]) for m in newer] == [("operator", ANSWER)]
    assert newer[0]["id"] > last_id
    for bad in ("abc", "-1", "1.5", str(2**63)):
        response = c003_api.get(f"/api/chat/{conversation_id}/", {"after": bad})
        assert response.status_code == 400 and response.json()["code"] == "invalid", (bad, response.content)


def test_the_agent_does_not_read_the_operator_line_as_its_own_words(c003_api, handoff, operator_user, offline_model):
    conversation_id, ticket = handoff
    api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": ANSWER}, format="json")
    body = say(c003_api, "나 뭐 주문했지", conversation_id)
    assert body["conversation_id"] == conversation_id
    roles = [m["role"] for m in conversation(c003_api, conversation_id)]
    assert roles == ["customer", "assistant", "operator", "customer", "assistant"]


# --- live: the cursor moves, unread counts ---------------------------------------------------------------------


def test_live_moves_with_an_answer_counts_it_unread_and_reading_the_conversation_clears_it(
    c003_api, handoff, operator_user
):
    conversation_id, ticket = handoff
    first = c003_api.get("/api/live/")
    assert first.status_code == 200 and first.json()["unread"] == 0
    assert c003_api.get("/api/live/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304

    api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": ANSWER}, format="json")
    moved = c003_api.get("/api/live/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert moved.status_code == 200 and moved.json()["unread"] == 1
    assert c003_api.get("/api/live/", HTTP_IF_NONE_MATCH=moved["ETag"]).status_code == 304
    [listed] = [t for t in c003_api.get("/api/tickets/").json() if t["ticket_id"] == ticket.number]
    assert (listed["unread"], listed["conversation_id"]) == (1, conversation_id)

    api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": "추가 안내입니다."}, format="json")
    assert c003_api.get("/api/live/").json()["unread"] == 2

    conversation(c003_api, conversation_id)  # the customer reads the answers where they are
    read = c003_api.get("/api/live/", HTTP_IF_NONE_MATCH=moved["ETag"])
    assert read.status_code == 200 and read.json()["unread"] == 0
    [listed] = [t for t in c003_api.get("/api/tickets/").json() if t["ticket_id"] == ticket.number]
    assert listed["unread"] == 0


def test_someone_elses_answer_neither_moves_the_cursor_nor_counts(c003_api, operator_user, offline_model):
    first = c003_api.get("/api/live/")
    c005 = Customer.objects.select_related("user").get(pk="C005")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=c005.user, actor=c005.user)[1]}")
    number = next(r["ticket_id"] for r in say(other, "상담원 연결해 주세요")["tool_results"] if r.get("ticket_id"))
    api_as(operator_user).post(f"/api/ops/tickets/{number}/reply/", {"body": ANSWER}, format="json")
    assert c003_api.get("/api/live/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


# --- outcomes of the customer's requests -----------------------------------------------------------------------


def _refund_in_chat(api) -> tuple[str, str]:
    body = say(api, "텀블러 환불해줘 뚜껑이 찌그러져서 왔어")
    [result] = [r for r in body["tool_results"] if r.get("action_id")]
    assert (result["tool"], result["status"]) == ("request_refund", "PENDING")
    return body["conversation_id"], result["action_id"]


def _system_lines(api, conversation_id) -> list[dict]:
    return [m for m in conversation(api, conversation_id) if m["role"] == "system"]


def test_an_approval_appears_in_the_conversation_that_asked_and_moves_live(c003_api, operator_user, offline_model):
    conversation_id, number = _refund_in_chat(c003_api)
    before = c003_api.get("/api/live/")
    response = api_as(operator_user).post(f"/api/ops/actions/{number}/decide/", {"approve": True}, format="json")
    assert response.status_code == 200, response.content

    [line] = _system_lines(c003_api, conversation_id)
    assert line["author"] == "안내" and line["ticket_id"] is None
    assert line["content"] == (
        f"환불 요청 {number}(스테인리스 텀블러)이 승인되었습니다. 반품이 확인되어 38,000원이 환불 처리되었습니다."
    )
    assert line["tool_results"][0]["action_id"] == number and line["tool_results"][0]["status"] == "APPROVED"
    assert c003_api.get("/api/live/", HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 200


def test_a_rejection_appears_in_the_conversation_that_asked(c003_api, operator_user, offline_model):
    conversation_id, number = _refund_in_chat(c003_api)
    api_as(operator_user).post(
        f"/api/ops/actions/{number}/decide/", {"approve": False, "note": "사진 확인 필요"}, format="json"
    )
    [line] = _system_lines(c003_api, conversation_id)
    assert line["content"].startswith(f"환불 요청 {number}(스테인리스 텀블러)이 반려되었습니다.")
    assert "사진 확인 필요" not in line["content"]  # the decision note is the desk's, not the customer's


@pytest.fixture
def connected(shop, settings):
    """A shop with a webhook at a live loopback receiver, its data imported (customer S900 with an e-mail)."""
    settings.CS_OUTBOX_BACKOFF_BASE_S = 10
    with shop_connected() as connected:
        yield connected


def _shop_customer_api(issued) -> APIClient:
    """S900 arrives signed in from the shop (a shop-signed session exchanged for a token)."""
    import time

    expires = int(time.time()) + 300
    response = APIClient().post(
        "/api/auth/shop-session/",
        {
            "integration": issued.integration.name,
            "customer_id": CUSTOMER_ID,
            "expires_at": expires,
            "signature": session_signature(issued.signing_secret, CUSTOMER_ID, expires),
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    return client


@pytest.mark.parametrize("ok, expected", [(True, "DONE"), (False, "FAILED")])
def test_the_shops_result_appears_in_the_conversation_after_the_approval(
    connected, operator_user, offline_model, ok, expected
):
    issued, _ = connected
    api = _shop_customer_api(issued)
    body = say(api, f"{ORDER_ID} 환불해 주세요. 밑창이 떨어져서 왔어요")
    [result] = [r for r in body["tool_results"] if r.get("action_id")]
    number = result["action_id"]
    api_as(operator_user).post(f"/api/ops/actions/{number}/decide/", {"approve": True}, format="json")
    shop = APIClient()
    shop.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.api_key}")
    response = shop.post(
        f"/api/integration/actions/{number}/result/", {"ok": ok, "external_ref": "PG-1"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert ActionRecord.objects.get(pk=parse_number("A", number)).status == expected

    lines = [m["content"] for m in _system_lines(api, body["conversation_id"])]
    assert lines[0] == (
        f"환불 요청 {number}(연동 러닝화)이 승인되었습니다. 쇼핑몰에서 59,000원 환불을 진행하며, 끝나면 이 대화로 "
        "알려 드립니다."
    )
    assert lines[1] == (
        f"환불 요청 {number}(연동 러닝화)의 환불이 완료되었습니다. 환불 금액: 59,000원."
        if ok
        else f"환불 요청 {number}(연동 러닝화)의 환불 처리에 실패했습니다. 상담원이 확인한 뒤 다시 안내해 드리겠습니다."
    )
    assert len(lines) == 2


# --- the shop is told: ticket.replied ----------------------------------------------------------------------------


def test_ticket_replied_reaches_the_shop_once_signed_and_in_the_pull_feed_and_no_desk_email(connected, operator_user):
    issued, simulator = connected
    customer = Customer.objects.get(pk=CUSTOMER_ID)
    from tickets.services import ticket_create

    ticket = ticket_create(
        customer=customer, category="DELIVERY", subject="배송 문의", body="언제 와요?", source="API", author=None
    )
    reply = "010-9999-8888로 연락드렸습니다. 서울시 강남구 테헤란로 1로 내일 도착합니다."
    response = api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": reply}, format="json")
    assert response.status_code == 201, response.content

    [event] = simulator.of_type("ticket.replied")
    assert event.signature_ok and event.header_id_matches
    data = event.body["data"]
    assert set(data) == {"ticket_id", "customer_id", "order_id", "excerpt", "thread_url", "notify"}
    assert (data["ticket_id"], data["customer_id"], data["order_id"], data["notify"]) == (
        ticket.number,
        CUSTOMER_ID,
        None,
        True,
    )
    assert data["thread_url"] == f"http://127.0.0.1:8000/?ticket={ticket.number}"
    assert "010-9999-8888" not in data["excerpt"] and "테헤란로 1" not in data["excerpt"] and data["excerpt"]
    assert ShopEvent.objects.filter(type="ticket.replied").count() == 1

    shop = APIClient()
    shop.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.api_key}")
    feed = shop.get("/api/integration/events/").json()["events"]
    [pulled] = [e for e in feed if e["type"] == "ticket.replied"]
    assert pulled["data"] == data and pulled["id"] == event.body["id"]
    # The shop notifies its own customer: the desk sends no e-mail (S900 has an address).
    assert customer.email and mail.outbox == []
    assert not OutboxMessage.objects.filter(topic=REPLY_NOTICE_TOPIC).exists()


# --- the e-mail for a customer of the desk's own -----------------------------------------------------------------


def test_the_reply_email_has_the_thread_link_and_nothing_personal_but_the_name(c003_api, handoff, operator_user):
    _, ticket = handoff
    api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": ANSWER}, format="json")
    [email] = mail.outbox
    c003 = Customer.objects.get(pk="C003")
    assert email.to == [c003.email]
    assert ticket.number in email.subject
    assert f"http://127.0.0.1:8000/?ticket={ticket.number}" in email.body
    assert c003.name in email.body
    addresses = list(c003.orders.values_list("shipping_address", flat=True))
    assert addresses
    for personal in (c003.phone, c003.phone.replace("-", ""), c003.email, *addresses, ANSWER):
        assert personal not in email.body and personal not in email.subject, personal
    assert OutboxMessage.objects.get(topic=REPLY_NOTICE_TOPIC).status == OutboxMessage.Status.DONE
    # The shop's event for a desk customer goes nowhere (no shop owns C003), and says notify: true.
    row = OutboxMessage.objects.get(topic="shop.event", payload__type="ticket.replied")
    assert row.payload["data"]["notify"] is True


def test_notices_off_means_no_email_and_notify_false(c003_api, handoff, operator_user):
    _, ticket = handoff
    assert c003_api.get("/api/me/notices/").json() == {"email_notices": True, "email": "ji●●●@example.com"}
    response = c003_api.put("/api/me/notices/", {"email_notices": False}, format="json")
    assert response.status_code == 200 and response.json()["email_notices"] is False
    assert c003_api.put("/api/me/notices/", {"email_notices": "no"}, format="json").status_code == 400

    api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": ANSWER}, format="json")
    assert mail.outbox == []
    assert not OutboxMessage.objects.filter(topic=REPLY_NOTICE_TOPIC).exists()
    row = OutboxMessage.objects.get(topic="shop.event", payload__type="ticket.replied")
    assert row.payload["data"]["notify"] is False


# --- CSAT --------------------------------------------------------------------------------------------------------


def _rate(api, number, **body):
    return api.post(f"/api/tickets/{number}/rating/", body, format="json")


def test_csat_is_refused_before_an_answer_stored_once_and_bad_scores_are_400(c003_api, handoff, operator_user):
    _, ticket = handoff
    [listed] = [t for t in c003_api.get("/api/tickets/").json() if t["ticket_id"] == ticket.number]
    assert (listed["rating"], listed["can_rate"]) == (None, False)
    early = _rate(c003_api, ticket.number, score=5)
    assert early.status_code == 409 and early.json()["code"] == "not_answered"

    api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": ANSWER}, format="json")
    assert c003_api.get(f"/api/tickets/{ticket.number}/").json()["can_rate"] is True
    for bad in (0, 6, "5", 4.5, None, True):
        response = _rate(c003_api, ticket.number, score=bad)
        assert response.status_code == 400, (bad, response.content)
    assert _rate(c003_api, ticket.number, score=3, comment="가" * 501).status_code == 400
    assert not TicketRating.objects.exists()

    rated = _rate(c003_api, ticket.number, score=2, comment="  답이 늦었어요 ")
    assert rated.status_code == 201 and rated.json() == {"score": 2, "comment": "답이 늦었어요"}
    again = _rate(c003_api, ticket.number, score=5)
    assert again.status_code == 409 and again.json()["code"] == "already_rated"
    assert list(TicketRating.objects.values_list("score", "comment")) == [(2, "답이 늦었어요")]

    detail = c003_api.get(f"/api/tickets/{ticket.number}/").json()
    assert (detail["rating"], detail["can_rate"]) == ({"score": 2, "comment": "답이 늦었어요"}, False)
    # A low score reopens nothing.
    assert Ticket.objects.get(pk=ticket.pk).status == Ticket.Status.ANSWERED
    # Someone else's ticket is not found.
    c005 = Customer.objects.select_related("user").get(pk="C005")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=c005.user, actor=c005.user)[1]}")
    assert _rate(other, ticket.number, score=5).status_code == 404


def test_metrics_show_csat_per_day_and_category_and_list_the_low_scores(c003_api, handoff, operator_user):
    _, ticket = handoff
    api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": ANSWER}, format="json")
    _rate(c003_api, ticket.number, score=1, comment="별로예요")

    admin = Client()
    admin.force_login(operator_user)
    report = admin.get("/admin/metrics/", {"format": "json", "since": "", "until": ""}).json()
    overall = report["overall"]["csat"]
    assert (overall["rated"], overall["average"], overall["low"], overall["by_score"]["1"]) == (1, 1.0, 1, 1)
    [category] = [c for c in overall["by_category"] if c["rated"]]
    assert (category["category"], category["rated"]) == (ticket.category, 1)
    [day] = [d for d in report["days"] if d["csat"]["rated"]]
    assert day["csat"]["rated"] == 1
    [low] = report["low_csat"]
    assert (low["ticket_id"], low["score"], low["comment"]) == (ticket.number, 1, "별로예요")
    page = admin.get("/admin/metrics/", {"since": "", "until": ""}).content.decode()
    assert 'id="table-csat"' in page and 'id="table-low-csat"' in page and "별로예요" in page


def test_a_mail_server_that_refuses_leaves_the_email_owed_and_the_sweep_sends_it_once(
    c003_api, handoff, operator_user, settings
):
    from datetime import timedelta

    from django.utils import timezone

    from common.outbox import outbox_sweep

    _, ticket = handoff
    # A real SMTP connection to a port nobody listens on: refused, so nothing is sent and the answer stands.
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 1, 2
    response = api_as(operator_user).post(f"/api/ops/tickets/{ticket.number}/reply/", {"body": ANSWER}, format="json")
    assert response.status_code == 201
    row = OutboxMessage.objects.get(topic=REPLY_NOTICE_TOPIC)
    assert (row.status, row.attempts, row.last_error) == (OutboxMessage.Status.PENDING, 1, "ConnectionRefusedError")

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    OutboxMessage.objects.filter(pk=row.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    outbox_sweep()
    outbox_sweep()  # a second pass finds nothing owed
    assert len(mail.outbox) == 1 and ticket.number in mail.outbox[0].subject
    row.refresh_from_db()
    assert (row.status, row.attempts) == (OutboxMessage.Status.DONE, 2)
