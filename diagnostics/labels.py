"""What operators read for the codes a shop's observability stack sends: usage event names, error codes, span
names, attribute keys and the code-like attribute values (screens). Pure data and pure formatting, no ORM.

A real shop sends new names without asking: an unknown code reads as a Korean fallback ("기타 이벤트"), and the
raw code is kept only in the `title` attribute (hover), never as visible text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime

from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from common.display import YES_NO, code_html, fields_html, labelled
from common.redaction import redact
from diagnostics.schemas import VERDICT_LABELS

# Usage events the app sends (ServiceEvent.name of kind USAGE_EVENT).
EVENT_NAME_LABELS: dict[str, str] = {
    "app_open": "앱 실행",
    "login_submit": "로그인 시도",
    "product_view": "상품 조회",
    "checkout_click": "결제하기 누름",
    "payment_error_dialog_shown": "결제 오류 안내창 표시",
    "cs_inquiry_open": "고객센터 문의 열기",
    "order_history_view": "주문 내역 조회",
    "blank_screen": "빈 화면",
    "pull_to_refresh": "당겨서 새로고침",
    "profile_view": "내 정보 조회",
}
UNKNOWN_EVENT = "기타 이벤트"

# Error codes in request logs and traces (ServiceEvent.error_code).
ERROR_CODE_LABELS: dict[str, str] = {
    "AUTH_INVALID_CREDENTIALS": "로그인 정보 불일치",
    "PG_TIMEOUT": "PG사 응답 시간 초과",
    "UPSTREAM_READ_TIMEOUT": "외부 연동 응답 시간 초과",
}
UNKNOWN_ERROR = "기타 오류"

# Request logs' endpoints (ServiceEvent.name of kind REQUEST_LOG): a pattern, and the label with the path's
# own ids (an order number) kept, so "/api/orders/HR20260724005/tracking" reads "배송 조회 HR20260724005".
ENDPOINT_LABELS: tuple[tuple[str, str], ...] = (
    (r"/api/auth/login", "로그인 요청"),
    (r"/api/checkout", "주문서 생성 요청"),
    (r"/api/orders", "주문 목록 조회"),
    (r"/api/orders/(?P<id>[^/]+)", "주문 조회 {id}"),
    (r"/api/orders/(?P<id>[^/]+)/tracking", "배송 조회 {id}"),
    (r"/api/payments", "결제 요청"),
)
UNKNOWN_ENDPOINT = "기타 요청"
# Services that send traces (ServiceEvent.name of kind TRACE).
SERVICE_LABELS: dict[str, str] = {"payment-api": "결제 서버", "pg-gateway": "PG 연동 게이트웨이"}
UNKNOWN_SERVICE = "기타 서비스"

# Span names in traces (ServiceEvent.span_name).
SPAN_LABELS: dict[str, str] = {
    "PaymentService.authorize": "결제 승인 처리",
    "HTTP POST pg-gateway /v1/charge": "PG사 결제 요청",
    "db.insert payment_attempt": "결제 시도 기록 저장",
    "healthcheck": "상태 점검",
}
UNKNOWN_SPAN = "기타 처리 단계"

# Attribute keys (ServiceEvent.attributes).
ATTRIBUTE_LABELS: dict[str, str] = {
    "amount": "금액",
    "app_version": "앱 버전",
    "attempt": "시도 횟수",
    "client_ip": "접속 IP",
    "db": "데이터베이스",
    "device": "기기",
    "dialog_text": "안내창 문구",
    "email": "이메일",
    "entry": "진입 경로",
    "locked": "계정 잠김",
    "method": "방식",
    "option": "옵션",
    "order_draft": "주문서 번호",
    "os": "운영체제",
    "page": "페이지",
    "parent_span_id": "상위 스팬 ID",
    "pay_method": "결제 수단",
    "peer": "연결 대상",
    "pg": "PG사",
    "pool_active": "사용 중 연결 수",
    "pool_max": "최대 연결 수",
    "product_id": "상품 ID",
    "retry": "재시도",
    "retryable": "재시도 가능",
    "screen": "화면",
    "session": "세션",
    "span_id": "스팬 ID",
    "tab": "탭",
    "timeout_ms": "제한 시간",
    "upstream": "연동 대상",
    "visible_items": "표시된 항목 수",
    "wait_ms": "대기 시간",
}
UNKNOWN_ATTRIBUTE = "기타 속성"

# Code-like attribute values: screens and entry points, payment and login methods.
ATTRIBUTE_VALUE_LABELS: dict[str, str] = {
    "my_orders": "주문 내역 화면",
    "my_account": "내 정보 화면",
    "product_detail": "상품 상세 화면",
    "checkout": "결제 화면",
    "checkout_error_dialog": "결제 오류 안내창",
    "CARD": "카드",
    "email": "이메일",
}
UNKNOWN_VALUE = "기타 값"

AMOUNT_KEYS = frozenset({"amount"})
MILLISECOND_KEYS = frozenset({"timeout_ms", "wait_ms", "latency_ms", "elapsed_ms"})

# A word a program wrote for a program: lower_snake or UPPER_SNAKE.
_CODE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# ISO 8601 date-times as our own context and the models write them (2026-07-26T13:58:43.000+09:00).
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?")
EVENT_TIME_FORMAT = "Y년 n월 j일 H:i:s"


_ENDPOINTS = tuple((re.compile(pattern + r"/?"), label) for pattern, label in ENDPOINT_LABELS)


def endpoint_label(path: str) -> str:
    """The endpoint's label, ids from the path filled in; `UNKNOWN_ENDPOINT` for a path no pattern knows."""
    for pattern, label in _ENDPOINTS:
        match = pattern.fullmatch(path.split("?", 1)[0])
        if match:
            return label.format(**match.groupdict())
    return UNKNOWN_ENDPOINT


def event_name_label(*, kind: str, name: str) -> str:
    """What the event was, in Korean: the usage event, the endpoint called or the service that traced."""
    if kind == "USAGE_EVENT":
        return EVENT_NAME_LABELS.get(name, UNKNOWN_EVENT)
    if kind == "REQUEST_LOG":
        return endpoint_label(name)
    return SERVICE_LABELS.get(name, UNKNOWN_SERVICE)


def event_name_html(*, kind: str, name: str) -> SafeString:
    """`event_name_label`, the raw name or path in the hover title."""
    if not name:
        return mark_safe("-")
    return labelled(name, event_name_label(kind=kind, name=name))


def local_time(moment: datetime, fmt: str = EVENT_TIME_FORMAT) -> str:
    """Seoul time in Korean, seconds included (events a second apart tell different stories)."""
    return date_format(timezone.localtime(moment), fmt)


def iso_local(text: str) -> str:
    """An ISO timestamp as local Korean time; text that is not one comes back unchanged."""
    try:
        moment = datetime.fromisoformat(text.replace(" ", "T", 1))
    except ValueError:
        return text
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return local_time(moment)


def attribute_value(key: str, value: object) -> SafeString | str:
    """One attribute value for people: amounts in 원, durations in ms with separators, yes/no, labels."""
    if value is None or value == "":
        return "-"
    if isinstance(value, bool):
        return YES_NO[value]
    if isinstance(value, int | float):
        if key in AMOUNT_KEYS:
            return f"{value:,.0f}원"
        if key in MILLISECOND_KEYS:
            return f"{value:,}ms"
        return f"{value:,}" if isinstance(value, int) and abs(value) >= 10000 else str(value)
    if isinstance(value, list):
        return format_html_join(", ", "{}", ((attribute_value(key, item),) for item in value)) or "-"
    if isinstance(value, dict):
        return attributes_html(value)
    text = str(value)
    if text in ATTRIBUTE_VALUE_LABELS:
        return code_html(text, ATTRIBUTE_VALUE_LABELS, UNKNOWN_VALUE)
    if _CODE.fullmatch(text):
        return code_html(text, ATTRIBUTE_VALUE_LABELS, UNKNOWN_VALUE)
    if _ISO.fullmatch(text):
        return iso_local(text)
    return text


def attribute_rows(attributes: Mapping[str, object]) -> list[tuple[SafeString, SafeString | str]]:
    """(Korean key, formatted value) pairs, in the order the event recorded them."""
    return [
        (code_html(str(key), ATTRIBUTE_LABELS, UNKNOWN_ATTRIBUTE), attribute_value(str(key), value))
        for key, value in attributes.items()
    ]


def attributes_html(attributes: Mapping[str, object]) -> SafeString:
    """A definition list of the (already redacted) attributes; never a JSON object."""
    if not attributes:
        return mark_safe("-")
    return fields_html(attribute_rows(attributes))


# Codes a model or our own policy may write into free text (observed facts, notes), longest first so that
# PARTIAL_EVIDENCE is not read as part of something shorter.
_TEXT_CODES: dict[str, str] = {**EVENT_NAME_LABELS, **ERROR_CODE_LABELS, **VERDICT_LABELS}
_TEXT_CODE_ALTERNATIVES = "|".join(sorted(map(re.escape, _TEXT_CODES), key=len, reverse=True))
_TEXT_TOKEN = re.compile(f"({_ISO.pattern})|(?<![A-Za-z0-9_])({_TEXT_CODE_ALTERNATIVES})(?![A-Za-z0-9_])")


def text_humanize(text: str) -> SafeString:
    """Free text that may quote codes and ISO times (a diagnosis' observed facts, the policy's notes): times in
    local Korean format, known codes as their labels (the code in `title`). Everything else is escaped as is."""
    parts: list[str] = []
    last = 0
    for match in _TEXT_TOKEN.finditer(text):
        parts.append(format_html("{}", text[last : match.start()]))
        if match.group(1):
            parts.append(labelled(match.group(1), iso_local(match.group(1))))
        else:
            code = match.group(2)
            parts.append(labelled(code, _TEXT_CODES[code]))
        last = match.end()
    parts.append(format_html("{}", text[last:]))
    return mark_safe("".join(parts))


def event_summary_html(event) -> SafeString:
    """One line for a cited event: when (local), what kind, where, status and error — all in Korean."""
    parts: list[SafeString | str] = [local_time(event.occurred_at), event.get_kind_display()]
    parts.append(event_name_html(kind=event.kind, name=redact(event.name)))
    if event.status_code:
        parts.append(str(event.status_code))
    if event.error_code:
        parts.append(code_html(event.error_code, ERROR_CODE_LABELS, UNKNOWN_ERROR))
    return format_html_join(" · ", "{}", ((p,) for p in parts))


def diagnosis_display(
    diagnosis: Mapping[str, object],
    *,
    events: Mapping[str, object],
    event_url: Callable[[object], str] | None = None,
) -> dict:
    """A stored diagnosis (`policy.EnforcedDiagnosis.as_dict`) shaped for people: the verdict by its label, the
    model's own verdict when the code lowered it, every text with times and codes humanized, and each cited
    event resolved to a one-line summary (`events`: `selectors.service_events_by_event_id`)."""
    verdict = str(diagnosis.get("verdict") or "")
    model_verdict = str(diagnosis.get("model_verdict") or "")
    facts = []
    for fact in diagnosis.get("observed_facts") or []:
        cited = []
        for event_id in fact.get("event_ids") or []:
            event = events.get(event_id)
            cited.append(
                {
                    "id": event_id,
                    "summary": event_summary_html(event) if event is not None else "기록에 없는 이벤트",
                    "url": event_url(event) if event is not None and event_url else "",
                }
            )
        facts.append({"text": text_humanize(str(fact.get("fact", ""))), "events": cited})
    return {
        "verdict": verdict,
        "verdict_label": VERDICT_LABELS.get(verdict, "판정 없음" if not verdict else "기타 판정"),
        "model_verdict": model_verdict,
        "model_verdict_label": VERDICT_LABELS.get(model_verdict, "기타 판정")
        if model_verdict and model_verdict != verdict
        else "",
        "facts": facts,
        "interpretation": text_humanize(str(diagnosis.get("interpretation") or "")),
        "checks": [text_humanize(str(c)) for c in diagnosis.get("checks") or []],
        "notes": [text_humanize(str(n)) for n in diagnosis.get("notes") or []],
    }
