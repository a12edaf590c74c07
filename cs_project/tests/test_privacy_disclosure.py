"""What leaves for the model (개인정보 보호법 제26조, 제28조의8): the generated disclosure names every field each
purpose sends, checked against the request bodies of a real session captured on the wire.

The session runs through the real APIs and the real `openai` client against the scripted model server: chat turns
that call every agent tool (so tool results and tool-call arguments go back to the model), an inquiry with a
follow-up and an error inquiry (draft, QA, confidence, tags, diagnosis). This test reads the captured bodies with
its own reading of the prompt format (fences, JSON inside them) and compares the fields it finds, purpose by
purpose, with the fields the disclosure lists: nothing sent is undeclared, nothing declared is unsent.
"""

from __future__ import annotations

import json
import re

import pytest

from llm.disclosure import disclosure_markdown, purpose_fields, undeclared, unsent
from llm.offline import structured_name
from llm.testing import text_message, tool_calls_message
from testsupport.scripted_chat import chat_scripted

pytestmark = pytest.mark.django_db(transaction=True)

FENCE = re.compile(r"<([a-z_]+)-([0-9a-f]{12})>\n(.*?)\n</\1-\2>", re.S)
DIAGNOSTIC = re.compile(r"<diagnostic_context>\n(.*?)\n</diagnostic_context>", re.S)
PURPOSES = ("chat", "draft", "qa", "confidence", "tags", "diagnosis")


def _paths(node, prefix: str):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, f"{prefix}.{key}" if prefix else key)
    elif isinstance(node, list):
        for value in node:
            yield from _paths(value, f"{prefix}[]")
    else:
        yield prefix


def wire_fields(body: dict) -> set[str]:
    """The data fields of one request as they appear on the wire: fenced text by its label, JSON inside a fence
    (or the diagnosis context) by label and path, the agent's own words and the arguments it called tools with."""
    found: set[str] = set()
    for message in body.get("messages") or []:
        role, content = message.get("role"), message.get("content") or ""
        if role == "system":
            continue
        if role == "assistant":
            if content:
                found.add("assistant_message")
            for call in message.get("tool_calls") or []:
                found |= {f"tool_call:{p}" for p in _paths(json.loads(call["function"]["arguments"]), "")}
            continue
        for fenced in FENCE.finditer(content):
            label, text = fenced.group(1), fenced.group(3)
            try:
                data = json.loads(text)
            except ValueError:
                data = None
            if isinstance(data, dict | list):
                found |= {f"{label}:{p}" for p in _paths(data, "")}
            else:
                found.add(label)
        for context in DIAGNOSTIC.finditer(content):
            found |= {f"diagnostic_context:{p}" for p in _paths(json.loads(context.group(1)), "")}
        if "문의 시각:" in FENCE.sub("", content):
            found.add("inquiry_at")
    return found


def _purpose(body: dict) -> str:
    return "chat" if body.get("tools") else structured_name(body) or "?"


@pytest.fixture
def session_model(scripted_model):
    chat_script = [
        tool_calls_message(
            [
                ("get_my_orders", {}),
                (
                    "change_shipping_address",
                    {"order_id": "HR20260726002", "new_address": "부산광역시 해운대구 센텀중앙로 97, 1201호"},
                ),
            ]
        ),
        text_message("배송지를 변경했습니다."),
        tool_calls_message(
            [
                (
                    "request_refund",
                    {
                        "order_id": "HR20260721001",
                        "reason_category": "상품하자",
                        "reason": "밑창 불량",
                        "note": "빠른 처리",
                    },
                ),
                (
                    "request_exchange",
                    {"order_id": "HR20260628003", "new_option": "블랙/500ml", "reason_category": "단순변심"},
                ),
                ("request_refund", {"order_id": "HR99999999999"}),
            ]
        ),
        text_message("요청을 등록했습니다."),
        tool_calls_message(
            [("get_my_requests", {}), ("create_ticket", {"category": "배송", "summary": "배송 지연 문의"})]
        ),
        text_message("상담원에게 연결했습니다."),
        tool_calls_message([("request_human_review", {}), ("request_my_data", {"kind": "열람"})]),
        text_message("재검토와 열람 요청을 접수했습니다."),
        tool_calls_message(
            [
                ("request_human_review", {"action_id": "A00001", "reason": "주소 확인"}),
                ("request_my_data", {"kind": "열람"}),
            ]
        ),
        text_message("이미 접수되어 있습니다."),
    ]
    return chat_scripted(scripted_model, chat_script)


def _run_session(c003_api, settings) -> None:
    turn = c003_api.post(
        "/api/chat/",
        {"message": "HR20260726002 배송지를 부산광역시 해운대구 센텀중앙로 97, 1201호로 바꿔 주세요."},
        format="json",
    )
    assert turn.status_code == 200, turn.content
    conversation = turn.json()["conversation_id"]
    for text in (
        "운동화 밑창이 불량이라 환불해 주시고 컵은 블랙으로 교환해 주세요.",
        "제 요청들 어떻게 됐나요? 상담원 연결해 주세요.",
        "배송지 바꾼 건 사람이 다시 검토해 주세요. 그리고 내 정보 열람 요청합니다.",
        "방금 그 두 가지 다시 요청할게요.",
    ):
        turn = c003_api.post("/api/chat/", {"message": text, "conversation_id": conversation}, format="json")
        assert turn.status_code == 200, turn.content
    created = c003_api.post(
        "/api/tickets/",
        {"category": "교환/반품", "order_id": "HR20260724005", "subject": "교환 문의", "body": "가방 색이 달라요."},
        format="json",
    )
    assert created.status_code == 201, created.content
    # An operator answers in their own words first: the follow-up's draft reads that answer too.
    from django.contrib.auth import get_user_model

    from tickets.models import Ticket
    from tickets.services import ticket_reply_send

    ticket = Ticket.objects.get(pk=int(created.json()["ticket_id"][1:]))
    ticket_reply_send(
        ticket_id=ticket.pk, body="사진을 보내 주시겠어요?", actor=get_user_model().objects.get(username="operator")
    )
    followup = c003_api.post(
        f"/api/tickets/{created.json()['ticket_id']}/messages/", {"body": "사진도 있어요."}, format="json"
    )
    assert followup.status_code == 201, followup.content
    # An error inquiry from C005 at the time of their recorded payment failures: the diagnosis reads those events.
    from rest_framework.test import APIClient

    from accounts.services import token_issue
    from orders.models import Customer

    c005 = Customer.objects.select_related("user").get(pk="C005")
    settings.CS_NOW = "2026-07-26T14:10:00+09:00"
    c005_api = APIClient()
    c005_api.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=c005.user, actor=c005.user)[1]}")
    error = c005_api.post(
        "/api/tickets/", {"category": "오류", "subject": "결제 오류", "body": "결제하면 오류가 나요."}, format="json"
    )
    assert error.status_code == 201, error.content


def _captured(session_model) -> dict[str, set[str]]:
    by_purpose: dict[str, set[str]] = {}
    for body in session_model.requests:
        by_purpose.setdefault(_purpose(body), set()).update(wire_fields(body))
    return by_purpose


def test_every_field_sent_is_declared_and_every_declared_field_is_sent(
    shop_knowledge, c003_api, session_model, settings
):
    _run_session(c003_api, settings)
    captured = _captured(session_model)
    assert set(captured) == set(PURPOSES)  # the whole session reached the wire: every purpose was called
    declared = purpose_fields()
    assert set(declared) == set(PURPOSES)
    mismatches = {
        purpose: (undeclared(purpose, captured[purpose]), unsent(purpose, captured[purpose])) for purpose in PURPOSES
    }
    assert mismatches == {purpose: (set(), set()) for purpose in PURPOSES}  # (sent undeclared, declared unsent)
    # The disclosure lists each of them, under its purpose.
    text = disclosure_markdown(generated_on="2026-12-01")
    for purpose, fields in declared.items():
        section = text.split(f"(`{purpose}`)", 2)[-1].split("### ", 1)[0]
        for field in fields:
            assert f"| {field.label} | `{field.key}` |" in section, (purpose, field.key)


def test_the_comparison_catches_a_field_added_to_a_prompt_without_a_declaration(
    shop_knowledge, c003_api, session_model, settings, monkeypatch
):
    """Can the test above fail? A context source added to the draft prompt (the customer's phone, say) appears on
    the wire undeclared; a declaration nobody sends is reported as unsent."""
    from drafts import pipeline
    from orders.models import Customer

    real = pipeline.context_sources

    def with_contact(customer_id, ticket_id):
        sources = real(customer_id, ticket_id)
        sources["contact"] = lambda: {"phone": Customer.objects.get(pk=customer_id).phone}
        return sources

    monkeypatch.setattr(pipeline, "context_sources", with_contact)
    _run_session(c003_api, settings)
    captured = _captured(session_model)
    assert undeclared("draft", captured["draft"]) == {"shop_data:contact.phone"}
    assert unsent("chat", captured["chat"] - {"tool_result:orders[].shipping_address"}) == {
        "tool_result:orders[].shipping_address"
    }


def test_disclosure_names_the_configured_endpoint_and_says_when_the_country_is_unknown(settings):
    settings.OPENAI_API_KEY = "sk-test"
    settings.OPENAI_BASE_URL = "https://llm.example.com/v1"
    settings.CS_LLM_MODEL = "shop-model-large"
    settings.CS_LLM_FALLBACK_MODEL = "shop-model-small"
    settings.CS_LLM_ENDPOINT_COUNTRY = ""
    text = disclosure_markdown(generated_on="2026-12-01")
    for purpose in PURPOSES:
        row = next(line for line in text.splitlines() if f"(`{purpose}`) |" in line)
        assert "https://llm.example.com/v1" in row and "shop-model-large" in row and "shop-model-small" in row
        assert "알 수 없음" in row and "CS_LLM_ENDPOINT_COUNTRY" in row
    settings.CS_LLM_ENDPOINT_COUNTRY = "미국"
    assert "| 미국 |" in disclosure_markdown(generated_on="2026-12-01")
    settings.OPENAI_API_KEY = settings.OPENAI_BASE_URL = None
    assert "외부로 전송되는 정보가 없습니다" in disclosure_markdown(generated_on="2026-12-01")


def test_disclosure_admin_page_and_command_show_every_purpose(shop, client, tmp_path):
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.urls import reverse
    from django.utils.html import escape

    from llm.labels import purpose_label

    client.force_login(get_user_model().objects.get(username="admin"))
    page = client.get(reverse("admin:llm_llmcall_disclosure"))
    assert page.status_code == 200
    out = tmp_path / "disclosure.md"
    call_command("privacy_disclosure", "--output", str(out))
    written = out.read_text(encoding="utf-8")
    html = page.content.decode()
    for purpose, fields in purpose_fields().items():
        assert f"(`{purpose}`)" in written
        # On screen in Korean words, the wire form on hover.
        assert f"<h3>{purpose_label(purpose)}</h3>" in html
        for field in fields:
            assert f'title="{escape(field.key)}">{escape(field.label)}<' in html, (purpose, field.key)
    assert "`shop_data:profile.name`" in written and "`tool_result:orders[].shipping_address`" in written
