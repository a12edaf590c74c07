"""The change endpoints (cs_project/live.py over common.live): who may ask, what 304/ETag means, and that no
audience learns of another's changes. The pages that use them are driven in web/tests/test_browser_live.py."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.test import APIClient

from accounts.services import token_issue
from accounts.tests.factories import token_client
from actions.models import ActionRecord
from actions.tests.factories import defect_refund
from common.actors import Actor
from common.live import change_marker
from common.tests.factories import superuser
from orders.models import Customer
from orders.tests.factories import CustomerFactory, OrderFactory, desk_operator
from tickets.models import TicketEvent
from tickets.services import ticket_create

pytestmark = pytest.mark.django_db

LIVE = "/admin/live/"


def _staff(username: str, *codenames: str):
    user = get_user_model().objects.create_user(username, password="x", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    return user


def _client(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def desk(db):
    """A staff user with the shop's operator permissions."""
    return desk_operator(username="operator")


def _inquiry(customer: Customer, subject: str = "배송 문의"):
    return ticket_create(
        customer=customer, category="DELIVERY", subject=subject, body="언제 와요?", source="API", author=customer.user
    )


def _refund(customer: Customer):
    """The customer's defect refund of an order delivered two days ago: pending."""
    order = OrderFactory(customer=customer, delivered_days_ago=2)
    return defect_refund("밑창이 떨어졌어요", customer_id=customer.customer_id, order_id=order.pk)


def test_each_topic_needs_the_view_permission_of_the_list_it_refreshes(customer, desk):
    users = {
        "anonymous": None,
        "customer": customer.user,
        "bare staff": _staff("bare"),
        "ticket viewer": _staff("tickets-only", "view_ticket"),
        "record viewer": _staff("records-only", "view_actionrecord"),
        "operator": desk,
        "superuser": superuser(),
    }
    expected = {  # tickets, actions, both
        "anonymous": (401, 401, 401),
        "customer": (403, 403, 403),
        "bare staff": (403, 403, 403),
        "ticket viewer": (200, 403, 403),
        "record viewer": (403, 200, 403),
        "operator": (200, 200, 200),
        "superuser": (200, 200, 200),
    }
    seen = {
        role: tuple(
            _client(user).get(LIVE, {"topics": topics}).status_code
            for topics in ("tickets", "actions", "tickets,actions")
        )
        for role, user in users.items()
    }
    assert seen == expected
    refused = _client(users["bare staff"]).get(LIVE, {"topics": "tickets"})
    assert refused.json() == {"code": "permission_denied", "detail": "이 목록을 볼 권한이 없습니다."}
    assert _client(None).get(LIVE, {"topics": "tickets"}).json()["code"] == "not_authenticated"


@pytest.mark.parametrize("query", [{}, {"topics": ""}, {"topics": "tickets,orders"}, {"topics": "users"}])
def test_an_unknown_or_missing_topic_is_a_400(customer, desk, query):
    response = _client(desk).get(LIVE, query)
    assert response.status_code == 400 and response.json()["code"] == "unknown_topic"


def test_only_get_is_answered(customer, desk):
    response = _client(desk).post(LIVE + "?topics=tickets")
    assert response.status_code == 405 and response["Allow"] == "GET"


def test_304_while_nothing_changed_and_200_with_a_new_etag_after_a_new_inquiry(customer, desk):
    client = _client(desk)
    first = client.get(LIVE, {"topics": "tickets"})
    assert first.status_code == 200 and first["ETag"].startswith('"')
    assert "private" in first["Cache-Control"] and "no-cache" in first["Cache-Control"]
    assert first.json()["cursor"] == first["ETag"].strip('"')

    again = client.get(LIVE, {"topics": "tickets"}, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == first["ETag"]

    _inquiry(customer)
    moved = client.get(LIVE, {"topics": "tickets"}, HTTP_IF_NONE_MATCH=first["ETag"])
    assert moved.status_code == 200 and moved["ETag"] != first["ETag"]
    assert client.get(LIVE, {"topics": "tickets"}, HTTP_IF_NONE_MATCH=moved["ETag"]).status_code == 304


def test_the_queue_topic_moves_with_requests_not_with_inquiries_and_carries_the_index_counts(customer, desk):
    client = _client(desk)
    before = client.get(LIVE, {"topics": "actions"})
    assert before.json()["counts"] == {"pending": 0, "failed": 0}
    _inquiry(customer)
    assert client.get(LIVE, {"topics": "actions"}, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 304
    _refund(customer)
    after = client.get(LIVE, {"topics": "actions"}, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after.json()["counts"] == {"pending": 1, "failed": 0}


def test_the_draft_column_moves_the_ticket_list_only_for_those_who_may_read_drafts(
    customer, offline_model, desk, django_capture_on_commit_callbacks
):
    from drafts.models import Draft, DraftEvent

    viewer = _client(_staff("tickets-only", "view_ticket"))
    operator = _client(desk)
    with django_capture_on_commit_callbacks(execute=True):
        _inquiry(customer)
    draft = Draft.objects.get()
    etags = {name: c.get(LIVE, {"topics": "tickets"})["ETag"] for name, c in (("v", viewer), ("o", operator))}
    DraftEvent.generated(draft, actor=Actor.system("test"), before=draft.status).save()
    assert viewer.get(LIVE, {"topics": "tickets"}, HTTP_IF_NONE_MATCH=etags["v"]).status_code == 304
    assert operator.get(LIVE, {"topics": "tickets"}, HTTP_IF_NONE_MATCH=etags["o"]).status_code == 200


def test_the_pages_carry_the_token_they_were_rendered_at_so_a_change_before_the_first_question_is_not_lost(
    customer, desk
):
    client = _client(desk)
    pages = {
        "tickets": client.get("/admin/tickets/ticket/").content.decode(),
        "actions": client.get("/admin/actions/actionrecord/?status__exact=PENDING").content.decode(),
        "index": client.get("/admin/").content.decode(),
    }
    for name, page in pages.items():
        url, etag = _live_script(page)
        assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304, name
    _inquiry(customer)
    _refund(customer)
    for name, page in pages.items():
        url, etag = _live_script(page)
        assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200, name


def _live_script(page: str) -> tuple[str, str]:
    tag = re.search(r'<script src="/static/common/live\.js"[^>]*>', page)
    assert tag, "no live.js on the page"
    attrs = dict(re.findall(r'(data-live-[a-z]+)="([^"]*)"', tag.group(0)))
    return attrs["data-live-url"].replace("&amp;", "&"), attrs["data-live-etag"].replace("&quot;", '"')


def test_no_script_for_someone_who_may_not_read_the_list(customer):
    viewer = _client(_staff("records-only", "view_actionrecord", "view_ticket"))
    assert "common/live.js" in viewer.get("/admin/tickets/ticket/").content.decode()
    none = _client(_staff("tickets-none"))
    assert "common/live.js" not in none.get("/admin/").content.decode()


def test_a_row_that_commits_after_a_newer_one_still_moves_the_marker(customer):
    assert change_marker(TicketEvent.objects.all()) == (0, 0)
    for n in range(3):
        _inquiry(customer, subject=f"문의 {n}")
    events = TicketEvent.objects.order_by("id")
    late = events[1]
    kept = {f.attname: getattr(late, f.attname) for f in TicketEvent._meta.concrete_fields}
    late.delete()  # not committed yet: a newer id is already visible
    seen = change_marker(TicketEvent.objects.all())
    TicketEvent.objects.create(**kept)  # commits now, with its older id
    after = change_marker(TicketEvent.objects.all())
    assert after[0] == seen[0]  # the newest id alone would not have moved
    assert after != seen


def test_the_304_answer_costs_a_fixed_handful_of_queries(customer, desk, django_assert_num_queries):
    client = _client(desk)
    etag = client.get(LIVE, {"topics": "tickets"})["ETag"]
    for n in range(5):
        _inquiry(customer, subject=f"문의 {n}")
    etag = client.get(LIVE, {"topics": "tickets"})["ETag"]
    # session, user, the user's and the groups' permissions, then one marker query per source
    # (ticket events, draft events).
    with django_assert_num_queries(6):
        assert client.get(LIVE, {"topics": "tickets"}, HTTP_IF_NONE_MATCH=etag).status_code == 304


@pytest.fixture
def memos(settings):
    """The per-process memos as production runs them (the test settings turn them off)."""
    from cs_project import live

    settings.CS_LIVE_GRANT_S = 10.0
    settings.CS_LIVE_CURSOR_CACHE_S = 0.5
    live._grants.clear()
    live._cursors.clear()
    yield settings
    live._grants.clear()
    live._cursors.clear()


def test_a_repeated_304_runs_no_query_once_the_session_was_checked(customer, desk, memos, django_assert_num_queries):
    client = _client(desk)
    etag = client.get(LIVE, {"topics": "tickets"})["ETag"]
    with django_assert_num_queries(0):
        for _ in range(3):
            assert client.get(LIVE, {"topics": "tickets"}, HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_a_change_is_seen_once_the_cursor_memo_expires(customer, desk, memos):
    memos.CS_LIVE_CURSOR_CACHE_S = 0.3
    client = _client(desk)
    etag = client.get(LIVE, {"topics": "tickets"})["ETag"]
    _inquiry(customer)
    time.sleep(0.35)
    assert client.get(LIVE, {"topics": "tickets"}, HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_a_revoked_permission_or_a_logout_takes_effect_when_the_grant_expires(customer, memos):
    memos.CS_LIVE_GRANT_S = 0.3
    user = _staff("tickets-only", "view_ticket")
    client = _client(user)
    assert client.get(LIVE, {"topics": "tickets"}).status_code == 200
    user.user_permissions.clear()
    time.sleep(0.35)
    assert _client(user).get(LIVE, {"topics": "tickets"}).status_code == 403  # a fresh session: checked at once
    assert client.get(LIVE, {"topics": "tickets"}).status_code == 403
    other = _client(_staff("tickets-too", "view_ticket"))
    assert other.get(LIVE, {"topics": "tickets"}).status_code == 200
    other.logout()
    time.sleep(0.35)
    assert other.get(LIVE, {"topics": "tickets"}).status_code == 401


def test_a_grant_is_per_session_and_topics_never_shared(customer, desk, memos):
    operator = _client(desk)
    assert operator.get(LIVE, {"topics": "tickets"}).status_code == 200
    stranger = Client()
    stranger.cookies["sessionid"] = "not-a-session"
    assert stranger.get(LIVE, {"topics": "tickets"}).status_code == 401
    assert operator.get(LIVE, {"topics": "tickets,actions"}).status_code == 200  # checked for these topics too
    viewer = _client(_staff("tickets-only", "view_ticket"))
    assert viewer.get(LIVE, {"topics": "tickets"}).status_code == 200
    assert viewer.get(LIVE, {"topics": "actions"}).status_code == 403


# --- a customer's own cursor ------------------------------------------------------------------------
def test_a_customers_cursor_moves_with_their_own_tickets_and_requests_and_no_one_elses(customer):
    own_api = token_client(customer.user)
    first = own_api.get("/api/live/")
    assert first.status_code == 200 and first.json() == {"cursor": first.json()["cursor"], "unread": 0}
    assert own_api.get("/api/live/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304

    _inquiry(CustomerFactory())  # someone else's inquiry
    assert own_api.get("/api/live/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304

    _refund(customer)  # their own request
    moved = own_api.get("/api/live/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert moved.status_code == 200 and moved["ETag"] != first["ETag"]
    _inquiry(customer)
    assert own_api.get("/api/live/", HTTP_IF_NONE_MATCH=moved["ETag"]).status_code == 200
    assert ActionRecord.objects.filter(customer=customer).count() == 1


def test_the_customer_cursor_is_for_customers_only(customer, desk):
    assert APIClient().get("/api/live/").status_code == 401
    staff = APIClient()
    _, key = token_issue(user=desk, actor=desk)
    staff.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert staff.get("/api/live/").status_code == 403
