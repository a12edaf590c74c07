"""What of a tool's refusal reason is stored: masked, and never another customer's order number. Pure."""

import pytest

from chat.policy import (
    NOT_OWN_ORDER_REASON,
    author_line,
    order_id_canonical,
    order_ids_mentioned,
    outcome_line,
    tool_reason_stored,
)

OWN = "HR20260721001"
FOREIGN = "HR20260725004"


@pytest.mark.parametrize(
    ("reason", "order_id", "stored"),
    [
        ("", FOREIGN, ""),  # a successful call has no reason
        (f"주문번호 '{FOREIGN}'을(를) 찾을 수 없습니다.", FOREIGN, NOT_OWN_ORDER_REASON),
        (f"주문번호 '{FOREIGN.lower()}'을(를) 찾을 수 없습니다.", f" {FOREIGN.lower()} ", NOT_OWN_ORDER_REASON),
        ("주문번호 'HR999'을(를) 찾을 수 없습니다.", "HR999", NOT_OWN_ORDER_REASON),
        ("주문번호 '010-9876-5432'을(를) 찾을 수 없습니다.", "010-9876-5432", NOT_OWN_ORDER_REASON),
        (
            "배송 완료 후 26일이 지나 반품 가능 기간(7일)을 넘었습니다.",
            OWN,
            "배송 완료 후 26일이 지나 반품 가능 기간(7일)을 넘었습니다.",
        ),
        (
            "'러닝화'에는 '010-9876-5432' 옵션이 없습니다. 선택 가능한 옵션: 250, 260",
            OWN,
            "'러닝화'에는 '[전화번호]' 옵션이 없습니다. 선택 가능한 옵션: 250, 260",
        ),
        (
            f"'러닝화'에는 '{FOREIGN}' 옵션이 없습니다. 선택 가능한 옵션: 250",
            OWN,
            "'러닝화'에는 '[주문번호]' 옵션이 없습니다. 선택 가능한 옵션: 250",
        ),
        (f"이미 교환이 접수된 주문입니다 ({OWN}).", OWN, f"이미 교환이 접수된 주문입니다 ({OWN})."),
        ("도구 인자가 올바르지 않습니다: order_id", None, "도구 인자가 올바르지 않습니다: order_id"),
        ("연락처 kim@example.com 로 알려 주세요", None, "연락처 [이메일] 로 알려 주세요"),
        ("가" * 400, OWN, "가" * 300),
    ],
)
def test_tool_reason_stored(reason, order_id, stored):
    assert tool_reason_stored(reason, order_id=order_id, own_orders={OWN}) == stored


def test_order_numbers_are_found_in_any_case_and_only_canonical_ones_are_queried():
    assert order_ids_mentioned(f"{FOREIGN.lower()} 와 {OWN}, HR12 또는 XHR20260721001") == {FOREIGN, OWN}
    assert order_id_canonical(OWN) and not order_id_canonical(OWN + "\x00") and not order_id_canonical("HR12")


# --- the lines the desk appends to a conversation -------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "name", "shown"),
    [
        ("operator", "김상담", "상담원 김상담"),
        ("operator", "", "상담원"),
        ("assistant", "", "AI 상담"),
        ("system", "", "안내"),
        ("customer", "", ""),
    ],
)
def test_author_line_names_who_speaks_as_the_chat_page_shows_it(role, name, shown):
    assert author_line(role, name) == shown


@pytest.mark.parametrize(
    ("kind", "status", "expected"),
    [
        (
            "REFUND",
            "APPROVED",
            "환불 요청 A00003(텀블러)이 승인되었습니다. 반품이 확인되어 38,000원이 환불 처리되었습니다.",
        ),
        (
            "CANCEL",
            "APPROVED",
            "주문 취소 요청 A00003(텀블러)이 승인되었습니다. 주문이 취소되고 38,000원이 환불 처리되었습니다.",
        ),
        (
            "REFUND",
            "EXECUTING",
            "환불 요청 A00003(텀블러)이 승인되었습니다. "
            "쇼핑몰에서 38,000원 환불을 진행하며, 끝나면 이 대화로 알려 드립니다.",
        ),
        (
            "REFUND",
            "REJECTED",
            "환불 요청 A00003(텀블러)이 반려되었습니다. 자세한 안내가 필요하시면 상담원 연결을 요청해 주세요.",
        ),
        ("REFUND", "DONE", "환불 요청 A00003(텀블러)의 환불이 완료되었습니다. 환불 금액: 38,000원."),
        (
            "REFUND",
            "FAILED",
            "환불 요청 A00003(텀블러)의 환불 처리에 실패했습니다. 상담원이 확인한 뒤 다시 안내해 드리겠습니다.",
        ),
        ("REFUND", "PENDING", None),  # asking is not an outcome
    ],
)
def test_an_outcome_line_is_built_from_the_record_alone(kind, status, expected):
    assert outcome_line(number="A00003", kind=kind, status=status, product="텀블러", amount="38,000원") == expected
