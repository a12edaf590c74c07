"""The draft golden set (evals/drafts/*.json): run each inquiry through the real draft pipeline and score
the draft against the expected route, key points tied to document passages, must-not-say patterns,
citations, hard blockers and (error inquiries) the diagnosis verdict. The metric functions are pure."""

from __future__ import annotations

import fnmatch
import json
import re
from datetime import datetime
from pathlib import Path

from django.db import transaction
from django.test.utils import override_settings
from pydantic import BaseModel, ConfigDict, Field

from diagnostics.schemas import VERDICTS
from drafts.models import Draft
from drafts.pipeline import draft_generate
from orders.models import Customer
from tickets.models import Ticket, TicketMessage
from tickets.services import ticket_create

CASES_DIR = Path(__file__).resolve().parent / "drafts"
ROUTES = ("draft", "ask", "escalate")
CONFIDENCE_PARTS = ("groundedness", "completeness", "safety", "uncertainty_handling")
# The draft asks the customer for something it needs (the route "ask").
ASKS = re.compile(r"알려\s*주(세요|시겠|시면)|보내\s*주세요|말씀해\s*주세요|확인\s*부탁|\?\s*$", re.M)
CODE_TOKEN = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]{3,}\b|\bc\d{3}-\d{8}-\d{4}\b")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class KeyPoint(_Strict):
    doc_id: str
    passage: str  # an exact fragment of the document: the source of this key point
    any_of: list[str]  # words a correct draft contains (one is enough)


class ExpectedBlocker(_Strict):
    contains: str  # a substring of the blocker the pipeline must record...
    when: str  # ...whenever the draft's answer matches this regex (blocker recall counts only those drafts)


class DraftExpected(_Strict):
    route: str = "draft"
    key_points: list[KeyPoint] = Field(default_factory=list)
    required_citations: list[str] = Field(default_factory=list)
    allowed_citations: list[str] = Field(default_factory=list)
    must_not_say: list[str] = Field(default_factory=list)
    hard_blockers: list[ExpectedBlocker] = Field(default_factory=list)
    diagnosis_verdict: str | None = None


class DraftCase(_Strict):
    id: str
    customer_id: str
    category: str
    subject: str
    body: str
    at: str | None = None  # the inquiry's time (error inquiries must fall in their events' window)
    expected: DraftExpected
    source: dict | None = None  # where an exported case came from (export_eval_cases); never scored


def draft_case_list(selector: str | None = None, *, directory: Path = CASES_DIR) -> list[DraftCase]:
    cases = [DraftCase.model_validate_json(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))]
    if not selector:
        return cases
    parts = [p.strip() for p in selector.split(",") if p.strip()]
    return [c for c in cases if any(fnmatch.fnmatch(c.id, p) for p in parts)]


# --- pure scoring ----------------------------------------------------------------------------------
def draft_route(answer: str, hard_blockers: list[str]) -> str:
    """What the draft does, read from its output: blocked → escalate; asks the customer → ask; else draft."""
    if hard_blockers:
        return "escalate"
    if ASKS.search(answer):
        return "ask"
    return "draft"


def diagnosis_leaks(answer: str, diagnosis: dict) -> list[str]:
    """Operator-only diagnosis content found in the customer draft: verdict codes, error codes, event ids,
    and any sentence of the diagnosis copied verbatim."""
    found = [v for v in VERDICTS if v in answer]
    if diagnosis:
        text = json.dumps(diagnosis, ensure_ascii=False)
        found += [tok for tok in set(CODE_TOKEN.findall(text)) if tok in answer and tok not in found]
        sentences = [diagnosis.get("interpretation") or "", *(diagnosis.get("checks") or [])]
        found += [s for s in sentences if isinstance(s, str) and len(s) >= 20 and s in answer]
    return found


def draft_case_score(
    case: DraftCase, *, answer: str, citations: list[str], hard_blockers: list[str], diagnosis: dict
) -> dict:
    exp = case.expected
    cited = set(citations)
    acceptable = set(exp.required_citations) | set(exp.allowed_citations)
    hits = [any(w in answer for w in k.any_of) for k in exp.key_points]
    verdict = (diagnosis or {}).get("verdict")
    due = [b for b in exp.hard_blockers if re.search(b.when, answer)]
    return {
        "id": case.id,
        "route_expected": exp.route,
        "route": draft_route(answer, hard_blockers),
        "cited": sorted(cited),
        "cited_ok": len(cited & acceptable),
        "required": len(exp.required_citations),
        "required_found": len(cited & set(exp.required_citations)),
        "key_points": len(hits),
        "key_points_found": sum(hits),
        "key_points_missing": [k.passage for k, hit in zip(exp.key_points, hits, strict=True) if not hit],
        "must_not_violations": [p for p in exp.must_not_say if re.search(p, answer)],
        "blockers_expected": len(due),
        "blockers_found": sum(any(b.contains in h for h in hard_blockers) for b in due),
        "verdict_expected": exp.diagnosis_verdict,
        "verdict": verdict,
        "diagnosis_leaks": diagnosis_leaks(answer, diagnosis or {}),
        "answer": answer,
        "hard_blockers": hard_blockers,
    }


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def auroc(scores: list[float], labels: list[bool]) -> float | None:
    """Probability that a random positive scores above a random negative (ties count half); None when a
    class is empty."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return round(wins / (len(pos) * len(neg)), 4)


def confidence_auroc(decisions: list[tuple[dict, bool]]) -> dict[str, float | None]:
    """decisions: (confidence JSON of a decided draft, applied unchanged?). AUROC per confidence part."""
    out = {}
    for part in CONFIDENCE_PARTS:
        rows = [(c[part]["score"], y) for c, y in decisions if isinstance(c.get(part), dict) and "score" in c[part]]
        out[part] = auroc([s for s, _ in rows], [y for _, y in rows]) if rows else None
    return out


def drafts_report_build(scores: list[dict], *, meta: dict, decisions_auroc: dict, decisions: int) -> dict:
    verdict_rows = [s for s in scores if s["verdict_expected"]]
    return {
        "meta": meta,
        "cases": len(scores),
        "route_accuracy": _ratio(sum(s["route"] == s["route_expected"] for s in scores), len(scores)),
        "citation_precision": _ratio(sum(s["cited_ok"] for s in scores), sum(len(s["cited"]) for s in scores)),
        "citation_recall": _ratio(sum(s["required_found"] for s in scores), sum(s["required"] for s in scores)),
        "key_point_recall": _ratio(sum(s["key_points_found"] for s in scores), sum(s["key_points"] for s in scores)),
        "must_not_violations": sum(len(s["must_not_violations"]) for s in scores),
        "blocker_recall": _ratio(sum(s["blockers_found"] for s in scores), sum(s["blockers_expected"] for s in scores)),
        "verdict_accuracy": _ratio(sum(s["verdict"] == s["verdict_expected"] for s in verdict_rows), len(verdict_rows)),
        "diagnosis_leaks": sum(len(s["diagnosis_leaks"]) for s in scores),
        "decisions": decisions,
        "confidence_auroc": decisions_auroc,
        "case_results": scores,
    }


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _ratings_line(ratings: dict | None) -> str:
    if not ratings or not ratings.get("ratings"):
        return "아직 없음"
    sep = ", ".join(f"{k}: {_fmt(v)}" for k, v in ratings["confidence_auroc_up_vs_down"].items())
    return f"👍 {ratings['up']} / 👎 {ratings['down']} · 신뢰도 항목별 AUROC(👍 vs 👎) {sep}"


def drafts_report_markdown(r: dict) -> str:
    auroc_line = ", ".join(f"{k}: {_fmt(v)}" for k, v in r["confidence_auroc"].items())
    lines = [
        "# 답변 초안 평가 보고서",
        "",
        f"- 모델: `{r['meta'].get('model')}` · 사례 {r['cases']}개",
        "",
        "| 지표 | 값 |",
        "|---|---|",
        f"| 경로 정확도 (draft/ask/escalate) | {_fmt(r['route_accuracy'])} |",
        f"| 출처 정밀도 | {_fmt(r['citation_precision'])} |",
        f"| 출처 재현율 | {_fmt(r['citation_recall'])} |",
        f"| 핵심 내용 재현율 | {_fmt(r['key_point_recall'])} |",
        f"| 금지 표현 위반 (0이어야 함) | {r['must_not_violations']} |",
        f"| 차단 사유 재현율 | {_fmt(r['blocker_recall'])} |",
        f"| 진단 판정 정확도 | {_fmt(r['verdict_accuracy'])} |",
        f"| 진단 내용의 고객 초안 유출 (0이어야 함) | {r['diagnosis_leaks']} |",
        f"| 신뢰도 항목별 AUROC (그대로 적용 vs 나머지, 실제 결정 {r['decisions']}건) | {auroc_line} |",
        f"| 상담원 평가 (👍/👎) | {_ratings_line(r.get('operator_ratings'))} |",
        "",
        "## 사례별",
        "",
        "| 사례 | 경로(기대/실제) | 핵심 | 출처 | 진단(기대/실제) | 문제 |",
        "|---|---|---|---|---|---|",
    ]
    for s in r["case_results"]:
        problems = "; ".join(s["must_not_violations"] + [f"유출:{x}" for x in s["diagnosis_leaks"]])
        verdicts = f"{s['verdict_expected'] or '-'}/{s['verdict'] or '-'}"
        lines.append(
            f"| {s['id']} | {s['route_expected']}/{s['route']} | {s['key_points_found']}/{s['key_points']} | "
            f"{','.join(s['cited']) or '-'} | {verdicts} | {problems} |"
        )
    return "\n".join(lines) + "\n"


# --- running (database) -----------------------------------------------------------------------------
def draft_case_run(case: DraftCase) -> dict:
    """Open the inquiry as a ticket, run the pipeline on it in this process, score the draft, then delete the
    ticket (and its draft) so the next case's context does not see it."""
    customer = Customer.objects.select_related("user").get(pk=case.customer_id)
    with override_settings(CS_AI_DRAFTS_ENABLED=False), transaction.atomic():
        ticket = ticket_create(
            customer=customer,
            category=case.category,
            subject=case.subject,
            body=case.body,
            source=Ticket.Source.API,
            author=customer.user,
        )
    message = TicketMessage.objects.filter(ticket=ticket).order_by("id").first()
    if case.at:
        at = datetime.fromisoformat(case.at)
        Ticket.objects.filter(pk=ticket.pk).update(created_at=at)
        TicketMessage.objects.filter(pk=message.pk).update(created_at=at)
    try:
        draft_generate(ticket_id=ticket.pk, message_id=message.pk)
        draft = Draft.objects.filter(ticket=ticket, source_message=message).first()
        if draft is None:
            answer, citations, blockers, diagnosis = "", [], [], {}
        else:
            # The confidence stage's blockers plus the money-claim guard's (drafts.guard), in words.
            claims = [
                f"{b.get('code')}: 승인되지 않은 환불을 약속함 — {b.get('sentence', '')}" for b in draft.claim_blockers
            ]
            answer, blockers, diagnosis = draft.answer, [*draft.hard_blockers, *claims], dict(draft.diagnosis or {})
            citations = [c.get("doc_id") for c in draft.citations if isinstance(c, dict)]
        return draft_case_score(case, answer=answer, citations=citations, hard_blockers=blockers, diagnosis=diagnosis)
    finally:
        ticket.delete()


def decided_drafts() -> list[tuple[dict, bool]]:
    """Real operator decisions: (confidence, applied unchanged?) for every applied or rejected draft."""
    rows = Draft.objects.filter(status__in=[Draft.Status.APPLIED, Draft.Status.REJECTED], confidence_state="DONE")
    return [
        (d.confidence or {}, d.status == Draft.Status.APPLIED and d.applied == Draft.Applied.UNCHANGED)
        for d in rows.only("confidence", "status", "applied")
    ]
