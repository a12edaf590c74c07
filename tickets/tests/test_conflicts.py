"""No two people on one ticket: who else has it open (presence: heartbeat, expiry, the table in embedded mode
and Redis with a TTL), and a reply written while the conversation moved on (last_seen_message_id → 409
ticket_changed with the newer messages, their authors and the writer's own text; in the admin the text stays in
the box). Two operators replying at once with the same screen: exactly one answer (PostgreSQL, real threads)."""

from __future__ import annotations

import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from common.tests.factories import operator_with
from testsupport.api import api_as
from tickets.models import Ticket, TicketMessage, TicketPresence
from tickets.presence import presence_beat, presence_leave, presence_list
from tickets.services import ticket_message_add, ticket_reply_add
from tickets.tests.factories import TicketMessageFactory

HANDLER = ("tickets.view_ticket", "tickets.view_ticketmessage", "drafts.view_draft", "tickets.reply_ticket")
TEXT = "문의 주셔서 감사합니다. 상품은 내일 도착할 예정입니다."


@pytest.fixture
def kim(db):
    return operator_with(*HANDLER, username="kim", last_name="김", first_name="상담")


@pytest.fixture
def lee(db):
    return operator_with(*HANDLER, username="lee", last_name="이", first_name="상담")


@pytest.fixture
def asked(db, settings):
    """A customer's question (no drafts: the reply, not the pipeline, is under test)."""
    settings.CS_AI_DRAFTS_ENABLED = False
    return TicketMessageFactory().ticket


def _operator_messages(ticket) -> list[str]:
    return list(TicketMessage.objects.filter(ticket=ticket, author_type="OPERATOR").values_list("body", flat=True))


# --- a reply from a screen that is out of date --------------------------------------------------------------------
@pytest.mark.django_db
def test_a_colleagues_answer_since_my_screen_stops_my_reply_and_gives_my_text_back(asked, kim, lee, settings):
    seen = asked.messages.get().pk
    settings.CS_NOW = "2026-08-18T14:02:00+09:00"
    ticket_reply_add(ticket=asked, body="내일 도착합니다.", actor=kim)  # 김상담 answered first
    response = api_as(lee).post(
        f"/api/ops/tickets/{asked.number}/reply/", {"body": TEXT, "last_seen_message_id": seen}, format="json"
    )
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "ticket_changed"
    assert body["detail"] == (
        "김상담님이 14:02에 먼저 답변했습니다. 작성하신 내용은 아래에 그대로 있습니다. "
        "새 내용을 확인한 뒤 다시 보내 주세요."
    )
    assert body["body"] == TEXT  # the operator's own text, not lost
    assert [(m["author_type"], m["author"], m["author_name"], m["body"]) for m in body["messages"]] == [
        ("OPERATOR", "kim", "김상담", "내일 도착합니다.")
    ]
    assert body["messages"][0]["created_at"] == "2026-08-18T14:02:00+09:00"
    assert _operator_messages(asked) == ["내일 도착합니다."]  # nothing more was stored
    # Having seen it, lee may still answer.
    newest = asked.messages.order_by("-id").first().pk
    again = api_as(lee).post(
        f"/api/ops/tickets/{asked.number}/reply/", {"body": TEXT, "last_seen_message_id": newest}, format="json"
    )
    assert again.status_code == 201 and _operator_messages(asked) == ["내일 도착합니다.", TEXT]


@pytest.mark.django_db
def test_a_new_customer_message_since_my_screen_stops_my_reply(asked, kim, settings):
    seen = asked.messages.get().pk
    settings.CS_NOW = "2026-08-18T09:15:00+09:00"
    ticket_message_add(ticket=asked, body="주소도 바꿀 수 있나요?", author=asked.customer.user)
    response = api_as(kim).post(
        f"/api/ops/tickets/{asked.number}/reply/", {"body": TEXT, "last_seen_message_id": seen}, format="json"
    )
    body = response.json()
    assert (response.status_code, body["code"], body["body"]) == (409, "ticket_changed", TEXT)
    assert body["detail"].startswith("고객이 09:15에 새 메시지를 보냈습니다. 작성하신 내용은 아래에 그대로 있습니다.")
    assert [(m["author_type"], m["author_name"]) for m in body["messages"]] == [("CUSTOMER", "고객")]
    assert _operator_messages(asked) == []


@pytest.mark.django_db
def test_without_last_seen_the_reply_is_sent_as_before(asked, kim):
    response = api_as(kim).post(f"/api/ops/tickets/{asked.number}/reply/", {"body": TEXT}, format="json")
    assert response.status_code == 201


@pytest.mark.django_db
def test_bad_last_seen_values_are_refused(asked, kim):
    for bad in ("12", -1, 1.5, True):
        response = api_as(kim).post(
            f"/api/ops/tickets/{asked.number}/reply/", {"body": TEXT, "last_seen_message_id": bad}, format="json"
        )
        assert (response.status_code, response.json()["code"]) == (400, "invalid"), bad


@pytest.mark.django_db
def test_in_the_admin_the_text_stays_in_the_box_and_the_message_says_who_answered(asked, kim, lee, client):
    client.force_login(lee)
    page = client.get(reverse("admin:tickets_ticket_change", args=[asked.pk])).content.decode()
    seen = asked.messages.get().pk
    assert f'name="last_seen_message_id" value="{seen}"' in page
    ticket_reply_add(ticket=asked, body="내일 도착합니다.", actor=kim)
    response = client.post(
        reverse("admin:tickets_ticket_reply", args=[asked.pk]),
        {"body": TEXT, "last_seen_message_id": str(seen)},
        follow=True,
    )
    html = response.content.decode()
    assert "김상담님이" in html and "먼저 답변했습니다. 작성하신 내용은 아래에 그대로 있습니다." in html
    assert f">{TEXT}</textarea>" in html  # kept in the reply box
    assert "내일 도착합니다." in html  # and the colleague's answer is on screen now
    assert _operator_messages(asked) == ["내일 도착합니다."]


# --- who else has it open ------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_presence_heartbeats_show_who_else_is_viewing_or_writing(asked, kim, lee, settings):
    settings.CS_PRESENCE_TTL_S = 30
    response = api_as(kim).post(f"/api/ops/tickets/{asked.number}/presence/", {"typing": True}, format="json")
    assert response.status_code == 200 and response.json() == {"present": []}  # nobody else yet
    seen_by_lee = api_as(lee).post(f"/api/ops/tickets/{asked.number}/presence/", {}, format="json").json()
    assert seen_by_lee == {
        "present": [{"username": "kim", "name": "김상담", "typing": True, "words": "김상담님이 작성 중"}]
    }
    detail = api_as(lee).get(f"/api/ops/tickets/{asked.number}/").json()
    assert [p["words"] for p in detail["present"]] == ["김상담님이 작성 중"]
    # A heartbeat lasts CS_PRESENCE_TTL_S: an old one no longer counts (and is cleared).
    TicketPresence.objects.filter(user=kim).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert presence_list(ticket_id=asked.pk, exclude_user_id=lee.pk) == []
    assert not TicketPresence.objects.filter(user=kim).exists()
    # Leaving the page drops it at once.
    presence_beat(ticket_id=asked.pk, user=kim, typing=False)
    api_as(kim).post(f"/api/ops/tickets/{asked.number}/presence/", {"leaving": True}, format="json")
    assert presence_list(ticket_id=asked.pk, exclude_user_id=lee.pk) == []


@pytest.mark.django_db
def test_a_page_closing_as_its_reload_opens_leaves_the_new_pages_presence(asked, kim, lee, settings):
    """Taking the ticket or sending a reply reloads the page: the old page's leaving message arrives after the
    new page said it is there, and must not take that away (a colleague opening the ticket then saw nobody)."""
    settings.CS_PRESENCE_TTL_S = 30
    presence_beat(ticket_id=asked.pk, user=kim, typing=False, page="old")
    presence_beat(ticket_id=asked.pk, user=kim, typing=False, page="new")
    body = {"leaving": True, "page": "old"}
    api_as(kim).post(f"/api/ops/tickets/{asked.number}/presence/", body, format="json")
    assert [p.words for p in presence_list(ticket_id=asked.pk, exclude_user_id=lee.pk)] == ["김상담님이 보는 중"]
    api_as(kim).post(f"/api/ops/tickets/{asked.number}/presence/", {"leaving": True, "page": "new"}, format="json")
    assert presence_list(ticket_id=asked.pk, exclude_user_id=lee.pk) == []


@pytest.mark.django_db
def test_the_ticket_page_says_who_else_has_it_open(asked, kim, lee, client):
    presence_beat(ticket_id=asked.pk, user=kim, typing=True)
    client.force_login(lee)
    page = client.get(reverse("admin:tickets_ticket_change", args=[asked.pk])).content.decode()
    assert 'id="cs-presence"' in page and "김상담님이 작성 중" in page
    assert 'src="/static/tickets/presence.js"' in page
    # Opening the page is itself a heartbeat: kim now sees lee.
    assert [p.words for p in presence_list(ticket_id=asked.pk, exclude_user_id=kim.pk)] == ["이상담님이 보는 중"]


@pytest.mark.django_db
def test_presence_needs_the_ticket_view_permission(asked):
    outsider = operator_with(username="outsider")
    response = api_as(outsider).post(f"/api/ops/tickets/{asked.number}/presence/", {}, format="json")
    assert (response.status_code, response.json()["code"]) == (403, "permission_denied")


@pytest.mark.redis
@pytest.mark.django_db
def test_presence_lives_in_redis_with_a_ttl_when_redis_is_configured(asked, kim, lee, settings):
    import redis

    from tickets.presence import _key

    settings.REDIS_URL = os.environ.get("CS_TEST_REDIS_URL", "redis://127.0.0.1:6379/12")
    settings.CS_PRESENCE_TTL_S = 30
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete(_key(asked.pk))
    try:
        presence_beat(ticket_id=asked.pk, user=kim, typing=True)
        assert 0 < client.ttl(_key(asked.pk)) <= 30  # the key expires by itself
        assert not TicketPresence.objects.exists()  # nothing in the table
        assert [p.words for p in presence_list(ticket_id=asked.pk, exclude_user_id=lee.pk)] == ["김상담님이 작성 중"]
        # A heartbeat already over (its page closed without a word): dropped when read.
        client.hset(_key(asked.pk), str(lee.pk), json.dumps({"until": time.time() - 1, "typing": False}))
        assert [p.username for p in presence_list(ticket_id=asked.pk)] == ["kim"]
        assert client.hkeys(_key(asked.pk)) == [str(kim.pk).encode()]
        presence_beat(ticket_id=asked.pk, user=kim, typing=False, page="new")
        presence_leave(ticket_id=asked.pk, user=kim, page="old")  # a replaced page's leaving: ignored
        assert [p.username for p in presence_list(ticket_id=asked.pk)] == ["kim"]
        presence_leave(ticket_id=asked.pk, user=kim)
        assert presence_list(ticket_id=asked.pk) == []
    finally:
        client.delete(_key(asked.pk))


# --- two operators at once -----------------------------------------------------------------------------------------
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_operators_replying_at_once_from_the_same_screen_send_one_answer(kim, lee, settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = TicketMessageFactory().ticket
    seen = ticket.messages.get().pk
    barrier = threading.Barrier(2)

    def reply(user):
        try:
            barrier.wait(timeout=10)
            return api_as(user).post(
                f"/api/ops/tickets/{ticket.number}/reply/",
                {"body": f"{user.username}: {TEXT}", "last_seen_message_id": seen},
                format="json",
            )
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        responses = list(pool.map(reply, [kim, lee]))
    codes = sorted(r.status_code for r in responses)
    assert codes == [201, 409]
    lost = next(r for r in responses if r.status_code == 409).json()
    assert lost["code"] == "ticket_changed" and lost["body"].endswith(TEXT)
    winner = next(r for r in responses if r.status_code == 201).json()["message"]
    assert [m["body"] for m in lost["messages"]] == [winner["body"]]
    assert TicketMessage.objects.filter(ticket=ticket, author_type="OPERATOR").count() == 1
    assert Ticket.objects.get(pk=ticket.pk).events.filter(type="REPLIED").count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_ratings_sent_at_once_store_one_and_refuse_the_other():
    """Two tabs (the chat page and the widget) rating the same answer at once: one rating, one RATED event."""
    from common.actors import Actor
    from common.errors import DomainError
    from tickets.models import TicketRating
    from tickets.services import ticket_rate
    from tickets.tests.factories import TicketFactory

    ticket = TicketFactory(status=Ticket.Status.ANSWERED)
    actor = Actor("CUSTOMER", ticket.customer_id, ticket.customer.user)
    barrier = threading.Barrier(2)

    def rate(score):
        try:
            barrier.wait(timeout=10)
            ticket_rate(ticket=ticket, score=score, comment="", actor=actor)
            return "stored"
        except DomainError as exc:
            return exc.code
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = sorted(pool.map(rate, [2, 5]))
    assert outcomes == ["already_rated", "stored"]
    assert TicketRating.objects.filter(ticket=ticket).count() == 1
    assert Ticket.objects.get(pk=ticket.pk).events.filter(type="RATED").count() == 1
