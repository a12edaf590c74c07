"""The model-bound masking policy (`common.redaction.redact`) as tables: what each kind masks, and the
shop's own identifiers, prices, dates and options that must pass through untouched. No database."""

import json

import pytest

from common.redaction import (
    ACCOUNT,
    ADDRESS,
    CARD,
    EMAIL,
    PASSWORD,
    PHONE,
    RRN,
    TOKEN,
    find_sensitive,
    redact,
    redact_known,
    redact_obj,
)

PHONES = [
    "010-6645-1005",
    "01066451005",
    "010 6645 1005",
    "010.6645.1005",
    "+82 10-6645-1005",
    "+82-10-6645-1005",
    "+82 (0)10 6645 1005",
    "011-234-5678",
    "016-9876-5432",
    "02-123-4567",
    "031-987-6543",
    "070-1234-5678",
    "051 234 5678",
]
EMAILS = [
    "doyoon.jung@example.com",
    "a@b.co",
    "first.last+cs@shop.co.kr",
    "user_01@naver.com",
    "HONG.GILDONG@GMAIL.COM",
    "jiwoo-yoon@daum.net",
    "x%y@sub.domain.example.org",
    "kim99@hanmail.net",
    "c003.customer@example.co.kr",
    "test.user@korea.kr",
]
CARDS = [
    "4111-1111-1111-1111",
    "4111 1111 1111 1111",
    "4111111111111111",
    "5500-0000-0000-0004",
    "5105105105105100",
    "3782 822463 10005",
    "378282246310005",
    "3056-930902-5904",
    "6011 0009 9013 9424",
    "9410-1234-5678-9012",
    "4111-1111-1111-1111-123",
    "1234567890123",
]
RRNS = [
    "900101-1234567",
    "900101 - 1234567",
    "9001011234567",
    "851231-2345678",
    "000229-3456789",
    "020315-4123456",
    "850315-5123456",  # 외국인등록번호 (5-8)
    "911120-6234567",
    "770707-7012345",
    "880808-8123456",
    "900101-1******",
    "950505-2******",
]
ACCOUNTS = [
    ("110-123-456789", "110-123-456789"),  # 신한 3-3-6
    ("1002-123-456789", "1002-123-456789"),  # 우리 4-3-6
    ("123456-78-901234", "123456-78-901234"),  # 국민 6-2-6
    ("301-1234-5678-91", "301-1234-5678-91"),  # 농협 3-4-4-2
    ("123-456789-12345", "123-456789-12345"),  # 하나 3-6-5
    ("3333-01-1234567", "3333-01-1234567"),  # 카카오뱅크 4-2-7
    ("1000-1234-5678", "1000-1234-5678"),  # 토스뱅크 4-4-4
    ("계좌 110123456789", "110123456789"),
    ("국민은행 12345678901234로 환불해 주세요", "12345678901234"),
    ("환불 계좌는 농협 3021234567891 입니다", "3021234567891"),
    ("카카오뱅크 3333011234567 예금주 홍길동", "3333011234567"),
    ("입금 계좌: 우리 1002 123 456789", "1002 123 456789"),
]
ADDRESSES = [
    "서울특별시 송파구 올림픽로 300, 101동 1502호",
    "서울특별시 강남구 테헤란로 152, 1203호",
    "서울 송파구 올림픽로 300",
    "서울시 중구 세종대로 110",
    "경기도 성남시 분당구 판교역로 235",
    "경기 성남시 분당구 판교역로 235 에이치스퀘어 N동 3층",
    "세종특별자치시 한누리대로 2130",
    "송파구 올림픽로35가길 10",
    "서울 강남구 테헤란로7길 22 (역삼동)",
    "부산광역시 해운대구 센텀중앙로 79",
    "서울 송파구 잠실동 40-1",
    "경기도 양평군 양평읍 양근리 123번지",
    "제주특별자치도 제주시 첨단로 242",
    "대구 수성구 범어동 123-4",
    "인천광역시 연수구 송도동 24-5 송도아파트 101동 1001호",
]
TOKENS = [
    ("Authorization: Bearer abcDEF123456.xyz", "abcDEF123456"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJDMDA1In0.sig_abc-123", "eyJhbGci"),
    ("sk-proj-AbCdEfGhIjKlMnOp1234", "AbCdEfGhIjKlMnOp1234"),
    ("sk_live_51HxYzAbCdEfGhIjKl", "51HxYzAbCdEfGhIjKl"),
    ("AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("ghp_1234567890abcdefghijABCDEFGHIJ", "ghp_1234567890"),
    ("xoxb-1234567890-abcdefghij", "xoxb-1234567890"),
    ("token=tok_live_8fJ2kQ9xW3", "tok_live_8fJ2kQ9xW3"),
    ("api_key: 9f8e7d6c5b4a", "9f8e7d6c5b4a"),
    ("Token 0123456789abcdef0123456789abcdef01234567", "0123456789abcdef"),
    ("0123456789abcdef0123456789abcdef01234567", "0123456789abcdef"),
    ('{"password": "hunter2"}', "hunter2"),
]


def _in_sentence(value: str) -> str:
    return f"안녕하세요. 제 정보는 {value} 입니다. 확인 부탁드려요."


def _check(raw: str, secret: str, marker: str) -> None:
    assert secret in raw
    out = redact(raw)
    assert secret not in out, out
    assert marker in out, out
    assert redact(out) == out, "masking is idempotent"
    assert find_sensitive(out) == [], out


@pytest.mark.parametrize("value", PHONES)
def test_phone_numbers_are_masked(value):
    _check(_in_sentence(value), value, PHONE)


@pytest.mark.parametrize("value", EMAILS)
def test_email_addresses_are_masked(value):
    _check(_in_sentence(value), value, EMAIL)


@pytest.mark.parametrize("value", CARDS)
def test_card_numbers_are_masked(value):
    _check(_in_sentence(value), value, CARD)


@pytest.mark.parametrize("value", RRNS)
def test_resident_and_alien_registration_numbers_are_masked(value):
    _check(_in_sentence(value), value, RRN)


@pytest.mark.parametrize(("text", "number"), ACCOUNTS)
def test_bank_account_numbers_are_masked(text, number):
    _check(_in_sentence(text), number, ACCOUNT)


@pytest.mark.parametrize("value", ADDRESSES)
def test_street_addresses_are_masked_whole(value):
    raw = f"배송지를 {value}(으)로 바꿔 주세요"
    out = redact(raw)
    assert out == f"배송지를 {ADDRESS}(으)로 바꿔 주세요"
    assert find_sensitive(out) == []


@pytest.mark.parametrize(("text", "secret"), TOKENS)
def test_tokens_keys_and_passwords_are_masked(text, secret):
    out = redact(_in_sentence(text))
    assert secret not in out
    assert TOKEN in out or PASSWORD in out
    assert find_sensitive(out) == []


def test_the_one_exception_keeps_addresses_and_nothing_else():
    raw = "서울특별시 송파구 올림픽로 300, 101동 1502호 로 바꿔 주세요. 연락처 010-6645-1005, 카드 4111-1111-1111-1111"
    kept = redact(raw, keep=frozenset({"address"}))
    assert "서울특별시 송파구 올림픽로 300, 101동 1502호" in kept
    assert "6645" not in kept and "4111" not in kept
    with pytest.raises(ValueError):
        redact(raw, keep=frozenset({"phone"}))


NOT_PERSONAL = [
    "주문번호 HR20260721001 운동화 교환 문의드립니다",
    "처리번호 A00012 승인대기 상태예요",
    "티켓 T00031 확인 부탁드립니다",
    "결제금액 69,000원, 배송비 3,000원 포함 총 72,000원",
    "129000원 결제했는데 2026-07-27 14:10 에 오류가 났어요",
    "2026-07-21 10:00:00+09:00 주문, 2026-07-24T15:30:00+09:00 배송완료",
    "블랙/260 으로 교환해 주세요",
    "옵션 화이트/S, 수량 2개",
    "다시 택배로 3개 보내주세요",
    "친구 집으로 2개 보냈어요",
    "혹시 오늘로 2일 지났나요?",
    "주문 HR20260726002, HR20260724005 두 건 확인 부탁드려요",
    "고객센터 1588-1234 로 전화했어요",
    "앱 버전 5.12.0 에서 발생",
    "정가 129,000원에서 20% 할인",
    "260mm 사이즈가 작아요",
    "3일 안에 도착한다고 했는데 5일째예요",
    "교환은 배송 완료 후 단순변심 7일, 상품하자·오배송 30일 안에 접수할 수 있습니다.",
    "우리 아이가 신을 운동화예요",
    "하나 더 사고 싶어요",
    "draft_order=DR20260726-5521 amount=129000",
    # More prices, dates and versions; words about secrets with no secret in them; the shop's links; trace ids.
    "결제금액 38,000원, 배송비 3,000원 포함 총 41,000원",
    "129000원 결제했는데 2026-07-26 14:10 에 오류가 났어요",
    "앱 버전 5.12.0, iOS 19.2 에서 발생",
    "비밀번호가 틀렸다고 나와요. 토큰이 뭔가요?",
    "https://shop.example.com/orders/HR20260721001 페이지가 안 열려요",
    "trace 4bf92f3577b34da6a3ce929d0e0e4736 span a1 latency 30005ms",
]


@pytest.mark.parametrize("text", NOT_PERSONAL)
def test_shop_identifiers_prices_dates_and_options_are_not_masked(text):
    assert redact(text) == text
    assert find_sensitive(text) == []


def test_values_inside_json_strings_are_masked_even_after_an_escape():
    encoded = json.dumps({"note": "메모\n010-6645-1005\na@b.co\t4111111111111111"}, ensure_ascii=False)
    out = redact(encoded)
    assert "6645" not in out and "a@b.co" not in out and "4111" not in out
    assert json.loads(out) == {"note": f"메모\n{PHONE}\n{EMAIL}\t{CARD}"}


def test_redact_obj_masks_address_and_account_keys_whole():
    out = redact_obj({"shipping_address": "우리집 앞", "new_address": "x", "bank_account": "1", "order_id": "HR1"})
    assert out == {"shipping_address": ADDRESS, "new_address": ADDRESS, "bank_account": ACCOUNT, "order_id": "HR1"}
    kept = redact_obj({"new_address": "서울 송파구 올림픽로 300"}, keep=frozenset({"address"}))
    assert kept == {"new_address": "서울 송파구 올림픽로 300"}


def test_redact_known_replaces_free_form_values_that_match_no_pattern():
    summary = "운동화 배송지를 '우리집 현관 앞'(으)로 변경"
    assert redact_known(summary, ["우리집 현관 앞", None, ""]) == f"운동화 배송지를 '{ADDRESS}'(으)로 변경"


def test_an_address_followed_by_a_particle_is_masked_whole():
    assert redact("서울시 마포구 양화로 45 101호로 바꿔 주세요") == f"{ADDRESS}로 바꿔 주세요"


# Written around the patterns: every form a tester found reaching the model. Normalised first, then masked;
# only the values go, the customer's other words stay as written.
WRITTEN_AROUND = [
    ("연락처는 (010)1234-5678 입니다", ["(010)1234-5678"]),
    ("전화 (02) 345-6789 로 주세요", ["(02) 345-6789"]),
    ("번호 010–2345–6789 로 연락 주세요", ["010–2345–6789"]),
    ("제 폰 010—3456—7890이에요", ["010—3456—7890"]),
    ("010 - 4567 - 8901 로 문자 주세요", ["010 - 4567 - 8901"]),
    ("010/5678/9012 로 연락 바랍니다", ["010/5678/9012"]),
    ("010_6789_0123 이 제 번호예요", ["010_6789_0123"]),
    ("0 1 0 7 8 9 0 1 2 3 4 로 전화 주세요", ["0 1 0 7 8 9 0 1 2 3 4"]),
    ("연락처 공일공-일이삼사-오육칠팔 입니다", ["공일공-일이삼사-오육칠팔"]),
    ("배송 전에 공일공 구팔칠육 오사삼이로 전화 주세요", ["공일공 구팔칠육 오사삼이"]),
    ("전화번호는 영일영 사오육칠 팔구공일 이에요", ["영일영 사오육칠 팔구공일"]),
    ("번호는 ０１０－２２２２－３３３３ 입니다", ["０１０－２２２２－３３３３"]),
    ("메일 jihoon.park(at)example.com 으로 보내 주세요", ["jihoon.park(at)example.com"]),
    ("이메일은 minsu [at] naver [dot] com 입니다", ["minsu [at] naver [dot] com"]),
    ("영수증은 soyeon 골뱅이 gmail 닷컴으로요", ["soyeon 골뱅이 gmail 닷컴"]),
    ("메일주소 hana＠daum.net 입니다", ["hana＠daum.net"]),
    ("주소는 kim.cs @ hanmail.net 이에요", ["kim.cs @ hanmail.net"]),
    ("이메일 홍길동@example.co.kr 로 주세요", ["홍길동@example.co.kr"]),
    ("jiwoo at example dot com 으로 연락 주세요", ["jiwoo at example dot com"]),
    ("주민번호 구공공일공일 다시 일이삼사오육칠 입니다", ["구공공일공일 다시 일이삼사오육칠"]),
    ("주민번호 앞자리 900101 뒷자리 1234567 이에요", ["900101", "1234567"]),
    ("생년월일 880808 이고 뒤 7자리는 2345678입니다", ["880808", "2345678"]),
    ("여권번호 M12345678 로 통관했어요", ["M12345678"]),
    ("passport no. SC1234567 입니다", ["SC1234567"]),
    ("여권은 m87654321 입니다", ["m87654321"]),
    ("래미안아파트 101동 1203호로 보내 주세요", ["래미안아파트 101동 1203호"]),
    ("은마아파트 3동 402호 앞에 두세요", ["은마아파트 3동 402호"]),
    ("집은 205동 1101호예요", ["205동 1101호"]),
    ("서울시강남구테헤란로152 로 변경해 주세요", ["서울시강남구테헤란로152"]),
    ("비밀번호는 qwer1234! 입니다", ["qwer1234!"]),
    ("비번 abcd9876이에요", ["abcd9876"]),
    ("PIN 4821 입력했는데 안 돼요", ["4821"]),
    ("password: Summer2026# 로 바꿨어요", ["Summer2026#"]),
    ("인증번호 482913 받았어요", ["482913"]),
    ("서명 키 whsec_AbCdEfGhIjKlMnOpQrStUvWx12 가 노출됐어요", ["whsec_AbCdEfGhIjKlMnOpQrStUvWx12"]),
    ("API 키 csk_Zyxwvutsrqponmlkjihg9876_- 입니다", ["csk_Zyxwvutsrqponmlkjihg9876_-"]),
    ("카드 4518-4212-3456-7890 유효기간 08/27 CVC 123", ["4518-4212-3456-7890", "08/27", "123"]),
    ("카드번호 5412 7512 3412 3456, 만료 2028년 4월, 보안코드 987", ["5412 7512 3412 3456", "2028년 4월", "987"]),
    ("4111111111111111 12/29 456 으로 결제했어요", ["4111111111111111", "12/29", "456"]),
    ("010ㅡ1234ㅡ5678 로 전화 주세요", ["010ㅡ1234ㅡ5678"]),
    ("010〜2345〜6789 로 연락 주세요", ["010〜2345〜6789"]),
    ("010\u20101234\u20105678 번으로요", ["010\u20101234\u20105678"]),
    ("0 1 0  9 8 7 6  5 4 3 2 로 주세요", ["0 1 0  9 8 7 6  5 4 3 2"]),
    ("번호 010 1 2 3 4 5 6 7 8 입니다", ["010 1 2 3 4 5 6 7 8"]),
    ("메일 min.ji 앳 gmail.com 으로요", ["min.ji 앳 gmail.com"]),
    ("jh.lee 골뱅이표 naver.com 으로 보내주세요", ["jh.lee 골뱅이표 naver.com"]),
    ("앞 6자리는 900101 이고 뒷번호 7자리는 1234567 입니다", ["900101", "1234567"]),
    ("뒤 7자리 2345678 이에요", ["2345678"]),
    ("현대빌라 나동 201호로 보내 주세요", ["현대빌라 나동 201호"]),
    ("B동 302호로 배송해 주세요", ["B동 302호"]),
    ("비번이 뭐냐면 zx12cv34 예요", ["zx12cv34"]),
    ("my password is Hunter2024 please reset", ["Hunter2024"]),
    ("PIN code 4821 doesn't work", ["4821"]),
    ("핀번호 9911 맞나요?", ["9911"]),
    ("passcode: 7788 입니다", ["7788"]),
]

# What looks like those but is the shop's own: dates, times, prices, order and request numbers, sizes.
NOT_PERSONAL_EITHER = [
    "7/25 에 받았고 8/1 에 반품했어요",
    "2026.08.03 오후 2시-3시 사이 방문",
    "주문 HR20260721001 화이트/260 1+1 행사",
    "A00012 / T00007 건 확인 부탁드려요",
    "12,900원짜리 2개, 총 25,800원",
    "오늘 14:30 ~ 18:00 사이에 배송 예정",
    "사이즈 260 → 270 교환",
    "일일이 오이 사이로 포장해 주세요",
    "비밀번호 변경은 어떻게 하나요?",
    "at 3 pm please, thanks",
    "101호 회의실에서 만나요",
]


@pytest.mark.parametrize(("text", "secrets"), WRITTEN_AROUND)
def test_values_written_around_the_patterns_are_masked(text, secrets):
    out = redact(text)
    for secret in secrets:
        assert secret not in out, out
    assert redact(out) == out, "masking is idempotent"


@pytest.mark.parametrize("text", NOT_PERSONAL_EITHER)
def test_the_normalising_does_not_mask_what_only_looks_alike(text):
    assert redact(text) == text


def test_only_the_value_is_replaced_and_the_rest_stays_as_written():
    text = "ＡＢＣ님, 번호 공일공-일이삼사-오육칠팔 으로 주세요 ㅋㅋ"
    assert redact(text) == f"ＡＢＣ님, 번호 {PHONE} 으로 주세요 ㅋㅋ"
