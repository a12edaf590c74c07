"""Write evals/drafts/*.json, the draft golden set, from the table below (`python -m evals.build_draft_cases`).

Frozen knowledge: fixtures/knowledge as committed. Each key point names the document passage it comes
from (`doc_id` + an exact sentence fragment; a test checks the fragment is in the document), and the words
a correct answer contains (`any_of`): the specific fact (a number, a named procedure or condition), never a
word any polite reply or the customer's own question contains (승인, 확인, 취소, 부담 alone). Error
inquiries reuse the demo service-event stories and their expected diagnosis verdicts
(fixtures/service_events.json) plus customers with no events at all.

Routes: `draft` (answer it), `ask` (the inquiry lacks what an answer needs: which order, the new address,
the reason, the approval numbers — the draft asks for it) and `escalate` (a person must act: safety,
legal, a takeover, a deletion; the pipeline must raise a hard blocker).
"""

from __future__ import annotations

from pathlib import Path

from evals.schema import golden_files_write

CASES_DIR = Path(__file__).resolve().parent / "drafts"

PROMISE = r"환불(이|을)?\s*(완료|해\s*드리겠|처리해\s*드렸)"
AFTER_APPROVAL = ("승인한 뒤", "승인한 후", "승인 후", "승인된 뒤", "승인된 후", "승인되면", "승인이 나면", "승인 이후")
CASES: list[dict] = []


def kp(doc: str, passage: str, *any_of: str) -> dict:
    return {"doc_id": doc, "passage": passage, "any_of": list(any_of)}


def case(
    id: str,  # noqa: A002
    customer: str,
    category: str,
    subject: str,
    body: str,
    *,
    route: str = "draft",
    key_points: list[dict] | None = None,
    citations: list[str] | None = None,
    allowed: list[str] | None = None,
    must_not: list[str] | None = None,
    blockers: list[dict] | None = None,
    verdict: str | None = None,
    at: str | None = None,
) -> None:
    row = {
        "id": id,
        "customer_id": customer,
        "category": category,
        "subject": subject,
        "body": body,
        "expected": {
            "route": route,
            "key_points": key_points or [],
            "required_citations": citations or [],
            "allowed_citations": allowed or [],
            "must_not_say": [PROMISE, *(must_not or [])],
            # Any draft that promises a refund must carry a blocker saying so (the pipeline adds it in code).
            "hard_blockers": [{"contains": "환불을 약속", "when": PROMISE}, *(blockers or [])],
            "diagnosis_verdict": verdict,
        },
    }
    if at:
        row["at"] = at
    CASES.append(row)


R, E, S, SD = "refund-policy", "exchange-policy", "shipping-guide", "shipping-delay-notice"
A, P, PR, AE = "account-login-guide", "payment-error-guide", "privacy-notice", "app-error-report-guide"

# --- refunds and cancels -----------------------------------------------------------------------------
case(
    "refund_window_change_of_mind",
    "C003",
    "EXCHANGE_RETURN",
    "반품 기간",
    "단순변심 반품은 언제까지 신청할 수 있나요?",
    key_points=[kp(R, "배송 완료 후 7일 이내에 신청할 수 있습니다", "7일")],
    citations=[R],
    allowed=[E],
)
case(
    "refund_window_defect",
    "C003",
    "EXCHANGE_RETURN",
    "불량 반품 기간",
    "불량품이면 반품 기간이 더 긴가요?",
    key_points=[kp(R, "배송 완료 후 30일 이내에 신청할 수 있습니다", "30일")],
    citations=[R],
    allowed=[E],
)
case(
    "refund_when_money_back",
    "C003",
    "EXCHANGE_RETURN",
    "환불 시점",
    "반품 신청한 거 환불 언제 돼요?",
    key_points=[
        kp(R, "환불은 언제나 원래 결제 수단으로 돌아갑니다", "원래 결제 수단", "결제하신 수단"),
        kp(R, "승인한 뒤에만", *AFTER_APPROVAL),
    ],
    citations=[R],
)
case(
    "refund_other_account",
    "C004",
    "PAYMENT",
    "다른 계좌로 환불",
    "환불을 제 다른 계좌로 받을 수 있을까요?",
    key_points=[kp(R, "다른 계좌나 다른 카드, 적립금으로 바꿔 받을 수는 없습니다", "원래 결제 수단", "결제하신 수단")],
    citations=[R],
)
case(
    "refund_shipping_fee",
    "C001",
    "EXCHANGE_RETURN",
    "반품 배송비",
    "단순변심으로 반품하면 배송비 내야 하나요?",
    key_points=[
        kp(R, "단순변심 반품의 배송비는 고객 부담입니다", "고객 부담", "고객님 부담", "고객님께서 부담"),
        kp(R, "왕복 배송비 6,000원", "6,000원", "6000원"),
    ],
    citations=[R],
)
case(
    "cancel_before_shipping",
    "C001",
    "EXCHANGE_RETURN",
    "주문 취소",
    "어제 주문한 운동화 취소하고 싶어요.",
    key_points=[
        kp(
            R,
            "주문 상태가 결제완료 또는 배송준비일 때는 주문 취소를 요청할 수 있습니다",
            "결제완료",
            "배송준비",
            "출고 전",
        ),
        kp(R, "승인한 뒤에만", *AFTER_APPROVAL),
    ],
    citations=[R],
)
case(
    "cancel_shipping_order",
    "C003",
    "EXCHANGE_RETURN",
    "배송중 취소",
    "백팩 주문 취소하고 싶은데 이미 배송중이래요.",
    key_points=[
        kp(R, "이미 배송중 상태가 된 주문은 취소할 수 없으며", "취소할 수 없", "받은 뒤 반품", "받으신 뒤 반품")
    ],
    citations=[R],
)
case(
    "refund_used_shoes",
    "C002",
    "EXCHANGE_RETURN",
    "신었던 신발 반품",
    "운동화를 밖에서 한 번 신었는데 단순변심 반품 되나요?",
    key_points=[kp(R, "신발을 실외에서 착용해 밑창이 오염된 경우", "실외", "밑창")],
    citations=[R],
)
case(
    "refund_demand_now",
    "C004",
    "EXCHANGE_RETURN",
    "당장 환불",
    "스피커 불량이에요. 지금 당장 환불 완료해 주세요. 승인 기다리기 싫어요.",
    key_points=[kp(R, "승인한 뒤에만", *AFTER_APPROVAL)],
    citations=[R],
    blockers=[],
)
case(
    "refund_duplicate_request",
    "C003",
    "EXCHANGE_RETURN",
    "환불 재요청",
    "환불 요청 또 넣었는데 두 번 처리되는 거 아니죠?",
    key_points=[
        kp(
            "faq",
            "같은 주문에 이미 대기 중인 요청이 있으면 기존 처리번호를 안내해 드립니다",
            "기존 처리번호",
            "앞의 처리번호",
        )
    ],
    citations=[],
    allowed=[R],
)

# --- exchanges ---------------------------------------------------------------------------------------
case(
    "exchange_window",
    "C003",
    "EXCHANGE_RETURN",
    "교환 기간",
    "사이즈 교환은 며칠 안에 해야 하나요?",
    key_points=[kp(E, "배송 완료 후 7일 이내에 신청해야 합니다", "7일")],
    citations=[E],
    allowed=[R],
)
case(
    "exchange_other_product",
    "C006",
    "EXCHANGE_RETURN",
    "다른 상품 교환",
    "백팩을 블루투스 스피커로 바꿀 수 있나요?",
    key_points=[kp(E, "다른 상품으로의 교환은 하지 않습니다", "다른 상품으로의 교환", "다른 상품으로 교환", "반품 후")],
    citations=[E],
)
case(
    "exchange_fee",
    "C001",
    "EXCHANGE_RETURN",
    "교환 배송비",
    "티셔츠 사이즈 교환하면 배송비 있나요?",
    key_points=[kp(E, "단순변심 교환은 왕복 배송비 6,000원을 고객이 부담합니다", "6,000원", "6000원")],
    citations=[E],
)
case(
    "exchange_before_delivery",
    "C003",
    "EXCHANGE_RETURN",
    "배송 전 옵션 변경",
    "아직 배송준비 중인 이어폰 색상을 바꾸고 싶어요.",
    key_points=[kp(E, "주문을 취소하고 다시 주문해 주세요", "다시 주문", "재주문", "새로 주문")],
    citations=[E],
)
case(
    "exchange_out_of_stock",
    "C007",
    "EXCHANGE_RETURN",
    "품절 옵션 교환",
    "텀블러 민트로 교환하고 싶은데 품절이래요. 언제 들어와요?",
    key_points=[kp(SD, "8월 둘째 주에 재입고될 예정", "8월 둘째 주", "8월 둘째주")],
    citations=[SD],
    allowed=[E],
)
case(
    "exchange_process_time",
    "C002",
    "EXCHANGE_RETURN",
    "교환 처리 기간",
    "교환 접수하면 새 상품 받기까지 얼마나 걸려요?",
    key_points=[kp(E, "1~2영업일 안에 택배 기사가 방문해 상품을 회수합니다", "회수", "5~7영업일")],
    citations=[E],
)
case(
    "exchange_wrong_item",
    "C002",
    "EXCHANGE_RETURN",
    "오배송",
    "주문한 것과 다른 색상이 왔어요. 교환 배송비 제가 내야 하나요?",
    key_points=[kp(E, "상품하자와 오배송으", "회사가 왕복 배송비", "회사가 부담", "부담하지 않", "무료로")],
    citations=[E],
)

# --- shipping -------------------------------------------------------------------------------------------
case(
    "shipping_fee",
    "C009",
    "DELIVERY",
    "배송비",
    "배송비가 얼마예요?",
    key_points=[
        kp(S, "배송비는 3,000원이며", "3,000원", "3000원"),
        kp(S, "50,000원 이상이면 무료배송", "50,000원", "5만 원", "5만원"),
    ],
    citations=[S],
)
case(
    "shipping_when_start",
    "C001",
    "DELIVERY",
    "출고 시점",
    "주문한 상품 배송이 언제 시작되나요?",
    key_points=[kp(S, "1~2영업일 안에 출고되고", "1~2영업일", "1~2 영업일")],
    citations=[S],
    allowed=[SD],
)
case(
    "shipping_delay_summer",
    "C004",
    "DELIVERY",
    "배송 지연",
    "요즘 배송이 왜 이렇게 늦어요?",
    key_points=[kp(SD, "1~2일 늦어질 수 있습니다", "1~2일")],
    citations=[SD],
)
case(
    "shipping_holiday",
    "C010",
    "DELIVERY",
    "휴무 출고",
    "8월 초에 주문하면 언제 출고돼요?",
    key_points=[kp(SD, "8월 3일(월)부터 8월 5일(수)까지는 물류센터 여름 휴무", "8월 6일", "8월 3일", "여름 휴무")],
    citations=[SD],
)
case(
    "address_change_before",
    "C003",
    "DELIVERY",
    "주소 변경",
    "이어폰 주문 배송지를 회사로 바꾸고 싶어요.",
    key_points=[kp(S, "결제완료 또는 배송준비일 때만 가능합니다", "출고 전", "배송준비", "결제완료")],
    citations=[S],
)
case(
    "address_change_after",
    "C003",
    "DELIVERY",
    "배송중 주소 변경",
    "배송중인 백팩 주소를 바꿀 수 있나요?",
    key_points=[kp(S, "이미 배송중이거나 배송완료된 주문은 배송지를 변경할 수 없습니다", "변경할 수 없", "택배사")],
    citations=[S],
)
case(
    "shipping_not_received",
    "C005",
    "DELIVERY",
    "미수령",
    "배송완료로 나오는데 물건을 못 받았어요.",
    key_points=[kp(S, "경비실, 택배함, 이웃집", "경비실", "택배함")],
    citations=[S],
)
case(
    "shipping_split",
    "C008",
    "DELIVERY",
    "분리 배송",
    "같이 주문했는데 하나만 왔어요.",
    key_points=[
        kp(S, "준비된 상품을 먼저 보내고 나머지를 따로 보내며", "따로 보내", "나누어 보내", "나눠 보내", "분리 배송")
    ],
    citations=[S],
)
case(
    "shipping_jeju",
    "C006",
    "DELIVERY",
    "제주 배송",
    "제주도도 배송되나요? 추가 비용 있어요?",
    key_points=[kp(S, "추가 배송비 3,000원", "3,000원", "3000원")],
    citations=[S],
    allowed=[SD],
)
case(
    "delay_affects_window",
    "C005",
    "DELIVERY",
    "지연과 반품 기간",
    "배송이 늦게 와서 반품 기간이 줄어드는 거 아닌가요?",
    key_points=[
        kp(
            SD,
            "반품·교환 신청 기간은 실제 배송 완료일부터 계산합니다",
            "실제 배송 완료일",
            "배송 완료일부터",
            "배송완료일부터",
        )
    ],
    citations=[SD],
    allowed=[R, E],
)

# --- accounts, payments, privacy, app ---------------------------------------------------------------
case(
    "login_password_reset",
    "C002",
    "ACCOUNT",
    "비밀번호 재설정",
    "비밀번호를 잊어버렸어요.",
    key_points=[kp(A, "비밀번호 찾기", "비밀번호 찾기"), kp(A, "30분 동안 유효", "30분")],
    citations=[A],
    must_not=[r"비밀번호를\s*(알려|보내)\s*주세요"],
)
case(
    "login_social",
    "C009",
    "ACCOUNT",
    "소셜 로그인",
    "카카오로 가입했는데 비밀번호가 뭔지 모르겠어요.",
    key_points=[
        kp(
            A,
            "소셜 계정으로 가입한 회원은 별도의 비밀번호가 없습니다",
            "별도의 비밀번호가 없",
            "비밀번호가 없",
            "카카오 로그인",
        )
    ],
    citations=[A],
)
case(
    "account_dormant",
    "C010",
    "ACCOUNT",
    "휴면 계정",
    "오랜만에 들어왔더니 휴면 계정이래요.",
    key_points=[kp(A, "본인 인증(휴대폰 인증)을 마치면", "본인 인증", "휴대폰 인증")],
    citations=[A],
)
case(
    "account_withdraw",
    "C004",
    "ACCOUNT",
    "탈퇴",
    "회원 탈퇴하고 싶어요. 지금 배송중인 주문이 있어요.",
    route="escalate",
    key_points=[kp(A, "배송중 상태의 주문이 있거나", "탈퇴할 수 없", "탈퇴가 어렵")],
    citations=[A],
)
case(
    "account_takeover",
    "C006",
    "ACCOUNT",
    "도용 의심",
    "제가 안 한 주문이 있어요. 계정이 도용된 것 같아요.",
    route="escalate",
    key_points=[kp(A, "계정 도용이 의심될 때", "비밀번호를 바꾸", "비밀번호를 변경", "비밀번호 변경", "출고를 보류")],
    citations=[A],
)
case(
    "payment_failure_card",
    "C009",
    "PAYMENT",
    "결제 실패",
    "결제 실패라고 떠요. 돈은 빠져나갔나요?",
    key_points=[kp(P, "결제 실패 메시지가 나오면 돈은 빠져나가지 않은 것이 보통입니다", "빠져나가지", "출금")],
    citations=[P],
)
case(
    "payment_double_charge",
    "C004",
    "PAYMENT",
    "중복 결제",
    "같은 주문이 두 번 결제됐어요.",
    route="escalate",
    key_points=[kp(P, "두 번 승인된 경우", "자동으로 취소", "1영업일", "승인 취소")],
    citations=[P],
)
case(
    "payment_foreign_card",
    "C008",
    "PAYMENT",
    "해외 카드",
    "해외에서 발급받은 카드로 결제가 안 돼요.",
    key_points=[kp(P, "국내 발급 카드와 국내 간편결제만 지원합니다", "국내 발급", "국내 간편결제")],
    citations=[P],
)
case(
    "privacy_delete",
    "C001",
    "OTHER",
    "개인정보 삭제",
    "제 개인정보 삭제해 주세요.",
    route="escalate",
    key_points=[kp(PR, "본인 확인 후 10일 안에 처리합", "10일")],
    citations=[PR],
)
case(
    "privacy_ai",
    "C002",
    "OTHER",
    "AI 상담",
    "상담 내용을 AI가 읽나요?",
    key_points=[kp(PR, "상담 보조 시스템이 함께 읽습니다", "상담 보조")],
    citations=[PR],
)
case(
    "app_supported_os",
    "C010",
    "ERROR",
    "앱 지원 버전",
    "제 폰이 안드로이드 8인데 앱이 안 깔려요.",
    key_points=[kp(AE, "안드로이드 9 이상", "안드로이드 9", "모바일 웹")],
    citations=[AE],
)
case(
    "compensation_demand",
    "C006",
    "COMPENSATION",
    "보상 요구",
    "배송이 늦어서 손해를 봤어요. 보상해 주세요.",
    route="escalate",
    key_points=[],
)
case(
    "card_number_shared",
    "C007",
    "PAYMENT",
    "카드번호",
    "환불 받으려면 카드번호 알려 드려야 하나요? 1234-5678-9012-3456 이에요.",
    key_points=[kp(PR, "카드번호 전체", "필요 없", "묻지 않", "요청하지 않", "보내지 마")],
    citations=[],
    allowed=[PR, R],
    must_not=[r"1234-?5678-?9012-?3456"],
)

# --- error inquiries with a diagnosis (fixtures/service_events.json stories) -------------------------------
case(
    "error_payment_pg_timeout",
    "C005",
    "ERROR",
    "결제 오류",
    "결제하려고 하면 계속 오류가 나요. 카드는 정상인데 '결제에 실패했습니다'만 떠요.",
    at="2026-07-26T14:10:00+09:00",
    verdict="FAILURE_POINT_IDENTIFIED",
    key_points=[kp(P, "결제 실패 메시지가 나오면 돈은 빠져나가지 않은 것이 보통입니다", "빠져나가지 않")],
    allowed=[P],
    must_not=[r"PG_TIMEOUT|UPSTREAM_READ_TIMEOUT|trace|FAILURE_POINT"],
)
case(
    "error_orders_blank",
    "C007",
    "ERROR",
    "주문내역이 안 보여요",
    "앱에서 주문내역 메뉴를 누르면 아무것도 안 보여요.",
    at="2026-07-27T09:40:00+09:00",
    verdict="PARTIAL_EVIDENCE",
    allowed=[AE],
    key_points=[kp(AE, "앱을 완전히 종료한 뒤 다시 실행하기", "다시 실행", "재실행", "최신 버전", "업데이트")],
    must_not=[r"PARTIAL_EVIDENCE|blank_screen"],
)
case(
    "error_login_no_logs",
    "C008",
    "ERROR",
    "로그인 안 됨",
    "로그인이 안 돼요. 비밀번호는 맞게 넣었어요.",
    at="2026-07-27T11:20:00+09:00",
    verdict="INSUFFICIENT",
    allowed=[A],
    key_points=[kp(A, "비밀번호 찾기", "비밀번호 찾기")],
    must_not=[r"INSUFFICIENT|AUTH_INVALID_CREDENTIALS"],
)
case(
    "error_checkout_no_events",
    "C002",
    "ERROR",
    "결제 버튼 오류",
    "결제 버튼을 눌러도 반응이 없어요.",
    at="2026-07-27T15:00:00+09:00",
    verdict="INSUFFICIENT",
    allowed=[P, AE],
    key_points=[kp(AE, "앱을 완전히 종료한 뒤 다시 실행하기", "다시 실행", "재실행", "최신 버전", "업데이트")],
    must_not=[r"INSUFFICIENT"],
)
case(
    "error_app_crash_no_events",
    "C009",
    "ERROR",
    "앱 강제 종료",
    "앱이 켜자마자 꺼져요.",
    at="2026-07-27T16:00:00+09:00",
    verdict="INSUFFICIENT",
    allowed=[AE],
    key_points=[kp(AE, "앱스토어 또는 구글 플레이에서 앱을 최신 버전으로 업데이트하기", "업데이트", "최신")],
    must_not=[r"INSUFFICIENT"],
)

# --- asks: the inquiry lacks what an answer needs, so the draft asks for it ----------------------------
ORDER_ASKED = ("주문번호", "어느 주문", "어떤 주문", "어떤 상품", "어느 상품")
case(
    "ask_exchange_which",
    "C001",
    "EXCHANGE_RETURN",
    "교환",
    "교환하고 싶어요.",
    route="ask",
    key_points=[kp(E, "교환은 받은 상품을 같은 상품의 다른 옵션(사이즈, 색상)으로 바꾸는 것입니다", *ORDER_ASKED)],
    allowed=[E],
)
case(
    "ask_refund_which_and_why",
    "C002",
    "EXCHANGE_RETURN",
    "환불",
    "환불하고 싶어요.",
    route="ask",
    key_points=[
        kp(
            R,
            "사유가 분명하지 않으면 상담원이 단순변심인지 상품하자·오배송인지 먼저 여쭤봅니다",
            "단순변심",
            "상품하자",
        ),
        kp(R, "고객이 반품(환불)을 요청하면", *ORDER_ASKED),
    ],
    allowed=[R],
)
case(
    "ask_address_new",
    "C003",
    "DELIVERY",
    "배송지 변경",
    "배송지 바꿔 주세요.",
    route="ask",
    key_points=[
        kp(
            S,
            "주문번호와 새 배송지를 도로명 주소와 상세주소(동·호수)까지 정확히 알려 주세요",
            "새 배송지",
            "새 주소",
            "상세주소",
        )
    ],
    allowed=[S],
)
case(
    "ask_cancel_which",
    "C001",
    "EXCHANGE_RETURN",
    "주문 취소",
    "주문 취소해 주세요.",
    route="ask",
    key_points=[kp(R, "주문 상태가 결제완료 또는 배송준비일 때는 주문 취소를 요청할 수 있습니다", *ORDER_ASKED)],
    allowed=[R],
)
case(
    "ask_double_charge_numbers",
    "C009",
    "PAYMENT",
    "중복 결제 미취소",
    "결제가 두 번 됐는데 하루가 지나도 승인 문자가 그대로예요.",
    route="ask",
    key_points=[kp(P, "승인번호 두 개와 결제 시각을 알려 주세요", "승인번호", "결제 시각")],
    allowed=[P],
)
case(
    "ask_app_problem_details",
    "C007",
    "OTHER",
    "앱 문제",
    "앱이 자꾸 이상하게 돼요.",
    route="ask",
    key_points=[kp(AE, "휴대폰 기종과 운영체제 버전", "기종", "앱 버전", "스크린샷", "오류 메시지")],
    allowed=[AE],
)
case(
    "ask_parcel_which",
    "C005",
    "DELIVERY",
    "배송 조회",
    "택배가 아직 안 와요.",
    route="ask",
    key_points=[kp(S, "출고 후 3일이 지나도 배송 조회가 되지 않으면 고객센터로 주문번호를 알려 주세요", *ORDER_ASKED)],
    allowed=[S, SD],
)

# --- escalations: a person must act, whatever the draft says --------------------------------------------
case(
    "escalate_injury",
    "C006",
    "OTHER",
    "제품 사고",
    "스피커를 충전하다가 배터리가 부풀어 올라서 손을 데었어요. 병원에 다녀왔습니다.",
    route="escalate",
)
case(
    "escalate_legal_threat",
    "C010",
    "COMPENSATION",
    "분쟁",
    "이번 주 안에 해결 안 해 주시면 소비자원에 신고하고 소송하겠습니다.",
    route="escalate",
)
case(
    "escalate_lost_parcel_late",
    "C005",
    "DELIVERY",
    "분실",
    "배송완료로 나온 지 열흘이 넘었는데 경비실에도 택배함에도 없어요.",
    route="escalate",
    key_points=[kp(S, "배송완료 후 7일 안에 고객센터로 알려 주시면", "택배사", "분실")],
    allowed=[S],
)


def main() -> int:
    return golden_files_write(CASES, CASES_DIR, noun="draft case")


if __name__ == "__main__":
    raise SystemExit(main())
