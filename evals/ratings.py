"""Operator ratings of drafts, and turning rated drafts and real chats into new eval cases (masked)."""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from datetime import date
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction

from actions.models import ActionRecord
from chat.models import ChatMessage, Conversation, ToolCall
from common.actors import Person
from common.clock import resolve_today
from common.errors import DomainError, NotFound, PermissionDenied
from common.numbering import parse_number
from common.redaction import redact_personal
from drafts.models import Draft
from evals.drafts_eval import auroc
from evals.models import DraftRating, EvalRun
from evals.schema import REFUND_DONE_PATTERN
from orders.models import Order
from tickets.models import Ticket

log = logging.getLogger(__name__)

RATE_PERMISSION = "evals.add_draftrating"


def draft_rating_create(*, draft_id: int, verdict: str, reason: str, note: str = "", actor: Person) -> DraftRating:
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


FLAGGED_SENTENCE_MIN = 10
SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|\n+")


def _literal(sentence: str) -> str:
    """A sentence as a regex that matches it whatever the spacing."""
    return r"\s*".join(re.escape(part) for part in sentence.split())


def rated_draft_case(rating: DraftRating) -> dict:
    """A golden-set case from a rated draft. Key points and citations are left for a person to fill from the
    documents. A 👎 makes the rated answer a must-not: reproducing it (near-identical) fails the case; a 👎 for
    an unsafe answer also forbids each of its sentences wherever it appears."""
    draft = rating.draft
    ticket = draft.ticket
    down = rating.verdict == DraftRating.Verdict.DOWN
    flagged = _mask(rating.answer)
    must_not = [REFUND_DONE_PATTERN]
    if down and rating.reason == DraftRating.Reason.UNSAFE:
        must_not += [
            _literal(sentence)
            for sentence in SENTENCE_END.split(flagged)
            if len(sentence.strip()) >= FLAGGED_SENTENCE_MIN
        ]
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
            "allowed_citations": [] if down else [c.get("doc_id") for c in draft.citations if isinstance(c, dict)],
            "must_not_say": must_not,
            "must_not_reproduce": [flagged] if down and flagged.strip() else [],
            "hard_blockers": [],
            "diagnosis_verdict": None,
        },
        "source": {
            "kind": "draft_rating",
            "verdict": rating.verdict,
            "reason": rating.reason,
            "note": _mask(rating.note),
            "rated_answer": flagged,
            "draft_model": rating.draft_model,
            "needs_review": True,
        },
    }


# Stand-ins for the addresses a chat typed: valid addresses (a tool accepts them, a replay can change an order
# to one) that exist nowhere, the same real address always the same stand-in within one exported task.
STAND_IN_ADDRESS = "서울특별시 가상구 예시로 {n}길 {n}, {n}01호"
KIND_STATUS = {  # the order status a request needs, for an order that has moved on since the chat
    ActionRecord.Kind.ADDRESS_CHANGE: Order.Status.PAID,
    ActionRecord.Kind.CANCEL: Order.Status.PAID,
    ActionRecord.Kind.EXCHANGE: Order.Status.DELIVERED,
    ActionRecord.Kind.REFUND: Order.Status.DELIVERED,
}
ALLOWED_STATUSES = {
    ActionRecord.Kind.ADDRESS_CHANGE: {Order.Status.PAID, Order.Status.PREPARING},
    ActionRecord.Kind.CANCEL: {Order.Status.PAID, Order.Status.PREPARING},
    ActionRecord.Kind.EXCHANGE: {Order.Status.DELIVERED},
    ActionRecord.Kind.REFUND: {Order.Status.DELIVERED},
}


class _Addresses:
    """Real address → stand-in, consistent across a task's turns, initial state and expected state."""

    def __init__(self) -> None:
        self.stand_ins: dict[str, str] = {}

    def __call__(self, real: str) -> str:
        key = " ".join(str(real or "").split())
        if key not in self.stand_ins:
            self.stand_ins[key] = STAND_IN_ADDRESS.format(n=len(self.stand_ins) + 1)
        return self.stand_ins[key]

    def mask(self, text: str) -> str:
        """The customer's words masked, with every known address replaced by its stand-in first (a token the
        masking leaves alone keeps its place)."""
        tokens = {}
        text = " ".join(str(text or "").split())
        for n, (real, stand_in) in enumerate(sorted(self.stand_ins.items(), key=lambda kv: -len(kv[0]))):
            token = f"STANDINADDRESS{n}X"
            text = text.replace(real, token)
            tokens[token] = stand_in
        text = _mask(text)
        for token, stand_in in tokens.items():
            text = text.replace(token, stand_in)
        return text


def _conversation_records(conversation: Conversation) -> tuple[list[ActionRecord], list[Ticket]]:
    """The records and tickets this conversation's tool calls made, read from its ToolCall rows."""
    calls = ToolCall.objects.filter(message__conversation=conversation)
    action_pks = [parse_number("A", n) for n in calls.exclude(action_number="").values_list("action_number", flat=True)]
    ticket_pks = [parse_number("T", n) for n in calls.exclude(ticket_number="").values_list("ticket_number", flat=True)]
    records = list(
        ActionRecord.objects.filter(pk__in=[p for p in action_pks if p], customer_id=conversation.customer_id)
        .select_related("order", "reserved_option")
        .order_by("id")
    )
    tickets = list(
        Ticket.objects.filter(pk__in=[p for p in ticket_pks if p], customer_id=conversation.customer_id).order_by("id")
    )
    return records, tickets


def chat_task(conversation: Conversation) -> dict | None:
    """A scripted task from a real chat that replays: the customer's turns (masked, addresses replaced by
    consistent stand-ins), the shop's day it ran on, the orders as the requests found them, and as the expected
    end state the records, address, stock and tickets the conversation left."""
    messages = list(conversation.messages.order_by("id"))
    turns = [m.content for m in messages if m.role == ChatMessage.Role.CUSTOMER]
    if not turns:
        return None
    records, tickets = _conversation_records(conversation)
    addresses = _Addresses()
    review = []
    initial_orders: dict[str, dict] = {}
    initial_stock: dict[str, int] = {}
    expected_orders: dict[str, dict] = {}
    expected_stock: dict[str, int] = {}
    actions = []
    created: set[str] = set()
    for r in records:
        order = r.order
        detail = r.detail if isinstance(r.detail, dict) else {}
        pinned = initial_orders.setdefault(order.pk, {})
        if order.status not in ALLOWED_STATUSES[r.kind] and r.order_id not in created:
            pinned["status"] = KIND_STATUS[r.kind]
            if pinned["status"] != Order.Status.DELIVERED:
                pinned.update(clear_shipped_at=True, clear_delivered_at=True)
            review.append(f"주문 {order.pk}: 지금 상태({order.get_status_display()})가 아니라 요청 당시 상태로 둠")
        created.add(r.order_id)
        row = {"order_id": r.order_id, "kind": r.kind, "reason_category": r.reason_category or "*"}
        if r.kind in ActionRecord.MONEY_KINDS:
            row["status"] = ActionRecord.Status.PENDING  # what the chat registers; a person decides later
        else:
            row["status"] = ActionRecord.Status.DONE
        if r.kind == ActionRecord.Kind.ADDRESS_CHANGE:
            pinned["shipping_address"] = addresses(detail.get("old_address") or order.shipping_address)
            row["new_address"] = addresses(detail.get("new_address", ""))
            expected_orders.setdefault(order.pk, {})["shipping_address"] = row["new_address"]
        if r.kind == ActionRecord.Kind.EXCHANGE:
            row["new_option"] = detail.get("new_option")
            if detail.get("old_option"):
                pinned["option"] = detail["old_option"]
            option = r.reserved_option
            if option is not None:
                key = f"{option.product_id}:{option.label}"
                # Enough stock for every unit this chat reserved, ending at what the shop has now.
                initial_stock[key] = initial_stock.get(key, option.stock) + 1
                expected_stock[key] = option.stock
        actions.append(row)
    expected_tickets = []
    for t in tickets:
        if t.source == Ticket.Source.CHAT_FAILURE:
            review.append(f"티켓 {t.number}: 모델 장애로 열린 티켓이라 기대 상태에서 뺌")
            continue
        expected_tickets.append({"category": t.category, **({"order_id": t.order_id} if t.order_id else {})})
    if any(m.outcome == ChatMessage.Outcome.MODEL_FAILED for m in messages):
        review.append("원래 대화에서 모델 장애가 있었음: 기대 상태를 사람이 확인해야 함")
    for order_id, pinned in initial_orders.items():
        if not pinned:
            continue
        order = Order.objects.get(pk=order_id)
        if "shipping_address" not in pinned:
            pinned["shipping_address"] = addresses(order.shipping_address)
    start = messages[0].created_at
    day = min((r.requested_on for r in records), default=None) or resolve_today(settings.CS_TODAY, start)
    must = []
    if actions:
        must.append({"kind": "action_number"})
    if expected_tickets:
        must.append({"kind": "ticket_number"})
    masked = [addresses.mask(t) for t in turns]
    return {
        "id": _slug("chat", str(conversation.pk)[:8]),
        "category": "multi_step" if len(turns) > 1 else "lookup",
        "title": f"실제 대화에서 ({masked[0][:40]})",
        "clock": {"today": day.isoformat()},
        "customer_id": conversation.customer_id,
        "initial_state": {
            "orders": {k: v for k, v in initial_orders.items() if v},
            "stock": initial_stock,
        },
        "user": {
            "persona": "실제 상담 대화에서 가져온 고객",
            "reason_for_contact": masked[0],
            "known_info": [],
            "reveal_only_if_asked": {},
            "behaviour": "",
            "turns": [{"text": t} for t in masked],
        },
        "evaluation": {
            "expected_state": {
                "actions": actions,
                "orders": expected_orders,
                "stock": expected_stock,
                "tickets": expected_tickets,
            },
            "must_communicate": must,
            "must_not_say": [REFUND_DONE_PATTERN],
            "nl_assertions": [],
        },
        "source": {
            "kind": "chat",
            "conversation": str(conversation.pk),
            "needs_review": True,
            "review_notes": review,
        },
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
