"""The label tables cover what the shop sends, and unknown codes never show as visible text. No DB."""

from __future__ import annotations

import json
import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings

from diagnostics.labels import (
    ATTRIBUTE_LABELS,
    ATTRIBUTE_VALUE_LABELS,
    ERROR_CODE_LABELS,
    EVENT_NAME_LABELS,
    SPAN_LABELS,
    UNKNOWN_ENDPOINT,
    UNKNOWN_SERVICE,
    attribute_value,
    attributes_html,
    code_html,
    event_name_html,
    event_name_label,
    local_time,
    text_humanize,
)
from diagnostics.schemas import VERDICT_LABELS

HANGUL = re.compile(r"[가-힣]")


def _events() -> list[dict]:
    with (settings.FIXTURES_DIR / "service_events.json").open(encoding="utf-8") as fh:
        return json.load(fh)["events"]


def _visible(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_every_usage_event_name_in_the_fixture_has_a_korean_label():
    names = {e["name"] for e in _events() if e["kind"] == "USAGE_EVENT"}
    assert names and names <= set(EVENT_NAME_LABELS), names - set(EVENT_NAME_LABELS)


def test_every_error_code_in_the_fixture_has_a_korean_label():
    codes = {e["error_code"] for e in _events() if e["error_code"]}
    assert codes and codes <= set(ERROR_CODE_LABELS), codes - set(ERROR_CODE_LABELS)


def test_every_span_and_attribute_key_in_the_fixture_has_a_korean_label():
    spans = {e["span_name"] for e in _events() if e["span_name"]}
    keys = {k for e in _events() for k in e["attributes"]}
    assert spans <= set(SPAN_LABELS), spans - set(SPAN_LABELS)
    assert keys <= set(ATTRIBUTE_LABELS), keys - set(ATTRIBUTE_LABELS)


def test_every_code_like_attribute_value_in_the_fixture_has_a_korean_label():
    code = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,}|[a-z]+")
    values = {
        v for e in _events() for k, v in e["attributes"].items() if isinstance(v, str) and k not in ("os", "email")
    }
    codes = {v for v in values if code.fullmatch(v)}
    assert codes <= set(ATTRIBUTE_VALUE_LABELS), codes - set(ATTRIBUTE_VALUE_LABELS)


@pytest.mark.parametrize("table", [EVENT_NAME_LABELS, ERROR_CODE_LABELS, SPAN_LABELS, ATTRIBUTE_LABELS, VERDICT_LABELS])
def test_every_label_is_korean(table):
    assert all(HANGUL.search(label) for label in table.values())


def test_an_unknown_event_reads_as_a_korean_fallback_with_the_code_only_in_the_title():
    html = event_name_html(kind="USAGE_EVENT", name="wishlist_add")
    assert _visible(html) == "기타 이벤트"
    assert 'title="wishlist_add"' in html


def test_every_endpoint_and_service_in_the_fixture_has_a_korean_label():
    for event in _events():
        if event["kind"] in ("REQUEST_LOG", "TRACE"):
            label = event_name_label(kind=event["kind"], name=event["name"])
            assert label not in (UNKNOWN_ENDPOINT, UNKNOWN_SERVICE), event["name"]


@pytest.mark.parametrize(
    ("path", "label"),
    [
        ("/api/payments", "결제 요청"),
        ("/api/orders/HR20260724005/tracking", "배송 조회 HR20260724005"),
        ("/api/orders/", "주문 목록 조회"),
        ("/api/coupons", "기타 요청"),
    ],
)
def test_endpoints_read_as_what_was_asked_with_the_path_in_the_title(path, label):
    html = event_name_html(kind="REQUEST_LOG", name=path)
    assert _visible(html) == label and f'title="{path}"' in html


def test_an_unknown_error_code_reads_as_a_korean_fallback():
    assert _visible(code_html("PG_DECLINED", ERROR_CODE_LABELS, "기타 오류")) == "기타 오류"


@pytest.mark.parametrize(
    ("key", "value", "shown"),
    [
        ("amount", 129000, "129,000원"),
        ("wait_ms", 4000, "4,000ms"),
        ("retryable", True, "예"),
        ("locked", False, "아니오"),
        ("parent_span_id", None, "-"),
        ("screen", "my_orders", "주문 내역 화면"),
        ("entry", "some_new_screen", "기타 값"),
        ("pg", "KCP", "KCP"),
        ("tab", "전체", "전체"),
    ],
)
def test_attribute_values_read_as_people_write_them(key, value, shown):
    assert _visible(str(attribute_value(key, value))) == shown


def test_attributes_are_a_definition_list_never_a_json_object():
    html = attributes_html({"screen": "my_orders", "visible_items": 0, "new_key": "x"})
    assert html.startswith('<dl class="cs-fields"')
    assert _visible(html) == "화면주문 내역 화면표시된 항목 수0기타 속성x"
    assert "{" not in html


def test_free_text_times_become_local_korean_and_codes_become_labels():
    html = text_humanize("2026-07-26T04:58:43.000+00:00 /api/payments 502 PG_TIMEOUT <b>")
    assert _visible(html) == "2026년 7월 26일 13:58:43 /api/payments 502 PG사 응답 시간 초과 &lt;b&gt;"
    assert 'title="PG_TIMEOUT"' in html


def test_policy_notes_name_verdicts_by_their_labels():
    html = text_humanize("요청 로그 없이 이용 이벤트만 있어 PARTIAL_EVIDENCE로 제한")
    assert _visible(html) == "요청 로그 없이 이용 이벤트만 있어 부분 근거로 제한"


def test_local_time_is_seoul():
    assert local_time(datetime(2026, 7, 26, 4, 58, 43, tzinfo=ZoneInfo("UTC"))) == "2026년 7월 26일 13:58:43"
