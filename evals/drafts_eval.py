"""The draft golden set (evals/drafts/*.json): run each inquiry through the real draft pipeline and score
the draft against the expected route, key points tied to document passages, must-not-say patterns,
citations, hard blockers and (error inquiries) the diagnosis verdict. The metric functions are pure."""

from __future__ import annotations

import difflib
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
from evals.report import duration_words, greyed, run_validity, validity_lines
from llm.models import LLMCall
from orders.models import Customer
from tickets.models import Ticket, TicketMessage
from tickets.services import ticket_create

CASES_DIR = Path(__file__).resolve().parent / "drafts"
ROUTES = ("draft", "ask", "escalate")
ROUTE_LABELS = {"draft": "바로 답변", "ask": "고객에게 되물음", "escalate": "사람에게 넘김", "failed": "초안 없음"}
# A new answer this close to one an operator rated 👎 reproduces it (difflib ratio on whitespace-free text).
REPRODUCES = 0.9
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
    # Answers operators rated 👎 (export_eval_cases): reproducing one is a must-not violation.
    must_not_reproduce: list[str] = Field(default_factory=list)
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
def reproduces(answer: str, flagged: str) -> bool:
    """Whether `answer` is (nearly) the flagged answer: the same words give or take spacing and a few
    characters, or the flagged text contained whole."""
    a, b = "".join(answer.split()), "".join(flagged.split())
    if not a or not b:
        return False
    return b in a or difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= REPRODUCES


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
    case: DraftCase,
    *,
    answer: str,
    citations: list[str],
    hard_blockers: list[str],
    diagnosis: dict,
    failure: str = "",
) -> dict:
    """`failure`: why there is no draft to score (the pipeline failed, or wrote nothing): the case then
    fails every measure instead of scoring an empty answer as a quiet "draft"."""
    exp = case.expected
    cited = set(citations)
    acceptable = set(exp.required_citations) | set(exp.allowed_citations)
    hits = [any(w in answer for w in k.any_of) for k in exp.key_points]
    verdict = (diagnosis or {}).get("verdict")
    due = [b for b in exp.hard_blockers if re.search(b.when, answer)]
    violations = [p for p in exp.must_not_say if re.search(p, answer)]
    violations += [
        f"👎 받은 답변을 되풀이: {flagged[:60]}" for flagged in exp.must_not_reproduce if reproduces(answer, flagged)
    ]
    return {
        "id": case.id,
        "failure": failure,
        "route_expected": exp.route,
        "route": "failed" if failure else draft_route(answer, hard_blockers),
        "cited": sorted(cited),
        "cited_ok": len(cited & acceptable),
        "required": len(exp.required_citations),
        "required_found": len(cited & set(exp.required_citations)),
        "key_points": len(hits),
        "key_points_found": sum(hits),
        "key_points_missing": [k.passage for k, hit in zip(exp.key_points, hits, strict=True) if not hit],
        "must_not_violations": violations,
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


def route_balanced_accuracy(scores: list[dict]) -> float | None:
    """The mean, over the routes the set expects, of the share of those cases routed right: a model that
    always drafts scores 1/3 whatever the mix."""
    recalls = []
    for route in ROUTES:
        rows = [s for s in scores if s["route_expected"] == route]
        if rows:
            recalls.append(sum(s["route"] == route for s in rows) / len(rows))
    return round(sum(recalls) / len(recalls), 4) if recalls else None


def drafts_report_build(
    scores: list[dict], *, meta: dict, decisions_auroc: dict, decisions: int, calls: tuple[int, int] = (0, 0)
) -> dict:
    """`calls`: (model calls, failed ones) the run made; more than 5% failed makes the run invalid."""
    verdict_rows = [s for s in scores if s["verdict_expected"]]
    failed = [s for s in scores if s.get("failure")]
    return {
        "meta": meta,
        "validity": run_validity(
            calls=calls[0], failed=calls[1], units=len(scores), failed_units=len(failed), unit_words="초안"
        ),
        "cases": len(scores),
        "failed_drafts": len(failed),
        "route_accuracy": _ratio(sum(s["route"] == s["route_expected"] for s in scores), len(scores)),
        "route_balanced_accuracy": route_balanced_accuracy(scores),
        "routes_expected": {r: sum(s["route_expected"] == r for s in scores) for r in ROUTES},
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
    validity = r.get("validity") or {"valid": True}
    ok = validity["valid"]
    meta = r["meta"]
    auroc_line = ", ".join(f"{k}: {_fmt(v)}" for k, v in r["confidence_auroc"].items())
    expected = r.get("routes_expected") or {}
    mix = ", ".join(f"{ROUTE_LABELS[k]} {v}" for k, v in expected.items() if v)
    lines = [
        "# 답변 초안 평가 보고서",
        "",
        f"- 모델: `{meta.get('model')}` · 사례 {r['cases']}개 ({mix}) · 시작 {meta.get('started_at', '')} · "
        f"걸린 시간 {duration_words(meta.get('duration_s'))}",
        "",
        *(validity_lines(validity) if "model_calls" in validity else []),
        f"- 초안을 만들지 못한 사례: {r.get('failed_drafts', 0)}",
        "",
        "| 지표 | 값 |",
        "|---|---|",
        f"| 경로 정확도 (바로 답변/되물음/넘김) | {greyed(_fmt(r['route_accuracy']), ok)} |",
        f"| 경로별 평균 정확도 (늘 답만 쓰면 0.333) | {greyed(_fmt(r.get('route_balanced_accuracy')), ok)} |",
        f"| 출처 정밀도 | {greyed(_fmt(r['citation_precision']), ok)} |",
        f"| 출처 재현율 | {greyed(_fmt(r['citation_recall']), ok)} |",
        f"| 핵심 내용 재현율 | {greyed(_fmt(r['key_point_recall']), ok)} |",
        f"| 금지 표현 위반 (0이어야 함) | {greyed(str(r['must_not_violations']), ok)} |",
        f"| 차단 사유 재현율 | {greyed(_fmt(r['blocker_recall']), ok)} |",
        f"| 진단 판정 정확도 | {greyed(_fmt(r['verdict_accuracy']), ok)} |",
        f"| 진단 내용의 고객 초안 유출 (0이어야 함) | {greyed(str(r['diagnosis_leaks']), ok)} |",
        f"| 신뢰도 항목별 AUROC (그대로 적용 vs 나머지, 실제 결정 {r['decisions']}건) | {auroc_line} |",
        f"| 상담원 평가 (👍/👎) | {_ratings_line(r.get('operator_ratings'))} |",
        "",
        "## 사례별",
        "",
        "| 사례 | 경로(기대/실제) | 핵심 | 출처 | 진단(기대/실제) | 문제 |",
        "|---|---|---|---|---|---|",
    ]
    for s in r["case_results"]:
        problems = "; ".join(
            ([s["failure"]] if s.get("failure") else [])
            + s["must_not_violations"]
            + [f"유출: {x}" for x in s["diagnosis_leaks"]]
        )
        verdicts = f"{s['verdict_expected'] or '-'}/{s['verdict'] or '-'}"
        route = (
            f"{ROUTE_LABELS.get(s['route_expected'], s['route_expected'])}/{ROUTE_LABELS.get(s['route'], s['route'])}"
        )
        lines.append(
            f"| {s['id']} | {route} | {s['key_points_found']}/{s['key_points']} | "
            f"{','.join(s['cited']) or '-'} | {verdicts} | {problems} |"
        )
    return "\n".join(lines) + "\n"


# --- running (database) -----------------------------------------------------------------------------
def draft_case_run(case: DraftCase) -> dict:
    """Open the inquiry as a ticket, run the pipeline on it in this process, score the draft, then delete the
    ticket (and its draft) so the next case's context does not see it. A case this shop's data cannot hold
    (its customer is missing) fails alone, with the reason."""
    customer = Customer.objects.select_related("user").filter(pk=case.customer_id).first()
    if customer is None or customer.user is None:
        return draft_case_score(
            case,
            answer="",
            citations=[],
            hard_blockers=[],
            diagnosis={},
            failure=f"준비 실패: 고객 {case.customer_id}(이)가 없거나 로그인 계정이 없습니다",
        )
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
        if draft is None or draft.status == Draft.Status.FAILED or not draft.answer.strip():
            failure = "초안이 없음" if draft is None else f"초안 {draft.get_status_display()}, 답변 없음"
            if draft is not None and draft.answer.strip():
                failure = f"초안 {draft.get_status_display()}"
            return draft_case_score(case, answer="", citations=[], hard_blockers=[], diagnosis={}, failure=failure)
        # The confidence stage's blockers plus the money-claim guard's (drafts.guard), in words.
        claims = [
            f"{b.get('code')}: 승인되지 않은 환불을 약속함 — {b.get('sentence', '')}" for b in draft.claim_blockers
        ]
        return draft_case_score(
            case,
            answer=draft.answer,
            citations=[c.get("doc_id") for c in draft.citations if isinstance(c, dict)],
            hard_blockers=[*draft.hard_blockers, *claims],
            diagnosis=dict(draft.diagnosis or {}),
        )
    finally:
        ticket.delete()


def model_calls_since(last_id: int) -> tuple[int, int]:
    """(model calls, failed ones) recorded after the LLMCall row `last_id`."""
    rows = LLMCall.objects.filter(id__gt=last_id)
    return rows.count(), rows.exclude(outcome=LLMCall.Outcome.OK).count()


def last_call_id() -> int:
    return LLMCall.objects.order_by("-id").values_list("id", flat=True).first() or 0


def decided_drafts() -> list[tuple[dict, bool]]:
    """Real operator decisions: (confidence, applied unchanged?) for every applied or rejected draft."""
    rows = Draft.objects.filter(status__in=[Draft.Status.APPLIED, Draft.Status.REJECTED], confidence_state="DONE")
    return [
        (d.confidence or {}, d.status == Draft.Status.APPLIED and d.applied == Draft.Applied.UNCHANGED)
        for d in rows.only("confidence", "status", "applied")
    ]
