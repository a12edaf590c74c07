"""The money-claim guard as a table: sentences written by hand, each of which must be caught or must not be.

No database. The analyser is the project's shared Kiwi, so the table also pins the morpheme rules of
actions/claims.py to the model that ships with the project.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from actions.claims import CODE, MoneyFact, OrderFact, claims_unsupported, find_money_claims
from orders.policy import product_words

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


# The demo customer C003's orders, as the selector hands them to the guard: ids, amounts, product words.
WORLD = [
    OrderFact("HR20260721001", Decimal(89000), names=tuple(product_words("쿠션 운동화")), numbers=("A00001",)),
    OrderFact("HR20260628003", Decimal(38000), names=tuple(product_words("스테인리스 텀블러")), numbers=("A00002",)),
    OrderFact("HR20260726002", Decimal(129000), names=tuple(product_words("무선 이어폰")), numbers=("A00003",)),
    OrderFact("HR20260724005", Decimal(69000), names=tuple(product_words("백팩"))),
]
SHOES, TUMBLER, EARPHONES, BACKPACK = (o.order_id for o in WORLD)
TUMBLER_APPROVED = [MoneyFact(TUMBLER, Decimal(38000))]
SHOES_APPROVED = [MoneyFact(SHOES, Decimal(89000))]

# Said with records: (text, the approved refunds and cancellations, the orders the conversation is about).
# Claims the records do not make true — forms the first guard let through, each found by a tester.
FALSE_WITH_RECORDS = [
    ("환불 처리 완료되었음을 알려드립니다.", [], []),
    ("주문 취소가 완료되었음을 안내드립니다.", [], []),
    ("환불됐음을 알려드립니다.", [], []),
    ("환불이 완료된 점 안내드립니다.", [], []),
    ("취소 처리 완료됐음을 확인했습니다.", [], []),
    ("35,000원이 3일 내 들어갑니다.", [], []),
    ("환불금은 영업일 기준 2일 내 입금됩니다.", [], []),
    ("환불 들어갔어요.", [], []),
    ("돈은 내일 들어올 거예요.", [], []),
    ("환불금 곧 받으실 거예요.", [], []),
    ("고객님 계좌로 69,000원 쏴 드렸어요.", [], []),
    ("환불 approved 되었습니다.", [], []),
    ("refund 완료됐습니다", [], []),
    ("결제 취소 done 했어요.", [], []),
    ("money back 처리해 드렸어요", [], []),
    ("Your refund has been approved.", [], []),
    ("The refund was processed today.", [], []),
    ("We refunded 38,000 won to your card.", [], []),
    ("Refund completed!", [], []),
    ("Payment refunded.", [], []),
    ("Your money is on its way back to you.", [], []),
    ("환불 가능해요. 바로 처리해 드릴게요.", [], []),
    ("텀블러는 환불 대상이에요. 오늘 중으로 처리해 드리겠습니다.", [], []),
    ("환\u3164불 완료되었습니다.", [], []),
    ("환\u200b불\u200b처리\u200b되었습니다", [], []),
    ("환블 완료댔어요.", [], []),
    ("환불 됬어요~", [], []),
    ("환 불 완료되었습니다.", [], []),
    ("환불 ok 됐어요", [], []),
    ("운동화 환불이 완료되었습니다.", TUMBLER_APPROVED, []),
    ("신발 환불 승인 났어요!", TUMBLER_APPROVED, []),
    ("텀블러랑 운동화 둘 다 환불 완료됐습니다.", TUMBLER_APPROVED, []),
    ("두 건 모두 환불 완료됐습니다.", TUMBLER_APPROVED, [SHOES, TUMBLER]),
    (f"{SHOES}, {TUMBLER} 환불이 승인되었습니다.", TUMBLER_APPROVED, []),
    ("운동화 89,000원 환불해 드렸습니다.", TUMBLER_APPROVED, []),
    ("텀블러 환불 69,000원 승인되었습니다.", TUMBLER_APPROVED, []),
    ("69,000원 환불 예정이에요.", TUMBLER_APPROVED, []),
    ("A00001 환불 승인됐어요.", TUMBLER_APPROVED, []),
    ("환불이 승인되었습니다.", TUMBLER_APPROVED, []),
    ("카드사로 취소 요청 넣어 드렸어요.", [], []),
    ("차액은 돌려드렸습니다.", [], []),
    ("적립금 5,000원 보상해 드릴게요.", [], []),
    ("환불 처리했습니다. 확인 부탁드려요.", [], []),
    ("결제하신 금액 전액 돌려드릴게요.", [], []),
    ("네~ 취소 완료! 카드 승인도 취소됐어요", [], []),
    ("오늘 중 환불 예정입니다.", [], []),
    ("환불 건 처리 끝났습니다.", [], []),
    ("카드 취소 반영됐습니다.", [], []),
    ("환불은 이미 진행됐어요.", [], []),
    ("신청하신 환불이 처리되었습니다.", [], []),
    ("환불 요청이 처리 완료되었습니다.", [], []),
    ("요청하신 취소 건, 승인 완료했습니다.", [], []),
    ("텀블러 환불 38,000원 입금 완료입니다.", [], []),
    ("이어폰 취소해 드렸어요. 결제 금액은 3일 안에 돌아가요.", [], []),
    ("환불 완료되셨습니다.", [], []),
    ("환불 접수 후 바로 처리해 드렸습니다.", [], []),
    ("승인 떨어졌어요!", [], []),
    ("환불건 승인 났으니 확인해 보세요.", [], []),
    ("We have cancelled your order and the payment will be returned.", [], []),
    ("텀블러 전액 환불 승인되었습니다.", [MoneyFact(TUMBLER, Decimal(19000))], []),
    ("전액 환불해 드렸어요.", [MoneyFact(TUMBLER, Decimal(19000))], [TUMBLER]),
    ("Your refund of ₩69,000 for the tumbler has been approved.", TUMBLER_APPROVED, []),
    ("Your sneakers refund of 89,000 KRW has been approved.", TUMBLER_APPROVED, []),
]

# True, or safe to say: registered, waiting, conditional, negated, a question, policy, or what the records say.
HARMLESS_WITH_RECORDS = [
    ("환불 요청 접수 완료! 승인되면 알려드릴게요.", [], []),
    ("환불 접수됐어. 승인은 담당자가 해.", [], []),
    ("환불이 될지는 아직 모릅니다.", [], []),
    ("If approved, 환불은 3영업일 내 처리됩니다.", [], []),
    ("운동화 환불이 승인되었습니다.", SHOES_APPROVED, []),
    ("텀블러 환불 38,000원 승인되었습니다.", TUMBLER_APPROVED, []),
    ("환불이 승인되었습니다.", TUMBLER_APPROVED, [TUMBLER]),
    ("A00002 환불 승인됐어요.", TUMBLER_APPROVED, []),
    ("텀블러 환불은 승인됐고, 운동화는 아직 승인대기예요.", TUMBLER_APPROVED, []),
    (
        "이어폰 주문 취소가 승인되었습니다. 결제 취소는 카드사에 따라 3~5영업일 걸려요.",
        [MoneyFact(EARPHONES, Decimal(129000))],
        [],
    ),
    ("환불 신청 완료되었습니다. 담당자 확인 후 연락드릴게요.", [], []),
    ("환불 요청 건은 승인대기 상태예요.", [], []),
    ("취소 요청 접수됐어요~ 승인 나면 바로 알려드릴게요 :)", [], []),
    ("refund 요청 등록했어요. 승인되면 연락드릴게요.", [], []),
    ("Your refund request has been received and is pending approval.", [], []),
    ("We will let you know once the refund is approved.", [], []),
    ("When your refund is approved, the money goes back to your card.", [], []),
    ("No refund has been issued yet.", [], []),
    ("Has your refund arrived?", [], []),
    ("The refund policy allows returns within 7 days of delivery.", [], []),
    ("환불은 원래 결제 수단으로 돌아갑니다.", [], []),
    ("카드 환불은 보통 3~5영업일 걸립니다.", [], []),
    ("반품 배송비 3,000원은 환불 금액에서 차감됩니다.", [], []),
    ("무료배송 기준 금액은 50,000원입니다.", [], []),
    ("단순변심 반품은 배송 완료 후 7일 이내 신청할 수 있습니다.", [], []),
    ("상품하자는 30일 이내 환불 신청이 가능합니다.", [], []),
    ("환불 처리 기간은 승인 후 3~5영업일이에요.", [], []),
    ("환불 승인은 담당자만 할 수 있어요.", [], []),
    ("환불은 상담원 승인 후 진행되며, 보통 1영업일 안에 검토합니다.", [], []),
    ("환불이 승인되면 38,000원이 카드로 돌아갑니다.", [], []),
    ("환불금은 승인일로부터 3영업일 이내 입금됩니다.", [], []),
    ("HR20260726002 무선 이어폰 129,000원 배송준비", [], []),
    ("주문하신 백팩은 69,000원, 현재 배송중입니다.", [], []),
    ("결제 내역을 조회해 봤어요. 이어폰 129,000원 결제가 확인됩니다.", [], []),
    ("배송지 변경이 완료되었어요. 결제 금액은 그대로예요.", [], []),
    ("교환 접수 완료됐습니다. 추가 결제는 없어요.", [], []),
    ("환불 요청이 반려되었습니다.", [], []),
    ("환불은 아직 진행되지 않았어요.", [], []),
    ("승인 전이라 환불은 아직이에요.", [], []),
    ("환불이 안 되는 상품은 아니에요.", [], []),
    ("환불 언제 되는지 확인해 드릴게요.", [], []),
    ("환불 여부는 검수 후 결정됩니다.", [], []),
    ("혹시 환불 요청하셨나요?", [], []),
    ("환불 원하시면 주문번호 알려 주세요.", [], []),
    ("환불 진행 상황을 안내해 드릴게요.", [], []),
    ("환불 건은 담당자에게 전달했습니다.", [], []),
    ("환불 요청을 담당자에게 넘겼어요.", [], []),
    ("환불 관련해서는 담당자가 연락드릴 예정입니다.", [], []),
    ("환불 처리 결과는 문자로 안내될 예정입니다.", [], []),
    ("고객님이 요청하신 취소 건은 승인을 기다리고 있어요.", [], []),
    ("approval 대기 중이에요.", [], []),
    ("고객님께서 요청하신 텀블러 환불이 승인되었음을 안내드립니다.", TUMBLER_APPROVED, []),
    ("텀블러 환불 승인 완료되었습니다. 환불 금액은 38,000원입니다.", TUMBLER_APPROVED, []),
    ("Your tumbler refund of 38,000 KRW has been approved.", TUMBLER_APPROVED, []),
    ("The refund for your order HR20260628003 was approved.", TUMBLER_APPROVED, []),
    ("텀블러 환불이 승인되었어요! 카드사에 따라 3~5영업일 안에 들어올 거예요.", TUMBLER_APPROVED, []),
    ("승인된 텀블러 환불 금액 ₩38,000은 원래 결제 수단으로 돌아갑니다.", TUMBLER_APPROVED, []),
    ("텀블러는 전액 환불 승인되었습니다.", TUMBLER_APPROVED, []),
    ("환불 요청이 접수되었습니다(처리번호 A00012). 보통 1영업일 안에 담당자가 검토합니다.", [], []),
    ("취소 요청 등록 완료됐어요. 승인까지는 보통 하루 정도 걸려요.", [], []),
    ("반품 요청 접수됐고, 승인되면 3~5영업일 안에 환불될 예정이에요.", [], []),
    ("환불 신청이 정상 접수되었으며, 결과는 승인 후 문자로 안내드립니다.", [], []),
    ("환불 받으셨어요?", [], []),
    ("환불 금액 38,000원 맞으신가요?", [], []),
    ("텀블러 환불 진행해 드릴까요?", [], []),
    ("혹시 결제하신 카드로 환불받으셔도 괜찮으세요?", [], []),
]


def _held(text: str, approved: list[MoneyFact], context: list[str]) -> list:
    return claims_unsupported(find_money_claims(text), approved=approved, orders=WORLD, order_ids=context or None)


def test_the_table_is_big_enough_and_has_no_sentence_in_both_lists():
    false = MUST_CATCH + [t for t, _, _ in FALSE_WITH_RECORDS]
    harmless = MUST_NOT_CATCH + [t for t, _, _ in HARMLESS_WITH_RECORDS]
    assert len(false) >= 150 and len(harmless) >= 150
    assert not set(MUST_CATCH) & set(MUST_NOT_CATCH)


@pytest.mark.parametrize("sentence", MUST_CATCH)
def test_caught(sentence):
    claims = find_money_claims(sentence)
    assert claims, f"not caught: {sentence}"
    assert all(c.code == CODE for c in claims)
    assert _held(sentence, [], []), f"passed with no approval: {sentence}"


@pytest.mark.parametrize("sentence", MUST_NOT_CATCH)
def test_not_held(sentence):
    """No claim, or only claims the customer's orders make true (결제가 완료되었습니다: the orders are paid)."""
    assert _held(sentence, [], []) == [], f"held: {sentence}"


@pytest.mark.parametrize(("text", "approved", "context"), FALSE_WITH_RECORDS)
def test_a_false_claim_is_held_whatever_its_form(text, approved, context):
    assert _held(text, approved, context), f"passed: {text}"


@pytest.mark.parametrize(("text", "approved", "context"), HARMLESS_WITH_RECORDS)
def test_a_harmless_reply_is_not_held(text, approved, context):
    assert _held(text, approved, context) == [], f"held: {text}"


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


def test_a_claim_that_names_no_order_is_unsupported_whatever_else_the_customer_has():
    """No customer-wide fallback: an approval on some order never makes a sentence about no order true."""
    claim = _claim("환불이 승인되었습니다.")
    assert claims_unsupported([claim], approved=[MoneyFact("HR1", Decimal(69000))]) == [claim]


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
    assert claims_unsupported([claim], approved=[MoneyFact("HR1", Decimal(30000))], order_ids=["HR1"]) == [claim]
    assert claims_unsupported([claim], approved=[MoneyFact("HR1", Decimal(69000))], order_ids=["HR1"]) == []
    # Two approved refunds: their total may be promised about both.
    both = [MoneyFact("HR1", Decimal(30000)), MoneyFact("HR2", Decimal(39000))]
    assert claims_unsupported([claim], approved=both, order_ids=["HR1", "HR2"]) == []
