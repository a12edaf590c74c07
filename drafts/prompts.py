"""Pure text builders for the draft pipeline.

Everything a customer, an operator or the shop wrote goes in masked (`common.redaction`, the one policy; the
gateway masks again at the wire) and fenced (`llm.fence`): the conversation, the prefetched context (order,
product and option names, action summaries with reasons, notes and addresses, earlier ticket subjects), the
FAQ and documents, the draft under review and the diagnosis. JSON is masked value by value before encoding.
"""

from __future__ import annotations

import json

from common.redaction import redact, redact_obj
from diagnostics.prompts import diagnosis_system_prompt, diagnosis_user_prompt
from llm.disclosure import MASKED_TEXT, SentField, sent_fields
from llm.fence import CUSTOMER, DRAFT_TEXT, FENCE_RULE, KNOWLEDGE, OPERATOR, SHOP_DATA, fence
from tickets.services import HANDOFF_TRANSCRIPT_TITLE

DRAFT_SYSTEM = """당신은 쇼핑몰 상담원을 돕는 보조 AI입니다. 고객에게 보낼 답변 '초안'을 씁니다.
초안은 상담원이 검토한 뒤에만 발송됩니다. 당신은 아무것도 실행하지 않습니다.
- 고객 정보와 FAQ, 문서에 근거한 내용만 쓰고, 모르는 것은 확인 후 안내하겠다고 쓰세요.
- 환불·취소는 담당자 승인 후에만 처리됩니다. 승인되지 않은 환불을 약속하지 마세요.
- 오류의 원인을 확정하지 마세요(운영자 전용 진단이 따로 있습니다).
- 전화번호, 이메일, 카드번호 같은 개인정보를 답변에 쓰지 마세요.
- citations에는 아래 [문서]에 실제로 있는 doc_id와 chunk만 쓰세요.
- {fence_rule}""".replace("{fence_rule}", FENCE_RULE)

QA_SYSTEM = """당신은 상담 답변 초안을 검수하는 QA입니다. 초안을 검색된 문서와 대조해
사실과 다른 부분, 정책과 어긋난 약속, 빠진 안내를 고친 최종 답변(corrected_body)을 만드세요.
바꾼 점은 changes에 적고, 근거로 쓴 문서는 citations(doc_id, chunk)로 적으세요. 검색되지 않은 문서는 인용하지 마세요.
{fence_rule}""".replace("{fence_rule}", FENCE_RULE)

CONFIDENCE_SYSTEM = """당신은 답변 초안의 품질을 평가합니다. 다음 네 항목을 각각 0~1 점수와 이유로 평가하세요.
groundedness(근거), completeness(빠짐없음), safety(개인정보·위험한 조치 없음), uncertainty_handling(불확실할 때 한계를 밝힘).
hard_blockers에는 발송 전에 반드시 고쳐야 할 문제를 적으세요(예: 진단이 확정하지 못한 원인을 단정, 승인 전 환불 약속).
총점, 자동 발송 여부, 임계값은 출력하지 마세요.
{fence_rule}""".replace("{fence_rule}", FENCE_RULE)

TAGS_SYSTEM = """문의에 어울리는 태그를 추천하세요. 반드시 아래 [태그 목록]에 있는 것만 고르세요(최대 3개).
{fence_rule}""".replace("{fence_rule}", FENCE_RULE)


def _conversation_text(snapshot: list[dict]) -> str:
    lines = []
    for m in snapshot:
        if m["author_type"] == "CUSTOMER":
            lines.append("고객:\n" + fence(redact(m["body"]), label=CUSTOMER))
        elif m["author_type"] == "OPERATOR":
            lines.append("상담원:\n" + fence(redact(m["body"]), label=OPERATOR))
        elif m["author_type"] == "SYSTEM" and m["body"].startswith(HANDOFF_TRANSCRIPT_TITLE):
            # A chat handoff: the conversation with the AI agent before it, the context of the request.
            lines.append("상담원 연결 전 채팅 기록 (고객과 AI 상담원):\n" + fence(redact(m["body"]), label=CUSTOMER))
    return "\n".join(lines)


def _data(obj: object) -> str:
    """Shop data as masked JSON inside a fence."""
    return fence(json.dumps(redact_obj(obj), ensure_ascii=False, default=str), label=SHOP_DATA)


def _text(text: str) -> str:
    """A draft or answer under review: masked and fenced (it may quote what the customer wrote)."""
    return fence(redact(text), label=DRAFT_TEXT)


def _docs_text(hits: list) -> str:
    """`hits`: knowledge.retrieval.Hit objects, each labelled with the (doc_id, chunk) a citation must use."""
    docs = "\n\n".join(f"[doc_id={h.doc_id} chunk={h.chunk_index}] {h.title}\n{h.text}" for h in hits)
    return fence(redact(docs), label=KNOWLEDGE) if docs else "(없음)"


def _faq_text(faq: list[dict]) -> str:
    text = "\n".join(f"Q. {f['question']}\nA. {f['answer']}" for f in faq)
    return fence(redact(text), label=KNOWLEDGE) if text else "(없음)"


def draft_messages(*, snapshot: list[dict], context: dict, faq: list[dict], hits: list) -> list[dict]:
    user = (
        f"[대화]\n{_conversation_text(snapshot)}\n\n"
        f"[고객 정보(읽기 전용 선조회)]\n{_data(context)}\n\n"
        f"[FAQ]\n{_faq_text(faq)}\n\n"
        f"[문서]\n{_docs_text(hits)}"
    )
    return [{"role": "system", "content": DRAFT_SYSTEM}, {"role": "user", "content": user}]


def qa_messages(*, snapshot: list[dict], draft: str, hits: list) -> list[dict]:
    user = f"[대화]\n{_conversation_text(snapshot)}\n\n[초안]\n{_text(draft)}\n\n[문서]\n{_docs_text(hits)}"
    return [{"role": "system", "content": QA_SYSTEM}, {"role": "user", "content": user}]


def confidence_messages(*, snapshot: list[dict], answer: str, hits: list, diagnosis: dict | None) -> list[dict]:
    diag = _data(diagnosis) if diagnosis else "(오류 문의 아님)"
    user = (
        f"[대화]\n{_conversation_text(snapshot)}\n\n[답변]\n{_text(answer)}\n\n"
        f"[문서]\n{_docs_text(hits)}\n\n[진단]\n{diag}"
    )
    return [{"role": "system", "content": CONFIDENCE_SYSTEM}, {"role": "user", "content": user}]


def tags_messages(*, snapshot: list[dict], tag_names: list[str]) -> list[dict]:
    tags = fence(redact(", ".join(tag_names)), label=SHOP_DATA)
    user = f"[태그 목록]\n{tags}\n\n[대화]\n{_conversation_text(snapshot)}"
    return [{"role": "system", "content": TAGS_SYSTEM}, {"role": "user", "content": user}]


def diagnosis_messages(*, snapshot: list[dict], inquiry_at: object, context: dict) -> list[dict]:
    """The operator-only diagnosis: the diagnostics app's prompt over the customer's words and the service events
    around the inquiry (`diagnostics.selectors.DiagnosticContext.as_prompt_context`)."""
    inquiry = "\n".join(m["body"] for m in snapshot if m["author_type"] == "CUSTOMER")
    user = diagnosis_user_prompt(inquiry_text=inquiry, inquiry_at=inquiry_at, context=context)
    return [{"role": "system", "content": diagnosis_system_prompt()}, {"role": "user", "content": user}]


# --- what each pipeline stage sends (the disclosure, llm.disclosure; checked against captured requests) ------------
_CODE = "번호·코드·날짜·금액: 가림 대상 아님"
_CONVERSATION = (
    SentField(
        "customer_message",
        "문의 대화: 고객 메시지 (채팅에서 넘어온 문의는 그 채팅 기록 포함)",
    ),
    SentField("operator_message", "문의 대화: 상담원이 보낸 답변"),
)
_KNOWLEDGE = SentField("knowledge", "쇼핑몰 FAQ와 문서 (고객 정보 아님)")
_CONTEXT = (
    ("profile.customer_id", "고객 ID", _CODE),
    ("profile.name", "고객 이름", "가림 대상 아님 (이름은 그대로 전송)"),
    ("orders[].order_id", "주문번호", _CODE),
    ("orders[].product", "상품명", ""),
    ("orders[].option", "옵션", ""),
    ("orders[].quantity", "수량", _CODE),
    ("orders[].amount", "결제금액", _CODE),
    ("orders[].status", "주문 상태", _CODE),
    ("orders[].ordered_at", "주문일시", _CODE),
    ("orders[].delivered_at", "배송완료일시", _CODE),
    ("action_records[].action_id", "요청 처리번호", _CODE),
    ("action_records[].kind", "요청 종류", _CODE),
    ("action_records[].order_id", "요청의 주문번호", _CODE),
    ("action_records[].status", "요청 상태", _CODE),
    ("action_records[].detail", "요청 요약 (사유·메모)", MASKED_TEXT + "; 주소는 [주소]"),
    ("past_tickets[].ticket_id", "이전 문의 번호", _CODE),
    ("past_tickets[].category", "이전 문의 분류", _CODE),
    ("past_tickets[].subject", "이전 문의 제목", ""),
    ("past_tickets[].status", "이전 문의 상태", _CODE),
    ("payments[].order_id", "결제 주문번호", _CODE),
    ("payments[].paid", "결제금액", _CODE),
    ("payments[].paid_on", "결제일시", _CODE),
    ("payments[].refunded", "환불금액", _CODE),
    ("shipping_events[].order_id", "배송 이벤트 주문번호", _CODE),
    ("shipping_events[].event", "배송 이벤트 (출고·배송완료)", _CODE),
    ("shipping_events[].on", "배송 이벤트 일시", _CODE),
)
MODEL_FIELDS: dict[str, tuple[SentField, ...]] = {
    "draft": (
        *_CONVERSATION,
        *sent_fields("shop_data:", "고객 정보(선조회)", _CONTEXT),
        _KNOWLEDGE,
    ),
    "qa": (*_CONVERSATION, SentField("draft_text", "검토할 답변 초안"), _KNOWLEDGE),
    "confidence": (
        *_CONVERSATION,
        SentField("draft_text", "평가할 답변"),
        _KNOWLEDGE,
        SentField("shop_data:verdict", "오류 진단 · 판정", _CODE),
        SentField("shop_data:model_verdict", "오류 진단 · 모델의 판정", _CODE),
        SentField("shop_data:interpretation", "오류 진단 · 해석"),
        SentField("shop_data:observed_facts[].fact", "오류 진단 · 관측 사실"),
        SentField("shop_data:observed_facts[].event_ids[]", "오류 진단 · 관측 사실의 근거 이벤트 ID", _CODE),
        SentField("shop_data:checks[]", "오류 진단 · 확인할 항목"),
    ),
    "tags": (*_CONVERSATION, SentField("shop_data", "쇼핑몰 태그 목록 (고객 정보 아님)")),
}
