"""What the agent decides by itself is said to be automated, with the way to a person (개인정보 보호법 제37조의2);
"사람이 다시 검토해 주세요" opens a review ticket linked to that record; a customer's request about their own
data (제35–37조) is opened from the chat, and the reply says when it is due. With the built-in model and with a
real model (scripted through the real client) alike: the sentences are built by code from the tool results."""

from __future__ import annotations

import pytest

from actions.models import ActionRecord
from chat import offline_nlu as nlu
from chat.models import ToolCall
from chat.services import chat_turn
from chat.tools import AUTOMATED_DECISION_NOTICE, CRITERIA_PATH, due_words
from llm.testing import text_message, tool_calls_message
from orders.tests.factories import orders_in_every_state
from tickets.models import DataSubjectRequest, Ticket

pytestmark = pytest.mark.django_db

ADDRESS = "서울특별시 강남구 테헤란로 152, 7층"


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("내 정보 열람 요청", nlu.MY_DATA),
        ("내 정보 삭제 요청", nlu.MY_DATA),
        ("개인정보 지워 주세요", nlu.MY_DATA),
        ("사람이 다시 검토해 주세요", nlu.REVIEW),
        ("재검토 부탁드려요", nlu.REVIEW),
        ("직원이 직접 검토해 주세요", nlu.REVIEW),
        ("내 요청 정리해 줘", nlu.REQUESTS),  # a status question stays one
        ("상담원 연결해 주세요", nlu.HANDOFF),
        ("배송 정보 알려 주세요", nlu.TRACK),
    ],
)
def test_the_built_in_model_reads_data_requests_and_review_requests(text, intent):
    assert nlu.detect_intent(text) == intent


@pytest.mark.parametrize(
    ("text", "kind"),
    [("내 정보 열람 요청", "ACCESS"), ("내 정보 삭제 요청", "ERASURE"), ("제 정보 정정해 주세요", "CORRECTION")],
)
def test_the_kind_of_data_request_is_read_from_the_words(text, kind):
    assert nlu.data_request_kind(text) == kind


@pytest.fixture
def mine(customer):
    return orders_in_every_state(customer)


def test_an_address_change_says_it_was_automated_and_a_person_reviews_it_on_request(offline_model, customer, mine):
    preparing = mine.preparing.pk
    turn = chat_turn(customer=customer, text=f"{preparing} 배송지를 {ADDRESS}로 바꿔 주세요")
    record = ActionRecord.objects.get(order_id=preparing, kind="ADDRESS_CHANGE")
    assert AUTOMATED_DECISION_NOTICE in turn.reply.content
    assert CRITERIA_PATH in turn.reply.content

    review = chat_turn(customer=customer, text="사람이 다시 검토해 주세요", conversation_id=turn.conversation.pk)
    ticket = Ticket.objects.get(review_of=record.number)
    assert (ticket.category, ticket.order_id, ticket.customer_id) == ("AUTO_REVIEW", preparing, customer.customer_id)
    assert ticket.number in review.reply.content and record.number in review.reply.content
    call = ToolCall.objects.get(tool="request_human_review")
    assert (call.action_number, call.ticket_number) == (record.number, ticket.number)

    again = chat_turn(customer=customer, text="재검토 해 주세요", conversation_id=turn.conversation.pk)
    assert Ticket.objects.filter(review_of=record.number).count() == 1  # asked twice: the open one
    assert ticket.number in again.reply.content


def test_a_review_with_nothing_automated_to_review_opens_nothing(offline_model, customer):
    turn = chat_turn(customer=customer, text="사람이 다시 검토해 주세요")
    assert not Ticket.objects.filter(category="AUTO_REVIEW").exists()
    assert "찾지 못했습니다" in turn.reply.content


def test_a_real_models_exchange_reply_gets_the_automated_decision_sentence_from_code(scripted_model, customer, mine):
    scripted_model.push(
        tool_calls_message(
            [
                (
                    "request_exchange",
                    {"order_id": mine.delivered.pk, "new_option": "블랙/260", "reason_category": "단순변심"},
                )
            ]
        ),
        text_message("교환 접수되었습니다."),
    )
    turn = chat_turn(customer=customer, text="운동화 블랙/260으로 교환해 주세요")
    assert ActionRecord.objects.filter(order_id=mine.delivered.pk, kind="EXCHANGE").exists()
    assert turn.reply.content.startswith("교환 접수되었습니다.")
    assert turn.reply.content.endswith(AUTOMATED_DECISION_NOTICE)


@pytest.mark.parametrize(("text", "kind"), [("내 정보 열람 요청", "ACCESS"), ("내 정보 삭제 요청", "ERASURE")])
def test_a_data_request_from_the_chat_opens_a_request_and_the_reply_says_the_due_date(
    offline_model, customer, text, kind
):
    turn = chat_turn(customer=customer, text=text)
    request = DataSubjectRequest.objects.get(customer=customer)
    assert (request.kind, request.status, request.source) == (kind, "OPEN", "AGENT")
    assert request.chat_conversation_id == turn.conversation.pk
    assert request.number in turn.reply.content
    assert due_words(request.due_at) in turn.reply.content


def test_a_real_model_asking_for_erasure_gets_the_due_date_said_by_code(scripted_model, customer):
    scripted_model.push(
        tool_calls_message([("request_my_data", {"kind": "삭제"})]),
        text_message("삭제 요청을 접수했어요."),
    )
    turn = chat_turn(customer=customer, text="탈퇴하고 제 정보 다 지워 주세요")
    request = DataSubjectRequest.objects.get(customer=customer, kind="ERASURE")
    assert due_words(request.due_at) in turn.reply.content
