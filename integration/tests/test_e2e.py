"""Acceptance, end to end over real HTTP: import JSONL → the customer arrives through a shop-signed session →
asks for a refund in the chat → an operator approves → the reference shop receives exactly one signed
`action.refund_approved` → reports the result → the customer sees 환불완료.

Embedded default (SQLite, delivery in-process) and PostgreSQL + Redis + a real Celery worker."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from io import StringIO

import pytest
from django.core.management import call_command

from actions.models import ActionRecord
from integration import policy
from integration.simulator import ShopSimulator
from integration.tests.factories import CUSTOMER_ID, ORDER_ID, jsonl_lines


def http(method: str, url: str, body: dict | None = None, token: str = "", scheme: str = "Token") -> tuple[int, dict]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={"Content-Type": "application/json", **({"Authorization": f"{scheme} {token}"} if token else {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def wait_until(predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


def _the_loop(live_server, tmp_path, operator_token: str) -> None:
    simulator = ShopSimulator(signing_secret="").start()
    try:
        out = StringIO()
        call_command("integration_create", "myshop", "--webhook-url", simulator.url, "--format", "json", stdout=out)
        issued = json.loads(out.getvalue())
        simulator.signing_secret = issued["signing_secret"]
        simulator.api_key, simulator.desk_url = issued["api_key"], live_server.url
        path = tmp_path / "shop.jsonl"
        path.write_text(jsonl_lines([ORDER_ID]), encoding="utf-8")
        call_command("import_shop", str(path), "--integration", "myshop", "--no-progress", stdout=StringIO())

        expires_at = int(time.time()) + 300
        signature = policy.session_signature(issued["signing_secret"], CUSTOMER_ID, expires_at)
        status, session = http(
            "POST",
            f"{live_server.url}/api/auth/shop-session/",
            {"integration": "myshop", "customer_id": CUSTOMER_ID, "expires_at": expires_at, "signature": signature},
        )
        assert status == 200, session
        token = session["token"]

        status, turn = http(
            "POST", f"{live_server.url}/api/chat/", {"message": f"{ORDER_ID} 상품하자로 환불해 주세요"}, token
        )
        assert status == 200, turn
        record = ActionRecord.objects.get(order_id=ORDER_ID)
        assert (record.kind, record.status) == ("REFUND", "PENDING"), turn["reply"]

        status, decided = http(
            "POST",
            f"{live_server.url}/api/ops/actions/{record.number}/decide/",
            {"approve": True},
            operator_token,
        )
        assert status == 200 and decided["status_display"] == "처리중", decided

        [event] = wait_until(lambda: simulator.of_type("action.refund_approved"))
        assert event.signature_ok and event.header_id_matches
        assert event.body["data"]["action_id"] == record.number and event.body["data"]["amount"] == 59000
        status, reported = simulator.report(record.number)
        assert status == 200 and reported["status_display"] == "환불완료"

        status, requests = http("GET", f"{live_server.url}/api/requests/", token=token)
        assert status == 200
        [mine] = [a for a in requests["actions"] if a["action_id"] == record.number]
        assert mine["status_display"] == "환불완료"
        time.sleep(0.5)  # nothing else arrives late
        assert len(simulator.received) == 1 and len(simulator.of_type("action.refund_approved")) == 1
    finally:
        simulator.stop()


def _operator_token(operator_user) -> str:
    from accounts.services import token_issue

    return token_issue(user=operator_user, actor=operator_user)[1]


@pytest.mark.django_db(transaction=True)
def test_the_whole_loop_on_the_embedded_default(live_server, shop, operator_user, offline_model, tmp_path):
    _the_loop(live_server, tmp_path, _operator_token(operator_user))


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_the_whole_loop_on_postgres_redis_and_a_celery_worker(
    offline_model, shop, operator_user, celery_worker, live_server, tmp_path
):
    _the_loop(live_server, tmp_path, _operator_token(operator_user))
    assert "integration.webhook_deliver" in open(celery_worker.log_path, encoding="utf-8").read()
