"""Audit payloads and amounts in the words an operator reads (common.display)."""

from decimal import Decimal

from common.display import payload_line, payload_words, value_words, won

STATUS = {"OPEN": "접수", "ANSWERED": "답변완료"}


def test_amounts_read_in_won_with_thousands_separators():
    assert won(38000) == "38,000원"
    assert won(Decimal("89000.00")) == "89,000원"
    assert won("1234.5") == "1,234.5원"
    assert won(None) == "-"


def test_a_status_change_reads_as_labels():
    assert payload_line({"before": "OPEN", "after": "ANSWERED"}, status_labels=STATUS) == "접수 → 답변완료"


def test_codes_in_values_read_as_labels_and_keys_as_korean():
    line = payload_line(
        {"source": "API", "category": "ERROR", "status": "OPEN", "message_id": 7, "close": False, "order_id": None},
        status_labels=STATUS,
        values={"source": {"API": "고객 문의"}, "category": {"ERROR": "오류"}, "status": STATUS},
    )
    assert line == "접수 경로 고객 문의 · 분류 오류 · 상태 접수 · 메시지 번호 7 · 종료 처리 아니오"


def test_shared_values():
    # A draft's reason codes and edit ratio read in the drafts' own words (drafts/tests/test_labels.py).
    pairs = payload_words({"author_type": "CUSTOMER", "tags": []}, status_labels={})
    assert pairs == [("작성자", "고객")]


def test_an_unknown_key_is_labelled_without_showing_its_name():
    assert payload_words({"some_new_key": "x"}, status_labels={}) == [("기타", "x")]


def test_lists_and_booleans():
    assert value_words(["a", "b"], {"a": "가"}) == "가, b"
    assert value_words([]) == "없음"
    assert value_words(True) == "예"


def test_nested_changes_ticket_numbers_and_stage_errors_read_as_words():
    line = payload_line(
        {"ticket_id": 7, "category": {"before": "ERROR", "after": "OTHER"}, "subject": {"changed": True}},
        status_labels={},
        values={"category": {"ERROR": "오류", "OTHER": "기타 문의"}},
    )
    assert line == "티켓 T00007 · 분류 오류 → 기타 문의 · 제목 변경됨"
    errors = payload_line({"errors": {"qa": "APITimeoutError"}}, status_labels={}, values={"errors": {"qa": "QA"}})
    assert errors == "단계별 오류 QA (APITimeoutError)"
