import pytest

from common.redaction import (
    CARD,
    EMAIL,
    INTERNAL_URL,
    IP_ADDRESS,
    PASSWORD,
    PHONE,
    STACK,
    TOKEN,
    find_sensitive,
    mask_email,
    mask_phone,
    redact,
    redact_obj,
)

JAVA_TRACE = (
    "com.shop.payment.PgTimeoutException: PG read timed out\n"
    "\tat com.shop.payment.pg.PgClient.charge(PgClient.java:87)\n"
    "\tat com.shop.payment.PaymentService.authorize(PaymentService.java:142)\n"
    "Caused by: java.net.SocketTimeoutException: Read timed out\n"
    "\tat java.base/java.net.SocketInputStream.socketRead0(Native Method)\n"
    "\t... 41 more"
)
PY_TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/srv/payment/adapters/pg.py", line 118, in charge\n'
    "    resp = self.session.post(self.url, json=payload, timeout=30)\n"
    "requests.exceptions.ReadTimeout: Read timed out."
)

# (case, raw text, fragments that must be gone, marker that must appear)
CASES = [
    ("bearer", "Authorization: Bearer abcDEF123456.xyz", ["abcDEF123456"], f"Bearer {TOKEN}"),
    ("jwt", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJDMDA1In0.sig_abc-123 끝", ["eyJhbGci", "sig_abc"], TOKEN),
    ("sk key", "key sk-proj-AbCdEfGhIjKlMnOp1234 사용", ["AbCdEfGhIjKlMnOp1234"], TOKEN),
    ("token param", "GET /cb?token=tok_live_8fJ2kQ9xW3&x=1", ["tok_live_8fJ2kQ9xW3"], f"token={TOKEN}"),
    ("password param", "login password=Jiwoo!2026 실패", ["Jiwoo!2026"], f"password={PASSWORD}"),
    ("password json", '{"password": "hunter2"}', ["hunter2"], PASSWORD),
    ("session id", "session_id=JSX9a8b7c6d5e4; JSESSIONID=ABCDEF", ["JSX9a8b7c6d5e4", "ABCDEF"], TOKEN),
    ("card dashed", "card=4111-1111-1111-1111 승인 실패", ["4111"], CARD),
    ("card spaced", "카드 4111 1111 1111 1111 결제", ["4111 1111"], CARD),
    ("card plain 13-19", "pan 5105105105105100 / 378282246310005", ["5105105105105100", "378282246310005"], CARD),
    ("phone dashed", "연락처 010-6645-1005 입니다", ["6645"], PHONE),
    ("phone plain", "연락처 01066451005", ["01066451005"], PHONE),
    ("phone +82", "연락처 +82 10-6645-1005", ["6645-1005"], PHONE),
    ("phone landline", "매장 02-123-4567", ["123-4567"], PHONE),
    ("email", "메일 doyoon.jung@example.com 로 보냄", ["doyoon.jung"], EMAIL),
    ("internal suffix", "call http://pg-gateway.internal:8080/v1/charge failed", ["pg-gateway"], INTERNAL_URL),
    ("cluster.local", "db postgres://payments-db.svc.cluster.local:5432/pay", ["payments-db"], INTERNAL_URL),
    ("localhost", "see http://localhost:3000/debug", ["localhost"], INTERNAL_URL),
    ("private 10.x", "GET http://10.20.3.41:8080/health", ["10.20.3.41"], INTERNAL_URL),
    ("private 172.16-31", "peer 172.20.1.5:9000 reset", ["172.20.1.5"], INTERNAL_URL),
    ("private 192.168", "GET http://192.168.40.12/health", ["192.168"], INTERNAL_URL),
    ("single-label host", "POST http://payment-svc/v1/authorize", ["payment-svc"], INTERNAL_URL),
    ("internal label", "https://api.internal.shop.example.com/x", ["api.internal"], INTERNAL_URL),
    ("bare internal host", "HTTPConnectionPool(host='pg-gateway.internal', port=8080)", ["pg-gateway"], INTERNAL_URL),
    ("public ip", "client 211.36.140.22 접속", ["211.36.140.22"], IP_ADDRESS),
    ("url credentials", "https://user:s3cret@api.example.com/x", ["s3cret"], TOKEN),
    ("java frames", JAVA_TRACE, ["PgClient.java:87", "socketRead0", "41 more"], STACK),
    ("java thread", 'Exception in thread "main" java.lang.IllegalStateException: boom', ["main"], STACK),
    ("python traceback", PY_TRACE, ["pg.py", "self.session.post", "most recent call"], STACK),
    ("python frame alone", 'at File "/srv/app/x.py", line 3, in run', ["x.py"], STACK),
]


@pytest.mark.parametrize(("raw", "gone", "marker"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_redact_removes_each_pattern_family(raw, gone, marker):
    assert find_sensitive(raw), "the raw sample must be detected, or the case proves nothing"
    out = redact(raw)
    for fragment in gone:
        assert fragment not in out
    assert marker in out
    assert find_sensitive(out) == []
    assert redact(out) == out


def test_redact_keeps_exception_summary_lines_but_not_frames():
    out = redact(JAVA_TRACE)
    assert "PgTimeoutException: PG read timed out" in out
    assert "Caused by: java.net.SocketTimeoutException: Read timed out" in out
    assert out.count(STACK) == 2  # adjacent frames collapse into one marker


def test_redact_obj_recurses_and_masks_sensitive_keys_whole():
    raw = {
        "email": "yejun.cho@example.com",
        "phone": "whatever format",
        "client_ip": "211.36.140.22",
        "nested": [{"authorization": "opaque"}, "call 010-1234-5678", ("a@b.co",)],
        "amount": 129000,
        "retry": True,
        "empty_password": {"password": ""},
    }
    out = redact_obj(raw)
    assert out == {
        "email": EMAIL,
        "phone": PHONE,
        "client_ip": IP_ADDRESS,
        "nested": [{"authorization": TOKEN}, f"call {PHONE}", [EMAIL]],
        "amount": 129000,
        "retry": True,
        "empty_password": {"password": ""},
    }
    assert raw["email"] == "yejun.cho@example.com"  # input untouched


def test_redact_handles_empty_and_none_like_values():
    assert redact("") == ""
    assert find_sensitive("") == []
    assert redact_obj(None) is None


def test_find_sensitive_is_empty_for_every_fixture_message_after_redaction():
    import json

    from django.conf import settings

    rows = json.loads((settings.FIXTURES_DIR / "service_events.json").read_text(encoding="utf-8"))["events"]
    raw_hits = set()
    for row in rows:
        raw_hits.update(find_sensitive(row["message"]))
        assert find_sensitive(redact(row["message"])) == [], row["event_key"]
        assert find_sensitive(json.dumps(redact_obj(row["attributes"]), ensure_ascii=False)) == [], row["event_key"]
    # The fixture must actually exercise the families the diagnosis has to hide.
    assert {"stack_trace", "internal_url", "bearer_token", "card_number", "phone", "email", "secret_param"} <= raw_hits


@pytest.mark.parametrize(
    "phone, shown",
    [
        ("010-6645-1005", "010-●●●●-1005"),
        ("01066451005", "010-●●●●-1005"),
        ("02-123-4567", "02-●●●-4567"),
        ("전화 없음", "[전화번호]"),
        ("", "-"),
        (None, "-"),
    ],
)
def test_mask_phone_hides_the_middle_digits(phone, shown):
    assert mask_phone(phone) == shown


@pytest.mark.parametrize(
    "email, shown",
    [
        ("doyoon.jung@example.com", "do●●●@example.com"),
        ("a@b.kr", "a●●●@b.kr"),
        ("not-an-email", "[이메일]"),
        ("", "-"),
    ],
)
def test_mask_email_keeps_two_letters_and_the_domain(email, shown):
    assert mask_email(email) == shown
