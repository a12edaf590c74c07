"""Operator ratings of drafts, and turning rated drafts and real chats into new eval cases (masked)."""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from datetime import date
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from actions.models import ActionRecord
from chat.models import ChatMessage, Conversation
from common.errors import DomainError, NotFound, PermissionDenied
from common.redaction import redact_personal
from drafts.models import Draft
from evals.drafts_eval import auroc
from evals.models import DraftRating, EvalRun
from evals.schema import REFUND_DONE_PATTERN

log = logging.getLogger(__name__)

RATE_PERMISSION = "evals.add_draftrating"


def draft_rating_create(
    *, draft_id: int, verdict: str, reason: str, note: str = "", actor: AbstractBaseUser
) -> DraftRating:
    """Rate a draft 👍/👎 with a reason; an operator's second rating of the same draft replaces the first.
    The rated text, the customer input and the models are frozen on the rating."""
    if actor is None or not actor.is_active or not actor.has_perm(RATE_PERMISSION):
        raise PermissionDenied("초안을 평가할 권한이 없습니다.")
    if verdict not in DraftRating.Verdict.values or reason not in DraftRating.Reason.values:
        raise DomainError("평가와 이유를 선택해 주세요.", code="invalid_rating")
    draft = Draft.objects.select_related("source_message").filter(pk=draft_id).first()
    if draft is None:
        raise NotFound("답변 초안을 찾을 수 없습니다.")
    values = {
        "verdict": verdict,
        "reason": reason,
        "note": " ".join(str(note).split())[:500],
        "answer": draft.answer,
        "customer_input": draft.source_message.body,
        "draft_model": draft.draft_model,
        "qa_model": draft.qa_model,
    }
    try:
        with transaction.atomic():
            rating, _ = DraftRating.objects.update_or_create(draft=draft, rated_by=actor, defaults=values)
    except IntegrityError:  # the same operator rated it concurrently: keep one row, with these values
        rating = DraftRating.objects.get(draft=draft, rated_by=actor)
        DraftRating.objects.filter(pk=rating.pk).update(**values)
        rating.refresh_from_db()
    log.info("evals.draft_rated draft_id=%s verdict=%s reason=%s actor_id=%s", draft.pk, verdict, reason, actor.pk)
    return rating


def ratings_summary() -> dict:
    """What operators said: counts by verdict and reason, and how well each confidence part separates 👍
    from 👎 (AUROC; None until both exist)."""
    rows = list(DraftRating.objects.select_related("draft").only("verdict", "reason", "draft__confidence"))
    by_reason = Counter(f"{r.verdict}:{r.reason}" for r in rows)
    parts = ("groundedness", "completeness", "safety", "uncertainty_handling")
    separation = {}
    for part in parts:
        scored = [
            (r.draft.confidence[part]["score"], r.verdict == DraftRating.Verdict.UP)
            for r in rows
            if isinstance((r.draft.confidence or {}).get(part), dict)
        ]
        separation[part] = auroc([s for s, _ in scored], [y for _, y in scored]) if scored else None
    return {
        "ratings": len(rows),
        "up": sum(r.verdict == DraftRating.Verdict.UP for r in rows),
        "down": sum(r.verdict == DraftRating.Verdict.DOWN for r in rows),
        "by_reason": dict(sorted(by_reason.items())),
        "confidence_auroc_up_vs_down": separation,
    }


def eval_run_record(*, suite: str, model: str, report: dict) -> EvalRun:
    """Keep a finished run's report (failures' transcripts included) for the admin page."""
    return EvalRun.objects.create(suite=suite, model=model[:100], report=json.loads(json.dumps(report, default=str)))


# --- export ---------------------------------------------------------------------------------------
def _mask(text: str) -> str:
    return redact_personal(text or "")


def _slug(prefix: str, pk: object) -> str:
    return re.sub(r"[^a-z0-9_]", "_", f"{prefix}_{pk}".lower())


def rated_draft_case(rating: DraftRating) -> dict:
    """A golden-set case from a rated draft. Key points and citations are left for a person to fill from the
    documents; a 👎 for an unsafe answer makes its text a must-not."""
    draft = rating.draft
    ticket = draft.ticket
    must_not = [REFUND_DONE_PATTERN]
    return {
        "id": _slug("rated_draft", draft.pk),
        "customer_id": ticket.customer_id,
        "category": ticket.category,
        "subject": _mask(ticket.subject),
        "body": _mask(rating.customer_input),
        "expected": {
            "route": "draft",
            "key_points": [],
            "required_citations": [],
            "allowed_citations": [c.get("doc_id") for c in draft.citations if isinstance(c, dict)]
            if rating.verdict == DraftRating.Verdict.UP
            else [],
            "must_not_say": must_not,
            "hard_blockers": [],
            "diagnosis_verdict": None,
        },
        "source": {
            "kind": "draft_rating",
            "verdict": rating.verdict,
            "reason": rating.reason,
            "note": _mask(rating.note),
            "rated_answer": _mask(rating.answer),
            "draft_model": rating.draft_model,
            "needs_review": True,
        },
    }


def chat_task(conversation: Conversation) -> dict | None:
    """A scripted task from a real chat: the customer's turns (masked) and, as a starting point for review,
    the records the conversation left as the expected end state."""
    turns = list(
        conversation.messages.filter(role=ChatMessage.Role.CUSTOMER).order_by("id").values_list("content", flat=True)
    )
    if not turns:
        return None
    start = conversation.messages.order_by("id").first().created_at
    end = conversation.messages.order_by("-id").first().created_at
    records = ActionRecord.objects.filter(
        customer_id=conversation.customer_id, created_at__gte=start, created_at__lte=end
    )
    actions = [
        {"order_id": r.order_id, "kind": r.kind, "status": r.status, "reason_category": r.reason_category or "*"}
        for r in records.order_by("id")
    ]
    return {
        "id": _slug("chat", str(conversation.pk)[:8]),
        "category": "multi_step" if len(turns) > 1 else "lookup",
        "title": f"실제 대화에서 ({_mask(turns[0])[:40]})",
        "clock": {"today": start.date().isoformat()},
        "customer_id": conversation.customer_id,
        "initial_state": {},
        "user": {
            "persona": "실제 상담 대화에서 가져온 고객",
            "reason_for_contact": _mask(turns[0]),
            "known_info": [],
            "reveal_only_if_asked": {},
            "behaviour": "",
            "turns": [{"text": _mask(t)} for t in turns],
        },
        "evaluation": {
            "expected_state": {"actions": actions, "orders": {}, "stock": {}, "tickets": []},
            "must_communicate": [],
            "must_not_say": [REFUND_DONE_PATTERN],
            "nl_assertions": [],
        },
        "source": {"kind": "chat", "conversation": str(conversation.pk), "needs_review": True},
    }


def eval_cases_export(*, since: date, out_dir: Path) -> dict[str, int]:
    """Write rated drafts (as draft cases) and chats (as agent tasks) since `since` under `out_dir`
    (`drafts/` and `tasks/`). Every customer text is masked. Files are for review: move them into
    evals/drafts or evals/tasks once their expectations are checked."""
    (out_dir / "drafts").mkdir(parents=True, exist_ok=True)
    (out_dir / "tasks").mkdir(parents=True, exist_ok=True)
    counts = {"drafts": 0, "tasks": 0}
    for rating in DraftRating.objects.filter(created_at__date__gte=since).select_related("draft__ticket"):
        case = rated_draft_case(rating)
        path = out_dir / "drafts" / f"{case['id']}.json"
        path.write_text(json.dumps(case, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        counts["drafts"] += 1
    for conversation in Conversation.objects.filter(updated_at__date__gte=since).order_by("created_at"):
        task = chat_task(conversation)
        if task is None:
            continue
        (out_dir / "tasks" / f"{task['id']}.json").write_text(task_dump_raw(task), encoding="utf-8")
        counts["tasks"] += 1
    return counts


def task_dump_raw(task: dict) -> str:
    return json.dumps(task, ensure_ascii=False, indent=2) + "\n"
