"""What the customer reads beside a request, for every kind and state (actions.policy.customer_status_message)."""

import pytest

from actions.models import ActionRecord
from actions.policy import customer_status_message

K, S = ActionRecord.Kind, ActionRecord.Status


@pytest.mark.parametrize("kind", [K.REFUND, K.CANCEL])
@pytest.mark.parametrize("status", list(S))
def test_every_money_state_has_a_plain_sentence(kind, status):
    message = customer_status_message(kind, status)
    assert message.endswith("다.") and "{" not in message


def test_only_done_says_the_money_went_back():
    assert customer_status_message(K.REFUND, S.DONE) == "환불이 완료되었습니다."
    assert customer_status_message(K.CANCEL, S.DONE) == "주문 취소가 완료되었습니다."
    for status in (S.PENDING, S.APPROVED, S.EXECUTING, S.REJECTED, S.FAILED):
        assert "완료되었습니다" not in customer_status_message(K.REFUND, status)
    assert "돌려드리지 못했으며" in customer_status_message(K.REFUND, S.FAILED)
    assert "승인 전에는 환불 처리되지 않습니다" in customer_status_message(K.REFUND, S.PENDING)


def test_direct_actions_say_done_or_not():
    assert customer_status_message(K.ADDRESS_CHANGE, S.DONE) == "처리되었습니다."
    assert customer_status_message(K.EXCHANGE, S.REJECTED) == "처리되지 않았습니다."
