"""The published criteria of the agent's automated decisions: generated from the rules and settings the tools apply,
linked from the chat page and from the sentence an automated reply ends with."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from actions.policy import ADDRESS_MAX_LEN, ADDRESS_MIN_LEN, REFUND_DEADLINE_BUSINESS_DAYS
from chat.tools import AUTOMATED_DECISION_NOTICE, CRITERIA_PATH


def test_the_criteria_page_reads_the_windows_from_settings_not_from_its_text(settings):
    settings.CS_RETURN_DAYS, settings.CS_DEFECT_DAYS = 11, 45
    page = Client().get(reverse("criteria-page")).content.decode()
    assert "배송 완료 후 11일 이내" in page and "배송 완료 후 45일 이내" in page
    assert "7일" not in page and "30일" not in page
    assert "결제완료·배송준비" in page  # the statuses an address may still change in
    assert f"{ADDRESS_MIN_LEN}자 이상 {ADDRESS_MAX_LEN}자 이내" in page
    assert "재고가 1개 이상" in page
    assert f"영업일 {REFUND_DEADLINE_BUSINESS_DAYS}일 이내" in page
    assert "사람이 다시 검토해 주세요" in page


def test_the_chat_page_and_the_automated_sentence_link_to_the_criteria():
    assert reverse("criteria-page") == CRITERIA_PATH
    assert CRITERIA_PATH in AUTOMATED_DECISION_NOTICE
    page = Client().get(reverse("chat-page")).content.decode()
    assert f'href="{CRITERIA_PATH}"' in page


pytestmark = pytest.mark.django_db
