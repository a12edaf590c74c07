"""Degrade, don't fall over: outages of Redis, the broker and the database answer JSON, never HTML.

Every fault here is real: a Redis process of the test's own that is killed, a port nothing listens on, a
TCP proxy in front of PostgreSQL that is cut. Only the model is scripted.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket

import pytest
from django.db import OperationalError, connection
from django.test import RequestFactory

from chaos.processes import RedisServer
from chaos.proxy import TcpProxy
from chat import prompts
from chat.models import ChatMessage, Conversation
from common.numbering import parse_number
from common.outage import OUTAGE_CODE, OutageMiddleware, note_request_exception
from llm.testing import text_message
from tickets.models import Ticket, TicketMessage


def _dead_port() -> int:
    """A loopback port nothing listens on: connecting to it is refused, as to a Redis that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _point_redis_at(settings, url: str) -> None:
    """Cache (throttles) and broker (draft tasks) on `url`, as production with REDIS_URL does."""
    from cs_project.celery import broker_pools_reset

    settings.REDIS_URL = url
    settings.CACHES = {
        "default": {
            "BACKEND": "common.cache.RedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
    settings.CELERY_BROKER_URL = url
    settings.CELERY_TASK_ALWAYS_EAGER = False
    broker_pools_reset()


@pytest.fixture
def celery_pools_reset():
    from cs_project.celery import broker_pools_reset

    yield
    broker_pools_reset()


def assert_json_answer(response) -> None:
    """2xx, or the outage answer: 503 JSON {code, detail} with Retry-After. Never HTML."""
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    if response.status_code == 503:
        body = response.json()
        assert body["code"] == OUTAGE_CODE and body["detail"]
        assert int(response["Retry-After"]) > 0
    else:
        assert 200 <= response.status_code < 300, (response.status_code, response.content[:200])


# --- Redis / broker down: no process needed, a refused port is the fault ----------------------------
@pytest.mark.django_db(transaction=True)
def test_throttle_fails_open_and_committed_inquiry_survives_a_dead_broker(
    customer_api, offline_model, settings, celery_pools_reset
):
    _point_redis_at(settings, f"redis://127.0.0.1:{_dead_port()}/0")

    listed = customer_api.get("/api/tickets/")
    assert listed.status_code == 200  # the throttle's cache is unreachable: the request goes through

    created = customer_api.post("/api/tickets/", {"category": "배송", "body": "배송이 늦어요"}, format="json")
    assert created.status_code == 201, created.content[:300]
    ticket = Ticket.objects.get(pk=parse_number("T", created.json()["ticket_id"]))
    assert TicketMessage.objects.filter(ticket=ticket, body="배송이 늦어요").exists()

    follow = customer_api.post(
        f"/api/tickets/{created.json()['ticket_id']}/messages/", {"body": "확인 부탁드려요"}, format="json"
    )
    assert follow.status_code == 201
    assert ticket.messages.filter(author_type="CUSTOMER").count() == 2


@pytest.mark.django_db(transaction=True)
def test_chat_answers_while_cache_and_broker_are_down(customer_api, offline_model, settings, celery_pools_reset):
    _point_redis_at(settings, f"redis://127.0.0.1:{_dead_port()}/0")
    response = customer_api.post("/api/chat/", {"message": "상담원 연결해 주세요"}, format="json")
    assert_json_answer(response)
    assert response.status_code == 200
    assert ChatMessage.objects.filter(role="customer", content="상담원 연결해 주세요").count() == 1


# --- a real Redis, killed during the test ----------------------------------------------------------
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_redis_outage_keeps_chat_and_tickets_answering_json(
    customer_api, offline_model, settings, tmp_path, celery_pools_reset
):
    if shutil.which("redis-server") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("redis-server is not installed")
        pytest.skip("redis-server is not installed")
    import redis

    server = RedisServer(tmp_path / "data", tmp_path)
    server.start(empty=True)
    try:
        _point_redis_at(settings, server.url)
        # Up: the throttle counts in this Redis and the draft task is queued in it.
        assert customer_api.get("/api/tickets/").status_code == 200
        created = customer_api.post("/api/tickets/", {"body": "환불 문의드립니다"}, format="json")
        assert created.status_code == 201
        client = redis.Redis.from_url(server.url)
        assert any(b"throttle" in key for key in client.keys("*")), "the throttle is not using the test's Redis"
        assert client.llen("celery") == 1, "the draft task was not queued in the test's Redis"
        client.close()

        server.kill()
        answers = [
            customer_api.get("/api/tickets/"),
            customer_api.post("/api/tickets/", {"body": "장애 중 문의"}, format="json"),
            customer_api.post(f"/api/tickets/{created.json()['ticket_id']}/messages/", {"body": "추가"}, format="json"),
            customer_api.post("/api/chat/", {"message": "내 주문 조회"}, format="json"),
            customer_api.get("/api/chat/" + str(Conversation.objects.order_by("-created_at").first().pk) + "/"),
        ]
        for response in answers:
            assert_json_answer(response)
        # Each 2xx write is stored.
        assert TicketMessage.objects.filter(body__in=["장애 중 문의", "추가"]).count() == sum(
            r.status_code == 201 for r in answers[1:3]
        )
        assert ChatMessage.objects.filter(role="customer", content="내 주문 조회").count() == 1
    finally:
        server.stop()


# --- the database cut behind a proxy (PostgreSQL) ---------------------------------------------------
@contextlib.contextmanager
def through_proxy():
    """This process's Django connection goes through a cuttable proxy for the duration."""
    original = dict(connection.settings_dict)
    proxy = TcpProxy(original.get("HOST") or "127.0.0.1", int(original.get("PORT") or 5432))
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT=str(proxy.port))
    try:
        yield proxy
    finally:
        connection.close()
        connection.settings_dict.update(HOST=original.get("HOST"), PORT=original.get("PORT"))
        proxy.close()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_chat_reply_that_cannot_be_written_still_returns_conversation_id(customer_api, scripted_model):
    with through_proxy() as proxy:

        def cut_then_answer(body: dict) -> dict:
            proxy.cut()  # the customer's words are committed; everything after this fails
            return text_message("답변입니다.")

        scripted_model.handler = cut_then_answer
        response = customer_api.post("/api/chat/", {"message": "배송 언제 와요?"}, format="json")
        proxy.restore()
    assert response.status_code == 200, response.content[:300]
    body = response.json()
    assert body["reply"] == prompts.RECEIVED_NOT_ANSWERED and "접수" in body["reply"]
    conversation = Conversation.objects.get(pk=body["conversation_id"])
    assert list(conversation.messages.values_list("role", "content")) == [("customer", "배송 언제 와요?")]
    # The customer can continue the same conversation once the database is back.
    scripted_model.handler = lambda body: text_message("이어서 도와드릴게요.")
    again = customer_api.post(
        "/api/chat/", {"message": "다시 물어볼게요", "conversation_id": body["conversation_id"]}, format="json"
    )
    assert again.status_code == 200 and again.json()["conversation_id"] == body["conversation_id"]
    assert conversation.messages.count() == 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_database_cut_answers_json_503_with_retry_after(customer_api, offline_model):
    with through_proxy() as proxy:
        proxy.cut()
        answers = [
            customer_api.get("/api/tickets/"),
            customer_api.post("/api/tickets/", {"body": "문의"}, format="json"),
            customer_api.post("/api/chat/", {"message": "안녕하세요"}, format="json"),
        ]
        proxy.restore()
    for response in answers:
        assert response.status_code == 503
        assert_json_answer(response)
    assert not TicketMessage.objects.filter(body="문의").exists()


# --- outside DRF: the middleware ---------------------------------------------------------------------
def test_middleware_turns_outage_outside_drf_into_json_503():
    request = RequestFactory().get("/api/anything/")
    middleware = OutageMiddleware(lambda r: None)
    response = middleware.process_exception(request, OperationalError("server closed the connection"))
    assert response.status_code == 503 and response["Retry-After"]
    assert json.loads(response.content)["code"] == OUTAGE_CODE
    # Not an outage, or not /api/: left to Django's own handling.
    assert middleware.process_exception(request, ValueError("bug")) is None
    assert middleware.process_exception(RequestFactory().get("/admin/"), OperationalError("x")) is None


def test_middleware_replaces_500_page_from_inner_middleware_outage():
    from django.http import HttpResponseServerError

    request = RequestFactory().get("/api/tickets/")
    try:
        raise OperationalError("could not connect to server")
    except OperationalError:
        note_request_exception(None, request=request)  # what Django's got_request_exception signal does
    response = OutageMiddleware(lambda r: HttpResponseServerError("<h1>Server Error</h1>"))(request)
    assert response.status_code == 503 and response["Content-Type"] == "application/json"
