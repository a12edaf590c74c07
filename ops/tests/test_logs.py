"""No phone number, e-mail, address, token or message body reaches the logs, even at DEBUG."""

import io
import json
import logging
import sys

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from chat.tools import make_action_tools
from ops.logs import kv_formatter, redact_text
from orders.models import Customer
from tickets.services import ticket_create

pytestmark = pytest.mark.django_db

CHAT_ADDRESS = "서울특별시 중구 세종대로 110, 3층"
TOOL_ADDRESS = "부산광역시 해운대구 센텀중앙로 79, 2104호"
CHAT_MESSAGES = [
    f"HR20260726002 배송지를 {CHAT_ADDRESS}으로 바꿔 주세요",
    "상담원 연결해 주세요. 제 번호는 010-5523-1003, 메일은 jihoon.park@example.com 이에요",
]
TICKET_SUBJECT = "현관 비밀번호 안내"
TICKET_BODY = "문 앞에 두지 말고 경비실에 맡겨 주세요. 공동현관 비밀번호는 별표 4821 입니다."


def _shop_secrets() -> list[str]:
    data = json.loads((settings.FIXTURES_DIR / "shop.json").read_text(encoding="utf-8"))
    secrets = []
    for customer in data["customers"]:
        secrets += [customer["phone"], customer["phone"].replace("-", ""), customer["email"]]
    secrets += sorted({order["shipping_address"] for order in data["orders"]})
    return secrets


@pytest.fixture
def kv_output():
    """What the configured "kv" formatter writes for every record (DEBUG and up) during the test."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(kv_formatter())
    handler.setLevel(logging.DEBUG)
    root = logging.getLogger()
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


# Committed for real: the after-commit AI draft runs (eagerly, embedded mode) in its own threads and
# connections, as in production, instead of waiting on this test's open transaction.
@pytest.mark.django_db(transaction=True)
def test_scripted_session_logs_events_but_no_personal_data(shop_knowledge, offline_model, settings, caplog, kv_output):
    # DEBUG=True as on a developer machine: Django would log SQL with its parameters at DEBUG level.
    settings.DEBUG = True
    caplog.set_level(logging.DEBUG)
    client = APIClient()

    # 1. The customer logs in with a password and gets an API token.
    response = client.post("/api/auth/token/", {"username": "c003", "password": "demo1234"}, format="json")
    token = response.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")

    # 2. Chat turns through the API with the built-in model: an address change, then an escalation.
    conversation_id = None
    for text in CHAT_MESSAGES:
        payload = {"message": text, **({"conversation_id": conversation_id} if conversation_id else {})}
        response = client.post("/api/chat/", payload, format="json")
        assert response.status_code == 200, response.content
        conversation_id = response.json()["conversation_id"]

    # 3. A ticket through the service; the after-commit AI draft runs too (eager in embedded mode).
    c003 = Customer.objects.select_related("user").get(pk="C003")
    ticket_create(
        customer=c003, category="배송", subject=TICKET_SUBJECT, body=TICKET_BODY, source="API", author=c003.user
    )

    # 4. An address change through the agent's tools.
    result = make_action_tools(c003).call(
        "change_shipping_address", {"order_id": "HR20260726002", "new_address": TOOL_ADDRESS}
    )
    assert result["ok"] is True

    raw = caplog.text  # messages with their arguments, as any handler would receive them
    rendered = kv_output.getvalue()
    # The session did log, as key/value events.
    for event in ("chat.turn", "ticket.created", "action.address_changed", "llm.call", "drafts.done"):
        assert f"event={event} " in rendered, event
    assert all(line.startswith("timestamp=") for line in rendered.splitlines() if line)

    forbidden = _shop_secrets() + [
        CHAT_ADDRESS,
        TOOL_ADDRESS,
        token,
        "demo1234",
        *CHAT_MESSAGES,
        TICKET_SUBJECT,
        TICKET_BODY,
        "세종대로",
        "센텀중앙로",
        "경비실",
        "4821",
    ]
    leaks = [
        (text, where) for text in forbidden for where, out in (("raw", raw), ("rendered", rendered)) if text in out
    ]
    assert leaks == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("call 010-5523-1003 now", "call [전화번호] now"),
        ("call 01055231003 now", "call [전화번호] now"),
        ("call +82 10-5523-1003", "call [전화번호]"),
        ("office 02-123-4567", "office [전화번호]"),
        ("mail jihoon.park@example.com", "mail [이메일]"),
        ("Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "Authorization: Token [토큰]"),
        ("key 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "key [토큰]"),
        ("Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "Bearer [토큰]"),
        ("api_key=sk-proj-abcdefghijklmnop", "api_key=[토큰]"),
        ("to 서울특별시 송파구 올림픽로 300, 101동 1502호.", "to [주소]."),
        ("to 경기도 고양시 일산동구 중앙로 1275, 1707호", "to [주소]"),
        # Ids and dates stay readable.
        (
            "order_id=HR20260721001 ticket_id=T00001 on 2026-07-27",
            "order_id=HR20260721001 ticket_id=T00001 on 2026-07-27",
        ),
        (
            "conversation_id=3f2a0101-2345-4678-9abc-0123456789ab",
            "conversation_id=3f2a0101-2345-4678-9abc-0123456789ab",
        ),
    ],
)
def test_redact_text_masks_contact_details_and_credentials(text, expected):
    assert redact_text(text) == expected


def test_formatter_renders_event_messages_as_key_values_and_redacts_what_slips_through():
    formatter = kv_formatter()
    record = logging.LogRecord(
        "tickets.services", logging.INFO, __file__, 1, "ticket.created ticket_id=%s source=%s", ("T00001", "API"), None
    )
    line = formatter.format(record)
    assert " level=info logger=tickets.services event=ticket.created ticket_id=T00001 source=API" in line
    leaky = logging.LogRecord("x", logging.WARNING, __file__, 1, "phone=%s mail %s", ("010-5523-1003", "a@b.co"), None)
    assert formatter.format(leaky).endswith('event="phone=[전화번호] mail [이메일]"')
    try:
        raise ValueError("customer 010-5523-1003")
    except ValueError:
        crashed = logging.LogRecord(
            "chat.agent", logging.ERROR, __file__, 1, "agent.tool_crashed tool=x", (), sys.exc_info()
        )
    line = formatter.format(crashed)
    assert "event=agent.tool_crashed tool=x exception=" in line and "010-5523-1003" not in line and "\n" not in line
