"""Operators rate drafts in the admin; ratings feed the metrics; rated drafts and chats become masked cases;
finished runs are shown with charts."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from common.errors import PermissionDenied
from drafts.models import Draft
from evals.drafts_eval import DraftCase
from evals.models import DraftRating, EvalRun
from evals.ratings import draft_rating_create, eval_cases_export, ratings_summary
from evals.report import report_build
from evals.schema import Task
from tickets.models import Ticket, TicketMessage
from tickets.services import ticket_create

pytestmark = pytest.mark.django_db


def _draft(customer, *, body: str, grounded: float) -> Draft:
    ticket = ticket_create(
        customer=customer,
        category="배송",
        subject="배송 문의",
        body=body,
        source=Ticket.Source.API,
        author=customer.user,
    )
    message = TicketMessage.objects.get(ticket=ticket)
    return Draft.objects.create(
        ticket=ticket,
        source_message=message,
        status=Draft.Status.GENERATED,
        body="배송은 1~2영업일 안에 출고됩니다.",
        draft_model="model-a",
        input_at=timezone.now(),
        confidence={"groundedness": {"score": grounded, "reason": "-"}},
        confidence_state="DONE",
    )


def test_operator_rates_a_draft_in_the_admin_and_the_rated_text_is_frozen(client, c003, operator_user):
    draft = _draft(c003, body="배송 언제 와요?", grounded=0.9)
    client.force_login(operator_user)
    response = client.post(
        "/admin/evals/draftrating/add/",
        {"draft": draft.pk, "verdict": "DOWN", "reason": "MISSING", "note": "기간 누락"},
    )
    assert response.status_code == 302, response.content[:500]
    rating = DraftRating.objects.get()
    assert (rating.verdict, rating.reason, rating.rated_by) == ("DOWN", "MISSING", operator_user)
    assert rating.answer == "배송은 1~2영업일 안에 출고됩니다." and rating.customer_input == "배송 언제 와요?"
    Draft.objects.filter(pk=draft.pk).update(body="바뀐 초안")
    again = draft_rating_create(draft_id=draft.pk, verdict="UP", reason="CORRECT", actor=operator_user)
    assert DraftRating.objects.count() == 1 and again.verdict == "UP" and again.answer == "바뀐 초안"


def test_customers_cannot_rate(c003):
    draft = _draft(c003, body="배송 언제 와요?", grounded=0.9)
    with pytest.raises(PermissionDenied):
        draft_rating_create(draft_id=draft.pk, verdict="UP", reason="CORRECT", actor=c003.user)


def test_ratings_feed_the_confidence_separation(c003, operator_user):
    good = _draft(c003, body="배송 언제 와요?", grounded=0.9)
    bad = _draft(c003, body="환불 언제 돼요?", grounded=0.2)
    draft_rating_create(draft_id=good.pk, verdict="UP", reason="CORRECT", actor=operator_user)
    draft_rating_create(draft_id=bad.pk, verdict="DOWN", reason="WRONG_FACT", actor=operator_user)
    summary = ratings_summary()
    assert (summary["up"], summary["down"]) == (1, 1)
    assert summary["confidence_auroc_up_vs_down"]["groundedness"] == 1.0
    assert summary["confidence_auroc_up_vs_down"]["safety"] is None


def test_export_turns_rated_drafts_and_chats_into_masked_valid_cases(c003, operator_user, offline_model, tmp_path):
    from chat.services import chat_turn

    draft = _draft(c003, body="010-5523-1003 으로 연락 주세요. 배송 언제 와요?", grounded=0.5)
    draft_rating_create(draft_id=draft.pk, verdict="DOWN", reason="UNSAFE", actor=operator_user)
    turn = chat_turn(customer=c003, text="HR20260726002 주문 취소해 주세요. 연락처 jihoon.park@example.com")
    assert turn.reply.content
    counts = eval_cases_export(since=timezone.localdate(), out_dir=tmp_path)
    assert counts == {"drafts": 1, "tasks": 1}
    (case_path,) = (tmp_path / "drafts").glob("*.json")
    (task_path,) = (tmp_path / "tasks").glob("*.json")
    case_text, task_text = case_path.read_text(encoding="utf-8"), task_path.read_text(encoding="utf-8")
    assert "5523" not in case_text and "jihoon.park" not in task_text
    case = DraftCase.model_validate_json(case_text)
    task = Task.model_validate_json(task_text)
    assert case.source["verdict"] == "DOWN" and case.source["needs_review"] is True
    assert task.evaluation.expected_state.actions[0].kind == "CANCEL"
    assert task.evaluation.expected_state.actions[0].status == "PENDING"


def test_eval_run_admin_page_draws_the_report(admin_client):
    rows = [
        {
            "task_id": "t1",
            "category": "lookup",
            "trial": 0,
            "reward": True,
            "attack_goal": None,
            "attack_prevented_by": None,
            "attack_success": None,
            "violations": [],
            "error": "",
            "attempted": True,
            "state_mismatches": [],
            "said_forbidden": [],
            "facts": [],
            "nl_status": "none",
            "prompt_tokens": 10,
            "completion_tokens": 5,
            "latency_s": 0.1,
            "transcript": [],
            "diff": {},
        }
    ]
    report = json.loads(json.dumps(report_build(rows, meta={"model": "m"})))
    run = EvalRun.objects.create(suite="AGENT", model="m", report=report)
    response = admin_client.get(f"/admin/evals/evalrun/{run.pk}/change/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "pass^k (전체)" in html and "분류별 pass^1" in html and "공격 목표별 성공률" in html
    assert 'class="bar"' in html and 'data-value="1' in html


def test_bar_chart_escapes_labels_and_marks_missing_values():
    from evals.charts import bar_chart

    svg = bar_chart(title="<t>", labels=["<b>", "없음"], values=[0.5, None])
    assert "<b>" not in svg and "&lt;b&gt;" in svg
    assert svg.count('class="bar"') == 1 and 'data-value="0.5000"' in svg and "n/a" in svg
