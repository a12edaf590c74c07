"""Words for people: audit payloads, codes and amounts as an operator reads them (Korean labels, 원, 예/아니오).
Pure functions over plain values; each admin passes the labels of its own codes. `payload_line` is the one way
an audit row's change is written for people (the ticket, order and draft histories all use it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from common.actors import Person
from common.numbering import format_number

# The payload keys the desk's services write into audit rows (common.audit), in words.
PAYLOAD_KEY_LABELS = {
    "message_id": "메시지 번호",
    "order_id": "주문번호",
    "ticket_id": "티켓",
    "close": "종료 처리",
    "reason": "사유",
    "source": "접수 경로",
    "category": "분류",
    "status": "상태",
    "author_type": "작성자",
    "applied": "적용 방식",
    "edit_ratio": "편집 비율",
    "tags": "태그",
    "holds": "보류 사유",
    "claims": "근거 없는 금전 문장",
    "retry_failed": "실패 단계만 다시",
    "subject": "제목",
    "reference": "처리번호",
    "option_id": "옵션",
    "quantity": "수량",
    "amount": "금액",
    "external_ref": "쇼핑몰 처리번호",
    "message": "메시지",
    "note": "메모",
    "priority": "우선순위",
    "rule": "근거",
    "assignee": "담당자",
    "by_assignee": "담당자가 답변",
    "days": "고객 응답 없이 지난 일수",
    "score": "고객 평가 점수",
    "low": "낮은 평가(2점 이하)",
    "attempt": "실행 회차",
    "errors": "단계별 오류",
    "version": "쇼핑몰 버전",
}
# Values that read the same wherever they appear.
SHARED_VALUE_LABELS = {
    "author_type": {"CUSTOMER": "고객", "OPERATOR": "상담원", "SYSTEM": "시스템", "AGENT": "에이전트"},
    "reason": {
        "own_reply": "상담원이 직접 답변",
        "newer_input": "고객이 새 메시지를 보냄",
        "newer_draft": "더 새 초안이 생김",
    },
}
YES_NO = {True: "예", False: "아니오"}


def person_name(user: Person) -> str:
    """How the desk names a colleague: the Korean order (family name first, no space: 김상담), else the login."""
    last, first = getattr(user, "last_name", "") or "", getattr(user, "first_name", "") or ""
    return f"{last}{first}".strip() or user.get_username()


def won(amount: object) -> str:
    """38000 → '38,000원' (None/'' → '-')."""
    if amount in (None, ""):
        return "-"
    value = Decimal(str(amount))
    return f"{value:,.0f}원" if value == value.to_integral_value() else f"{value:,}원"


def value_words(value: object, labels: Mapping[str, str] | None = None) -> str:
    labels = labels or {}
    if isinstance(value, bool):
        return YES_NO[value]
    if isinstance(value, list | tuple):
        return ", ".join(value_words(v, labels) for v in value) or "없음"
    if isinstance(value, str):
        return labels.get(value, value)
    if value is None:
        return "-"
    return str(value)


def payload_words(
    payload: Mapping[str, object], *, status_labels: Mapping[str, str], values: Mapping[str, Mapping[str, str]] = {}
) -> list[tuple[str, str]]:
    """An audit payload as (label, words) pairs: `before`/`after` become one '접수 → 답변완료' pair; empty
    values are left out; a key the tables do not know is labelled '기타' (its name is not shown)."""
    rest = dict(payload)
    pairs: list[tuple[str, str]] = []
    if "before" in rest or "after" in rest:
        before, after = rest.pop("before", None), rest.pop("after", None)
        if isinstance(before, list) or isinstance(after, list):
            pairs.append(
                ("변경", f"{value_words(before) if before else '없음'} → {value_words(after) if after else '없음'}")
            )
        else:
            pairs.append(
                (
                    "변경",
                    f"{value_words(before, status_labels) if before else '-'} → {value_words(after, status_labels)}",
                )
            )
    for key, value in rest.items():
        if value in (None, "", [], {}):
            continue
        labels = {**SHARED_VALUE_LABELS.get(key, {}), **values.get(key, {})}
        if key == "edit_ratio" and isinstance(value, int | float):
            words = f"{value:.0%}"
        elif key == "amount":
            words = won(value)
        elif key == "ticket_id" and isinstance(value, int):
            words = format_number("T", value)
        elif isinstance(value, Mapping):
            words = _mapping_words(value, labels)
        else:
            words = value_words(value, labels)
        pairs.append((PAYLOAD_KEY_LABELS.get(key, "기타"), words))
    return pairs


def _mapping_words(value: Mapping[str, object], labels: Mapping[str, str]) -> str:
    """A nested change ({"before", "after"}) as 'A → B'; {"changed": true} (text not kept) as '변경됨'; other
    objects as 'name (value)' pairs, the names by `labels` ({"qa": "Timeout"} → 'QA (Timeout)')."""
    if "before" in value or "after" in value:
        return f"{value_words(value.get('before'), labels)} → {value_words(value.get('after'), labels)}"
    if value.get("changed") is True:
        return "변경됨"
    return ", ".join(f"{labels.get(str(k), '기타')} ({value_words(v)})" for k, v in value.items())


def payload_line(
    payload: Mapping[str, object], *, status_labels: Mapping[str, str], values: Mapping[str, Mapping[str, str]] = {}
) -> str:
    """payload_words as one line: '접수 → 답변완료 · 메시지 번호 7 · 종료 처리 아니오'."""
    return " · ".join(
        words if label == "변경" else f"{label} {words}"
        for label, words in payload_words(payload, status_labels=status_labels, values=values)
    )


def labelled(code: str, label: str) -> SafeString:
    """The label as visible text, the raw code only in `title` (whoever reads logs or code can hover for it)."""
    if not code:
        return mark_safe("-")
    return format_html('<span title="{}">{}</span>', code, label)


def code_html(code: str, labels: Mapping[str, str], fallback: str = "기타") -> SafeString:
    """`labelled` with the label from `labels`, or `fallback` for a code the table does not know."""
    return labelled(code, labels.get(code, fallback))


_FIELDS_STYLE = "display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0"


def fields_html(rows: Iterable[tuple[object, object]]) -> SafeString:
    """(name, value) pairs as a two-column definition list: how a JSON object reads for people ('-' if none)."""
    items = format_html_join("", "<dt>{}</dt><dd style='margin:0'>{}</dd>", rows)
    return format_html('<dl class="cs-fields" style="{}">{}</dl>', _FIELDS_STYLE, items) if items else mark_safe("-")
