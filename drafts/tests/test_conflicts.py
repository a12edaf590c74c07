"""Two people on one ticket, from the draft's side: sending a draft from a screen that is out of date answers 409
ticket_changed with the newer messages and the text that was not sent (the same check as an own reply); a draft a
colleague already used or answered past says so in plain words, not by its status code; in the admin the text is
never lost."""

import re

import pytest
from django.urls import reverse

from common.tests.factories import operator_with
from drafts.models import Draft
from orders.tests.factories import desk_operator
from testsupport.api import api_as
from tickets.models import TicketMessage
from tickets.services import ticket_message_add, ticket_reply_send

pytestmark = pytest.mark.django_db(transaction=True)

EDITED = "고객님, 결제 오류를 확인했습니다. 카드사 점검이 끝나면 다시 시도해 주세요."
# No money words: the reply is not held by the money-claim guard for a customer with no refund on record.
OWN = "고객님, 카드사 점검 때문에 생긴 오류였습니다. 지금 다시 시도해 주세요."


@pytest.fixture
def colleague(db):
    """A second operator with the same permissions as desk_user: 이상담."""
    return desk_operator(username="lee", last_name="이", first_name="상담")


def _apply(api, draft, **data):
    return api.post(f"/api/ops/drafts/{draft.pk}/apply/", data, format="json")


def _jargon(text: str) -> bool:
    """A draft status read out as a code-like label in quotes ('적용됨', '반려', '대체됨' …)."""
    return bool(re.search(r"'[^']*'\s*상태", text))


def test_sending_a_draft_after_a_colleague_answered_is_ticket_changed_with_my_text(
    staff_api, live_draft, colleague, settings
):
    seen = live_draft.source_message_id
    settings.CS_NOW = "2026-07-27T14:02:00+09:00"
    ticket_reply_send(ticket_id=live_draft.ticket_id, body=OWN, actor=colleague)
    response = _apply(staff_api, live_draft, final_body=EDITED, last_seen_message_id=seen)
    body = response.json()
    assert (response.status_code, body["code"]) == (409, "ticket_changed")
    assert body["detail"].startswith("이상담님이 14:02에 먼저 답변했습니다. 작성하신 내용은 아래에 그대로 있습니다.")
    assert body["body"] == EDITED
    assert [(m["author_type"], m["author"], m["body"]) for m in body["messages"]] == [("OPERATOR", "lee", OWN)]
    assert list(
        TicketMessage.objects.filter(ticket_id=live_draft.ticket_id, author_type="OPERATOR").values_list(
            "body", flat=True
        )
    ) == [OWN]


def test_sending_a_draft_after_the_customer_wrote_again_is_ticket_changed(staff_api, live_draft):
    ticket = live_draft.ticket
    ticket_message_add(ticket=ticket, body="카드 말고 계좌이체는 되나요?", author=ticket.customer.user)
    response = _apply(staff_api, live_draft, last_seen_message_id=live_draft.source_message_id)
    body = response.json()
    assert (response.status_code, body["code"]) == (409, "ticket_changed")
    assert body["body"] == live_draft.answer  # the draft as it would have gone
    assert [m["author_type"] for m in body["messages"]] == ["CUSTOMER"]
    assert Draft.objects.get(pk=live_draft.pk).status != "APPLIED"


def test_a_draft_a_colleague_answered_past_says_so_in_plain_words(staff_api, live_draft, colleague):
    ticket_reply_send(ticket_id=live_draft.ticket_id, body=OWN, actor=colleague)
    response = _apply(staff_api, live_draft)  # no last_seen: the draft's own state answers
    body = response.json()
    assert (response.status_code, body["code"]) == (409, "draft_not_live")
    assert "이상담님이" in body["detail"] and "직접 답변해서 이 초안은 더 이상 쓰지 않습니다." in body["detail"]
    assert not _jargon(body["detail"])


def test_a_draft_a_colleague_already_sent_says_who_sent_it(staff_api, live_draft, colleague):
    assert _apply(api_as(colleague), live_draft).status_code == 200
    again = _apply(staff_api, live_draft)
    assert (again.status_code, again.json()["code"]) == (409, "draft_not_live")
    assert again.json()["detail"].startswith("이상담님이") and "이 초안으로 먼저 답변했습니다" in again.json()["detail"]
    assert not _jargon(again.json()["detail"])


def test_in_the_admin_the_draft_text_moves_to_the_reply_box_when_the_draft_is_gone(
    client, desk_user, live_draft, colleague
):
    client.force_login(desk_user)
    page = client.get(reverse("admin:tickets_ticket_change", args=[live_draft.ticket_id])).content.decode()
    seen = re.search(r'id="cs-decide">.*?name="last_seen_message_id" value="(\d+)"', page, re.S).group(1)
    ticket_reply_send(ticket_id=live_draft.ticket_id, body=OWN, actor=colleague)
    response = client.post(
        reverse("admin:tickets_ticket_draft_decide", args=[live_draft.ticket_id, live_draft.pk]),
        {"decision": "apply", "final_body": EDITED, "last_seen_message_id": seen},
        follow=True,
    )
    html = response.content.decode()
    assert "이상담님이" in html and "먼저 답변했습니다. 작성하신 내용은 아래에 그대로 있습니다." in html
    assert 'id="cs-reply-body"' in html and f">{EDITED}</textarea>" in html  # the own-reply box holds it now
    assert Draft.objects.get(pk=live_draft.pk).status == "REJECTED"  # rejected by the colleague's own answer


def test_the_review_permission_alone_still_cannot_send(live_draft):
    api = api_as(operator_with("drafts.view_draft"))
    assert _apply(api, live_draft, last_seen_message_id=live_draft.source_message_id).status_code == 403
