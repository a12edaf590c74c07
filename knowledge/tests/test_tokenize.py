"""No database: Kiwi only."""

from __future__ import annotations

import pytest

from common.tokenize import tokens

pytestmark = pytest.mark.usefixtures("kiwi")


@pytest.mark.parametrize(
    "text",
    ["환불은 언제 되나요", "환불이 안 돼요", "환불해 주세요", "환불을 요청했어요", "환불 언제 돼요"],
)
def test_refund_noun_is_found_whatever_particle_or_suffix_follows(text):
    assert "환불" in tokens(text)


@pytest.mark.parametrize("text", ["교환하고 싶어요", "교환은 어떻게 해요", "교환 신청 기간"])
def test_exchange_noun_is_found_in_inflected_forms(text):
    assert "교환" in tokens(text)


def test_particles_endings_and_adverbs_are_dropped():
    assert tokens("환불은 언제 되나요") == ["환불"]


def test_verb_stems_are_kept_with_a_marker_so_inflections_meet():
    assert "바꾸/V" in tokens("배송지 바꾸고 싶어요")
    assert "바꾸/V" in tokens("주소를 바꿀 수 있나요")
    assert "바꾸/V" in tokens("주소 바꿔 주세요")


def test_generic_stems_are_dropped():
    result = tokens("주문이 있는데 취소가 안 되고 결제만 했어요")
    assert not any(t in result for t in ("하/V", "되/V", "있/V"))
    assert {"주문", "취소", "결제"} <= set(result)


def test_foreign_words_are_lowercased_and_numbers_kept():
    result = tokens("PG사 결제 오류가 나요. 3~5일 걸려요 iOS")
    assert "pg" in result
    assert "ios" in result
    assert {"3", "5", "오류"} <= set(result)


def test_empty_or_blank_text_gives_no_tokens():
    assert tokens("") == []
    assert tokens("   \n") == []
    assert tokens("?!...") == []
