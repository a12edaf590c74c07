"""The money-claim guard as a table: sentences written by hand, each of which must be caught or must not be.

No database. The analyser is the project's shared Kiwi, so the table also pins the morpheme rules of
actions/claims.py to the model that ships with the project.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from actions.claims import CODE, MoneyFact, claims_unsupported, find_money_claims

# A refund or cancellation said to be approved, done, paid, promised or scheduled: formal and casual,
# spaced and unspaced, amounts, 영업일, 입금/환급/결제 취소.
MUST_CATCH = [
    "전액 환불이 승인되었습니다.",
    "환불 처리되었습니다.",
    "3영업일 안에 69,000원이 입금됩니다.",
    "환불해 드리겠습니다.",
    "환불해드릴게요!",
    "3영업일 안에 환불",
    "69,000원이 환불됩니다.",
    "취소 완료되었습니다.",
    "주문 취소가 완료됐어요!",
    "결제 취소 처리해 드렸습니다.",
    "환불 완료",
    "환불 완료입니다.",
    "승인이 났습니다.",
    "승인 났어요~",
    "담당자가 환불을 승인했습니다.",
    "고객님의 환불 요청이 승인되었습니다.",
    "환불금은 내일 입금될 거예요.",
    "입금 예정입니다.",
    "환불될 예정입니다.",
    "환불 처리 중입니다.",
    "환불이 진행 중이에요.",
    "69,000원을 돌려드렸습니다.",
    "결제하신 금액은 전액 돌려드립니다.",
    "고객님 계좌로 입금 완료했습니다.",
    "카드 승인 취소됐습니다.",
    "부분 환불 해드렸습니다.",
    "환급되었습니다.",
    "환불하기로 결정되었습니다.",
    "환불받으셨습니다.",
    "환불 됐어ㅋㅋ",
    "환불했어.",
    "환불 해줄게.",
    "승인되었으니 3영업일 안에 입금됩니다.",
    "환불이 승인되었고 카드사에 취소 요청을 보냈습니다.",
    "승인 후 환불 처리되었습니다.",
    "주문하신 HR20260721001 건은 취소 처리가 완료되었습니다.",
    "환불은 바로 처리해 드리겠습니다.",
    "환불이 완료되었는데 확인해 보셨나요?",
    "2~3일 안에 카드사에서 결제가 취소됩니다.",
    "환불처리 되었습니다",
    "환불 금액 69,000원은 3영업일 이내에 입금됩니다.",
    "전액 환불을 약속드립니다.",
    "승인 완료!",
    "환불금 6만 9천원이 지급됩니다.",
    "취소 승인되었습니다.",
    "내일까지 환불해 드릴 예정입니다.",
    "전액 환불이 결정되었습니다.",
    "환불 처리가 끝났습니다.",
    "주문 취소 및 환불이 완료되었습니다.",
    "고객님, 환불이 승인됐어요. 곧 입금될 거예요.",
    "시스템상 환불이 이미 완료된 상태입니다.",
    "환불 승인된 금액은 69,000원입니다.",
    "환불이 완료되었다고 안내드렸습니다.",
    "환불 승인 완료 되었습니다",
    "반품 없이 바로 환불해 드릴게요.",
    "환불이 승인되었습니다!",
    "환불승인되었습니다",
    "결제취소완료",
    "고객님~ 환불 다 됐어요^^",
    "환불 처리 완료했습니다!!",
    "환불이 정상적으로 처리되었습니다.",
    "주문이 취소되었습니다.",
    "주문 취소해 드렸어요.",
    "취소해드렸습니다",
    "입금해 드렸습니다.",
    "환불금이 계좌로 들어갔습니다.",
    "오늘 중으로 입금됩니다.",
    "카드사 사정에 따라 3~5영업일 내 환불됩니다.",
    "환불 승인 처리되었으며 곧 입금됩니다.",
    "69,000원 전액 환불해 드렸습니다.",
    "환불 처리해 드릴게요.",
    "환불 처리 예정입니다.",
    "환불 진행하겠습니다.",
    "요청하신 환불 건 승인 완료되었습니다.",
    "적립금으로 환급해 드렸습니다.",
    "환불은 이미 끝났어요.",
    "반품 회수 없이 환불 처리해 드리겠습니다.",
    "요청하신 대로 환불해 드리겠습니다.",
    "취소 처리 완료됐습니다~",
    "네, 환불 가능하고 바로 처리해 드릴게요.",
    "결제 금액 69,000원을 돌려드리겠습니다.",
    "환불이 됐습니다.",
    "환불 처리됐고 3일 안에 입금될 겁니다.",
    "3영업일 이내 환불 예정",
    "환불은 승인됐습니다 확인해 주세요",
    "시스템 확인 결과 환불이 완료된 것으로 확인됩니다.",
    "오늘 환불해 드렸으니 내일쯤 확인 가능하십니다.",
    "고객님 건은 전액 환불로 처리되었습니다.",
    "환불 건 승인해 드렸어요.",
    "결제 취소 요청이 승인되었습니다.",
    "승인 처리되었습니다.",
    "주문 취소와 환불을 모두 완료했습니다.",
    "환불금 69,000원은 월요일에 입금될 예정입니다.",
    "3영업일 안으로 돈 돌려드릴게요.",
    "네 환불해드림",
    "환불 확정되었습니다.",
    "취소 및 환불 진행해 드리겠습니다.",
    "취소 접수와 함께 환불도 완료되었습니다.",
]

# Conditionals, negations, questions, what waits for approval, requests and eligibility, paperwork
# (요청 등록, 접수), and money that is not going back (결제 완료, 입금 확인).
MUST_NOT_CATCH = [
    "승인되면 환불됩니다.",
    "아직 승인되지 않았습니다.",
    "승인 후 안내드리겠습니다.",
    "환불 요청을 등록했습니다.",
    "담당자가 승인하면 처리됩니다.",
    "환불이 가능한지 확인 중입니다.",
    "환불이 완료되었나요?",
    "환불 안 됐어요.",
    "환불은 못 해 드립니다.",
    "환불은 승인 후 3영업일 안에 진행됩니다.",
    "승인되는 대로 환불해 드리겠습니다.",
    "승인이 나면 환불해 드릴게요.",
    "환불 요청이 접수되었습니다. 담당자 승인 후 처리됩니다.",
    "승인되어야 환불됩니다.",
    "승인되자마자 입금됩니다.",
    "환불 처리는 담당자 승인 이후 진행됩니다.",
    "환불받으실 수 있습니다.",
    "환불해 드릴까요?",
    "환불되었는지 확인해 드리겠습니다.",
    "환불이 안 됩니다.",
    "환불은 불가합니다.",
    "아직 환불 전입니다.",
    "미승인 상태입니다.",
    "환불 신청하세요.",
    "환불 절차를 안내해 드리겠습니다.",
    "환불된 내역이 없습니다.",
    "환불 가능 여부를 확인하겠습니다.",
    "배송지 변경이 완료되었습니다.",
    "교환 접수가 완료되었습니다.",
    "결제가 완료되었습니다.",
    "카드 결제 승인이 완료되었습니다.",
    "입금이 확인되었습니다.",
    "환불을 원하시면 주문번호를 알려 주세요.",
    "환불하시려면 반품 신청을 먼저 해 주세요.",
    "환불 요청은 담당자가 확인한 뒤 처리됩니다.",
    "환불이 완료되면 문자로 안내드리겠습니다.",
    "환불이 완료되는 대로 연락드리겠습니다.",
    "환불은 취소 승인일로부터 3영업일 이내 처리됩니다.",
    "3영업일 안에 환불됩니다(승인 시).",
    "환불해 드리고 싶지만 규정상 어렵습니다.",
    "환불 승인 여부는 담당자가 결정합니다.",
    "승인 대기 중입니다.",
    "승인을 요청드렸습니다.",
    "환불 요청 건은 현재 승인대기 상태입니다.",
    "환불 처리 결과는 승인 후 알려 드리겠습니다.",
    "취소 요청을 접수했습니다. 담당자가 승인하면 처리됩니다.",
    "환불이 승인되지 않았습니다.",
    "환불이 완료되었다고 말씀드릴 수 없습니다.",
    "담당자 승인 전에는 환불이 진행되지 않습니다.",
    "환불 요청하신 건은 담당자가 검토하고 있습니다.",
    "중복 결제로 확인되면 승인 취소가 진행됩니다.",
    "환불·반품은 담당자 확인과 승인 후 처리되며, 승인 결과를 다시 안내드리겠습니다.",
    "승인대기 상태이며, 승인되면 문자로 알려 드립니다.",
    "환불을 받으시려면 상품을 먼저 보내 주세요.",
    "환불해 주세요.",
    "환불이 왜 안 됐나요?",
    "환불 안 해줘?",
    "환불 승인은 담당자만 할 수 있습니다.",
    "승인 결과가 나오면 바로 알려 드릴게요.",
    "환불 요청을 등록했습니다(처리번호 A00012). 담당자가 승인하면 처리됩니다.",
    "환불 요청을 등록했습니다(처리번호 A00012, 상태: 승인대기). 담당자가 승인하면 처리됩니다.",
    "환불이 승인되면 3영업일 안에 69,000원이 입금됩니다.",
    "승인 시 3영업일 이내에 환불됩니다.",
    "담당자 확인 후 환불 여부를 안내드립니다.",
    "환불은 담당자의 승인이 필요합니다.",
    "환불은 아직 처리되지 않았어요.",
    "환불 처리를 해 드릴 수 없습니다.",
    "취소는 출고 전에만 가능합니다.",
    "주문을 취소하시겠어요?",
    "주문을 취소할 수 있습니다.",
    "환불 규정을 안내해 드립니다.",
    "환불이 되는지 확인해 보겠습니다.",
    "혹시 환불받으셨나요?",
    "환불해 드리려면 담당자 승인이 필요합니다.",
    "환불 요청이 이미 승인을 기다리고 있습니다.",
    "이미 승인을 기다리는 요청이 있습니다.",
    "승인 결과는 문자로 안내됩니다.",
    "환불 요청이 반려되었습니다.",
    "환불은 어렵습니다.",
    "배송지를 변경했습니다.",
    "교환을 접수했습니다.",
    "상담원 티켓을 접수했습니다. 담당자가 확인 후 연락드립니다.",
    "결제 내역을 확인해 보겠습니다.",
    "입금 확인 후 출고됩니다.",
    "환불 관련 문의는 상담원이 답변드립니다.",
    "승인 전이라 아직 입금되지 않았습니다.",
    "담당자 승인이 나는 대로 환불해 드리겠습니다.",
    "환불 완료 여부는 마이페이지에서 확인하실 수 있습니다.",
    "환불이 완료되기 전까지는 주문 내역에 표시됩니다.",
    "환불 요청을 등록했습니다. 승인 여부는 담당자가 결정합니다.",
    "승인이 완료되면 3영업일 안에 입금됩니다.",
    "승인 전에는 입금되지 않습니다.",
    "환불이 승인될지는 아직 모릅니다.",
    "환불 처리 기간은 승인 후 3~5영업일입니다.",
    "환불 승인 여부를 확인한 뒤 안내드리겠습니다.",
    "담당자가 검토한 후에 환불 여부가 결정됩니다.",
    "혹시 환불이 아직 안 들어왔나요?",
    "환불 요청은 정상적으로 접수되었습니다.",
    "지금은 환불해 드릴 수 없어요.",
    "환불해 드린다고 약속드릴 수는 없습니다.",
    "환불 처리 상태는 승인대기입니다.",
    "취소 요청 A00012는 승인대기 상태입니다.",
    "입금 확인은 영업일 기준 1~2일 걸립니다.",
]


def test_the_table_is_big_enough_and_has_no_sentence_in_both_lists():
    assert len(MUST_CATCH) >= 40 and len(MUST_NOT_CATCH) >= 40
    assert not set(MUST_CATCH) & set(MUST_NOT_CATCH)


@pytest.mark.parametrize("sentence", MUST_CATCH)
def test_caught(sentence):
    claims = find_money_claims(sentence)
    assert claims, f"not caught: {sentence}"
    assert all(c.code == CODE for c in claims)


@pytest.mark.parametrize("sentence", MUST_NOT_CATCH)
def test_not_caught(sentence):
    assert find_money_claims(sentence) == [], f"caught: {sentence}"


def test_claims_carry_the_sentence_span_in_the_whole_text():
    text = "안녕하세요, 고객님.\n전액 환불이 승인되었습니다. 3영업일 안에 69,000원이 입금됩니다.\n감사합니다."
    claims = find_money_claims(text)
    assert [text[c.start : c.end] for c in claims] == [
        "전액 환불이 승인되었습니다.",
        "3영업일 안에 69,000원이 입금됩니다.",
    ]
    assert [c.sentence for c in claims] == [text[c.start : c.end] for c in claims]
    assert [c.past for c in claims] == [True, False]
    assert claims[1].amounts == (69000,)
    assert claims[0].trigger == "승인되었습니다."


def test_only_the_claiming_sentence_of_a_mixed_reply_is_reported():
    text = "환불 요청을 등록했습니다. 담당자가 승인하면 처리됩니다. 환불해 드리겠습니다."
    assert [c.sentence for c in find_money_claims(text)] == ["환불해 드리겠습니다."]


@pytest.mark.parametrize(
    ("text", "amounts"),
    [
        ("69,000원이 환불됩니다.", (69000,)),
        ("환불금 6만 9천원이 지급됩니다.", (69000,)),
        ("7만원을 돌려드렸습니다.", (70000,)),
        ("환불해 드리겠습니다.", ()),
    ],
)
def test_amounts_are_read_from_the_claim(text, amounts):
    assert find_money_claims(text)[0].amounts == amounts


def test_invisible_characters_and_full_width_digits_do_not_hide_a_claim():
    text = "고객님, 환\u200b불이 승인\u200d되었습니다. ３영업일 안에 ６９,０００원이 입금됩니다."
    claims = find_money_claims(text)
    assert [c.sentence for c in claims] == [
        "고객님, 환\u200b불이 승인\u200d되었습니다.",
        "３영업일 안에 ６９,０００원이 입금됩니다.",
    ]
    assert [text[c.start : c.end] for c in claims] == [c.sentence for c in claims]
    assert claims[1].amounts == (69000,)


def test_a_reply_without_money_words_is_not_analysed_and_has_no_claim():
    assert find_money_claims("배송지를 변경했습니다. 내일 출고됩니다.") == []
    assert find_money_claims("") == []


# --- claims_unsupported: does the record make it true? (pure) --------------------------------------


def _claim(text: str):
    (claim,) = find_money_claims(text)
    return claim


def test_a_claim_without_an_approved_record_is_unsupported():
    claim = _claim("환불이 승인되었습니다.")
    assert claims_unsupported([claim], approved=[]) == [claim]


def test_an_approved_record_of_the_customer_supports_a_claim_that_names_no_order():
    claim = _claim("환불이 승인되었습니다.")
    assert claims_unsupported([claim], approved=[MoneyFact("HR1", Decimal(69000))]) == []


def test_the_approval_must_be_for_the_order_in_context():
    claim = _claim("환불이 승인되었습니다.")
    approved = [MoneyFact("HR1", Decimal(69000))]
    assert claims_unsupported([claim], approved=approved, order_ids=["HR2"]) == [claim]
    assert claims_unsupported([claim], approved=approved, order_ids=["hr1"]) == []


def test_an_order_named_in_the_sentence_wins_over_the_context():
    claim = _claim("주문 HR2 건은 환불이 완료되었습니다.")
    approved = [MoneyFact("HR1", Decimal(69000))]
    assert claims_unsupported([claim], approved=approved, customer_order_ids=["HR1", "HR2"], order_ids=["HR1"]) == [
        claim
    ]
    named_approved = [MoneyFact("HR2", Decimal(69000))]
    assert claims_unsupported([claim], approved=named_approved, customer_order_ids=["HR1", "HR2"]) == []


def test_a_promised_amount_must_be_the_approved_amount():
    claim = _claim("69,000원이 환불됩니다.")
    assert claims_unsupported([claim], approved=[MoneyFact("HR1", Decimal(30000))]) == [claim]
    assert claims_unsupported([claim], approved=[MoneyFact("HR1", Decimal(69000))]) == []
    # Two approved refunds: their total may be promised.
    both = [MoneyFact("HR1", Decimal(30000)), MoneyFact("HR2", Decimal(39000))]
    assert claims_unsupported([claim], approved=both) == []
