"""Structured replies of the built-in offline model for the draft pipeline: deterministic stand-ins
that read only the request they are given (like a model would), for demos and tests. Each is named by its
stage's declaration (`drafts.stages`), which registers it with the built-in model."""

from __future__ import annotations

import json
import re

from llm.fence import CUSTOMER, FENCE, fenced_bodies

_DOC = re.compile(r"\[doc_id=(?P<doc>[\w-]+) chunk=(?P<chunk>\d+)\] (?P<title>[^\n]+)")


def _user_text(body: dict) -> str:
    return "\n".join(m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user")


def _customer_texts(text: str) -> list[str]:
    return fenced_bodies(text, label=CUSTOMER)


def _section(text: str, name: str) -> str:
    """A `[name]` section's text, out of its fence if it has one. Headers inside a fence are data, not
    sections, so a customer cannot forge one."""
    fences = [m.span() for m in FENCE.finditer(text)]
    for header in re.finditer(rf"\[{re.escape(name)}\]\n", text):
        if any(start <= header.start() < end for start, end in fences):
            continue
        fenced = FENCE.match(text, header.end())
        if fenced:
            return fenced.group("body")
        plain = re.compile(r"(.*?)(?:\n\n\[|\Z)", re.S).match(text, header.end())
        return plain.group(1).strip() if plain else ""
    return ""


TOPICS = [
    (("환불", "반품"), "환불·반품은 담당자 확인과 승인 후 처리되며, 승인 결과를 다시 안내드리겠습니다."),
    (("교환",), "교환은 배송 완료 후 단순변심 7일, 상품하자·오배송 30일 안에 접수할 수 있습니다."),
    (("배송", "주소", "배송지"), "배송 상태를 확인해 안내드리겠습니다. 출고 전 주문은 배송지를 바꿀 수 있습니다."),
    (("결제",), "결제 내역을 확인해 보겠습니다. 중복 결제로 확인되면 승인 취소가 진행됩니다."),
    (("로그인", "계정", "비밀번호"), "계정 상태를 확인해 보겠습니다. 비밀번호 재설정도 함께 안내드립니다."),
    (("오류", "안 돼", "안돼", "안 보여"), "말씀하신 현상을 확인하고 있습니다. 확인되는 대로 다시 안내드리겠습니다."),
]


def draft(body: dict) -> dict:
    text = _user_text(body)
    said = " ".join(_customer_texts(text)[-1:])
    lines = ["안녕하세요, 고객님. 문의 주셔서 감사합니다."]
    lines += [answer for words, answer in TOPICS if any(w in said for w in words)][:2] or [
        "문의하신 내용을 확인한 뒤 안내드리겠습니다."
    ]
    # The best document retrieved for this conversation, as the model would cite what it was given.
    docs = [m.groupdict() for m in _DOC.finditer(_section(text, "문서"))][:1]
    return {"body": " ".join(lines), "citations": [{"doc_id": d["doc"], "chunk": int(d["chunk"])} for d in docs]}


def qa(body: dict) -> dict:
    text = _user_text(body)
    draft = _section(text, "초안") or "문의하신 내용을 확인한 뒤 안내드리겠습니다."
    docs = [m.groupdict() for m in _DOC.finditer(_section(text, "문서"))]
    if not docs:
        return {"corrected_body": draft, "changes": [], "citations": []}
    top = docs[0]
    return {
        "corrected_body": f"{draft} 자세한 기준은 '{top['title']}' 안내를 참고해 주세요.",
        "changes": [f"'{top['title']}' 근거 안내를 덧붙임"],
        "citations": [{"doc_id": top["doc"], "chunk": int(top["chunk"])}],
    }


def confidence(body: dict) -> dict:
    text = _user_text(body)
    answer = _section(text, "답변")
    cited = "참고해 주세요" in answer
    return {
        "groundedness": {"score": 0.8 if cited else 0.5, "reason": "문서 근거가 있음" if cited else "문서 근거가 약함"},
        "completeness": {"score": 0.7, "reason": "문의의 주요 질문에 답함"},
        "safety": {"score": 0.95, "reason": "개인정보나 위험한 조치가 없음"},
        "uncertainty_handling": {"score": 0.8, "reason": "확인이 필요한 부분을 확인 후 안내로 표현함"},
        "hard_blockers": [],
    }


def tags(body: dict) -> dict:
    text = _user_text(body)
    names = [n.strip() for n in _section(text, "태그 목록").split(",") if n.strip()]
    said = " ".join(_customer_texts(text))
    keywords = {
        "환불": ("환불", "반품"),
        "교환": ("교환",),
        "배송": ("배송", "주소"),
        "결제오류": ("결제",),
        "계정": ("로그인", "계정"),
        "앱오류": ("오류", "안 돼", "안 보여", "앱"),
    }
    picked = [n for n in names if any(w in said for w in keywords.get(n, (n,)))]
    return {"tags": picked[:3]}


def diagnosis(body: dict) -> dict:
    text = _user_text(body)
    match = re.search(r"<diagnostic_context>\n(.*?)\n</diagnostic_context>", text, flags=re.S)
    context = json.loads(match.group(1)) if match else {}
    events = [e for kind in ("request_logs", "traces", "usage_events") for e in context.get(kind, [])]
    errors = [e for e in events if e.get("is_error")]
    if errors:
        return {
            "verdict": "FAILURE_POINT_IDENTIFIED",
            "observed_facts": [
                {
                    "fact": f"{e['occurred_at']} {e.get('name')} {e.get('status_code') or ''} {e.get('error_code') or ''}".strip(),
                    "event_ids": [e["event_id"]],
                }
                for e in errors[:3]
            ],
            "interpretation": "문의 시각 직전 요청에서 오류 응답이 기록되었습니다.",
            "checks": ["같은 시각 다른 고객의 동일 오류 여부", "외부 연동사 장애 공지 확인"],
        }
    if events:
        return {
            "verdict": "FAILURE_POINT_IDENTIFIED",  # the code caps this when there is no request log
            "observed_facts": [
                {"fact": f"{e['occurred_at']} {e.get('name')}", "event_ids": [e["event_id"]]} for e in events[:3]
            ],
            "interpretation": "이용 이벤트상 화면이 비어 보였을 가능성이 있습니다.",
            "checks": ["해당 시각 서버 요청 로그 수집 여부", "앱 버전 확인"],
        }
    return {
        "verdict": "INSUFFICIENT",
        "observed_facts": [],
        "interpretation": "문의 시각 주변 기록이 없습니다.",
        "checks": ["고객에게 발생 시각과 화면 캡처 요청"],
    }
