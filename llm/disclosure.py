"""What leaves for the model (개인정보 보호법 제26조 위탁, 제28조의8 국외 이전): the disclosure the shop, as controller,
publishes and its 개인정보 보호책임자 reads.

Each caller declares the fields its prompts send (`SentField`) once, beside the builder that puts them in the
prompt (`chat/prompts.py`, `drafts/prompts.py`, `diagnostics/prompts.py`), and registers them at start-up
(`purpose_fields_register` in its AppConfig.ready()); `cs_project/tests/test_privacy_disclosure.py` compares the
declarations with the request bodies of a real session captured on the wire. The endpoints come from settings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings

from llm.labels import PURPOSE_LABELS, purpose_label

# The SDK's address when a key is set without a base URL.
SDK_DEFAULT_BASE_URL = "https://api.openai.com/v1"
UNKNOWN = "알 수 없음"


@dataclass(frozen=True)
class SentField:
    """One field a prompt sends. `key` is how it appears on the wire: a fence's label for fenced text
    (`customer_message`), label and JSON path for JSON inside a fence (`shop_data:orders[].product`; `[]` is every
    item of a list, a trailing `.*` any key below), `tool_call:<argument>` for the agent's own tool arguments sent
    back as history. `masked` says what masking leaves of it."""

    key: str
    label: str
    masked: str = ""

    def matches(self, wire_key: str) -> bool:
        if self.key.endswith(".*"):
            return wire_key.startswith(self.key[:-1])
        return wire_key == self.key


def sent_fields(key_prefix: str, heading: str, rows: Iterable[tuple[str, str, str]]) -> tuple[SentField, ...]:
    """A group of fields under one wire prefix (`tool_result:orders[].`) and one heading (`도구 결과 · 주문 목록`):
    `rows` are (key, label, masked) below them."""
    return tuple(SentField(f"{key_prefix}{key}", f"{heading} · {label}", masked) for key, label, masked in rows)


# Masking applied to every text field (common.redaction, again at the wire by llm.masking).
MASKED_TEXT = "공통 가림"
MASKED_TEXT_MEANS = (
    "공통 가림: 전화번호, 이메일, 카드번호(유효기간·CVC 포함), 계좌번호, 주민·외국인등록번호, 여권번호, 주소, "
    "비밀번호·인증번호·토큰, 내부 URL, IP, 스택트레이스를 [전화번호], [주소]처럼 바꿔서 보냅니다."
)
MASKED_ADDRESS = "주소 전체를 [주소]로 가림"
NOT_PERSONAL = "개인정보 아님"

_FIELDS: dict[str, tuple[SentField, ...]] = {}


def purpose_fields_register(purpose: str, fields: Iterable[SentField]) -> None:
    """Called once per purpose from the owning app's ready(); registering again replaces (reloads, tests)."""
    _FIELDS[purpose] = tuple(fields)


def purpose_fields() -> dict[str, tuple[SentField, ...]]:
    """Every registered purpose, in the order operators know them (llm.labels), unknown ones last."""
    order = list(PURPOSE_LABELS)
    return dict(sorted(_FIELDS.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order)))


def undeclared(purpose: str, wire_keys: Iterable[str]) -> set[str]:
    declared = _FIELDS.get(purpose, ())
    return {key for key in wire_keys if not any(f.matches(key) for f in declared)}


def unsent(purpose: str, wire_keys: Iterable[str]) -> set[str]:
    keys = set(wire_keys)
    return {f.key for f in _FIELDS.get(purpose, ()) if not any(f.matches(key) for key in keys)}


# --- the endpoints -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    fallback_model: str
    offline: bool
    country: str
    operator: str
    retention: str


def model_endpoint() -> Endpoint:
    """The one endpoint every purpose calls (CS_LLM_MODEL, then once CS_LLM_FALLBACK_MODEL on the same server)."""
    base_url = getattr(settings, "OPENAI_BASE_URL", None) or ""
    offline = not (getattr(settings, "OPENAI_API_KEY", None) or base_url)
    return Endpoint(
        base_url="" if offline else (base_url or SDK_DEFAULT_BASE_URL),
        model=str(getattr(settings, "CS_LLM_MODEL", "") or ""),
        fallback_model=str(getattr(settings, "CS_LLM_FALLBACK_MODEL", "") or ""),
        offline=offline,
        country=str(getattr(settings, "CS_LLM_ENDPOINT_COUNTRY", "") or ""),
        operator=str(getattr(settings, "CS_LLM_ENDPOINT_OPERATOR", "") or ""),
        retention=str(getattr(settings, "CS_LLM_ENDPOINT_RETENTION", "") or ""),
    )


def disclosure_page(*, generated_on: str) -> dict:
    """The same disclosure for the admin page: Korean words on screen, the wire keys and setting names on hover."""
    endpoint = model_endpoint()
    llm_days = getattr(settings, "CS_LLM_CALL_RETENTION_DAYS", None)
    return {
        "generated_on": generated_on,
        "offline": endpoint.offline,
        "endpoint": endpoint,
        "country": endpoint.country,
        "operator": endpoint.operator,
        "retention": endpoint.retention,
        "purposes": [
            {"code": purpose, "label": purpose_label(purpose), "fields": fields}
            for purpose, fields in purpose_fields().items()
        ],
        "masked_text_means": MASKED_TEXT_MEANS,
        "llm_retention": f"{int(llm_days)}일" if llm_days else "보존 정책에 따름",
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def disclosure_markdown(*, generated_on: str) -> str:
    """The disclosure in Korean Markdown, from the declarations and the current settings."""
    endpoint = model_endpoint()
    fields = purpose_fields()
    lines = [
        "# 개인정보 처리 위탁 및 국외 이전 고지 — AI 모델로 보내는 정보",
        "",
        f"생성일: {generated_on}. 이 문서는 설정과 코드에 선언된 항목으로 자동 생성됩니다 (`manage.py privacy_disclosure`).",
        "",
        "## 1. 모델 엔드포인트",
        "",
    ]
    if endpoint.offline:
        lines += [
            "현재 외부 모델이 설정되어 있지 않습니다 (`OPENAI_API_KEY`, `OPENAI_BASE_URL` 미설정). 모든 용도가 서버 안의 "
            "내장 모델로 처리되어 **외부로 전송되는 정보가 없습니다**. 외부 모델을 설정하면 아래 항목이 그 엔드포인트로 전송됩니다.",
            "",
        ]
    country = (
        endpoint.country
        or f"{UNKNOWN} (설정 `CS_LLM_ENDPOINT_COUNTRY`가 비어 있음: 국외 이전 여부를 확인해 적어 주세요)"
    )
    operator = endpoint.operator or f"{UNKNOWN} (설정 `CS_LLM_ENDPOINT_OPERATOR`)"
    retention = endpoint.retention or f"{UNKNOWN} (설정 `CS_LLM_ENDPOINT_RETENTION`: 모델 제공자의 보관 정책)"
    lines += [
        "| 용도 | 엔드포인트(base URL) | 모델 | 대체 모델(실패 시 1회) | 이전되는 국가 | 이전받는 자 | 제공자 측 보관 |",
        "|---|---|---|---|---|---|---|",
    ]
    base = "내장 모델 (전송 없음)" if endpoint.offline else endpoint.base_url
    for purpose in fields:
        lines.append(
            f"| {purpose_label(purpose)} (`{purpose}`) | {_cell(base)} | {_cell(endpoint.model)} | "
            f"{_cell(endpoint.fallback_model)} | {_cell(country)} | {_cell(operator)} | {_cell(retention)} |"
        )
    lines += [
        "",
        "전송 시점: 고객이 채팅 메시지를 보낼 때(채팅 상담), 문의·추가 문의가 접수될 때(답변 초안, 초안 QA, 신뢰도 평가, "
        "태그 추천; 오류 문의는 오류 진단도). 전송 방법: HTTPS API 호출.",
        "",
        "## 2. 용도별로 보내는 항목 (가림 처리 후)",
        "",
        "모든 텍스트는 전송 직전에 한 번 더 가림 처리됩니다 (`llm/masking.py`). 예외 하나: 고객이 **이번** 채팅 메시지에 "
        "쓴 주소는 배송지 변경에 쓰이도록 그대로 전송되며, 이전 메시지와 도구 결과에서는 가려집니다.",
        "",
        MASKED_TEXT_MEANS,
        "",
    ]
    for purpose, declared in fields.items():
        lines += [
            f"### {purpose_label(purpose)} (`{purpose}`)",
            "",
            "| 항목 | 전송 형태 | 가림 처리 |",
            "|---|---|---|",
        ]
        for f in declared:
            lines.append(f"| {_cell(f.label)} | `{_cell(f.key)}` | {_cell(f.masked or MASKED_TEXT)} |")
        lines.append("")
    llm_days = getattr(settings, "CS_LLM_CALL_RETENTION_DAYS", None)
    llm_retention = f"{int(llm_days)}일" if llm_days else "보존 정책에 따름 (README의 보존기간 표)"
    lines += [
        "## 3. 모델 호출 기록의 보관",
        "",
        "- 이 데스크는 모델에 보낸 요청·응답 본문을 저장하지 않습니다. 호출마다 용도, 모델, 결과, 지연시간, 토큰 수만 "
        f"`LLMCall`(관리자 화면 '모델 호출')에 남기며, 보존기간은 {llm_retention}입니다.",
        "- 로그에도 본문은 남지 않습니다 (`llm.call` 이벤트: 용도, 모델, 결과, 지연시간).",
        f"- 모델 제공자 쪽 보관: {retention}.",
        "",
    ]
    return "\n".join(lines)
