"""Operators rate drafts in the admin; ratings feed the metrics; rated drafts and chats become masked cases;
finished runs are shown with charts."""

from __future__ import annotations

import json

import pytest
from django.test.utils import override_settings
from django.utils import timezone

from actions.models import ActionRecord
from common.errors import PermissionDenied
from drafts.models import Draft
from evals.drafts_eval import DraftCase, draft_case_list
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


# --- exported cases replay ---------------------------------------------------------------------------
SESSION = {  # customer -> conversations (each a list of turns), driven by the scripted guesser model
    "C003": [
        ["HR20260726002 배송지를 서울특별시 중구 세종대로 110, 3층으로 바꿔 주세요"],
        ["HR20260721001 운동화 블랙/260으로 교환해 주세요"],
        ["상담원 연결해 주세요"],
    ],
    "C001": [["HR20260722013 백팩 환불해 주세요"]],
    "C010": [
        [
            "HR20260727012 티셔츠 주문 취소해 주세요",
            "HR20260725013 이어폰 배송지를 경기도 파주시 문발로 24, 2동 301호로 바꿔 주세요",
        ]
    ],
}


def test_chats_exported_from_a_scripted_session_replay_and_pass_with_the_same_model(shop, scripted_model, tmp_path):
    from chat.services import chat_turn
    from evals.adversary import guesser
    from evals.runner import suite_run
    from evals.schema import task_list
    from fixtures.demo import demo_reset
    from orders.models import Customer, ProductOption

    scripted_model.handler = guesser
    for customer_id, conversations in SESSION.items():
        customer = Customer.objects.select_related("user").get(pk=customer_id)
        for turns in conversations:
            conversation_id = None
            for text in turns:
                conversation_id = chat_turn(
                    customer=customer, text=text, conversation_id=conversation_id
                ).conversation.pk
    assert ActionRecord.objects.count() == 5 and Ticket.objects.count() == 1
    counts = eval_cases_export(since=timezone.localdate(), out_dir=tmp_path)
    assert counts["tasks"] == 5
    text = "\n".join(p.read_text(encoding="utf-8") for p in (tmp_path / "tasks").glob("*.json"))
    assert "세종대로" not in text and "문발로" not in text  # real addresses never leave the shop
    tasks = {t.user.turns[0].text[:13]: t for t in task_list(directory=tmp_path / "tasks")}
    address = tasks["HR20260726002"]
    (action,) = address.evaluation.expected_state.actions
    assert address.clock == {"today": "2026-07-27"}
    assert action.new_address in address.user.turns[0].text  # the same stand-in in the words and the state
    assert address.evaluation.expected_state.orders["HR20260726002"]["shipping_address"] == action.new_address
    exchange = tasks["HR20260721001"]
    assert exchange.evaluation.expected_state.stock == {"P001:블랙/260": 2}
    assert exchange.initial_state.stock == {"P001:블랙/260": 3}
    assert [t.category for t in tasks["상담원 연결해 주세요"].evaluation.expected_state.tickets] == ["OTHER"]

    demo_reset()  # the shop as it was before the session (records gone, orders and stock restored)
    ProductOption.objects.filter(product_id="P001", label="블랙/260").update(stock=7)  # and stock moved on
    with override_settings(CS_TODAY=None):  # whatever today is now, each task runs on its own frozen day
        results = suite_run(list(tasks.values()), trials=1)
    assert {r.task_id: (r.state_mismatches, r.facts) for r in results if not r.reward} == {}


@pytest.mark.django_db(transaction=True)
def test_a_draft_rated_down_fails_its_exported_case_when_an_answer_reproduces_it(
    shop_knowledge, scripted_model, operator_user, tmp_path
):
    from evals.adversary import CANNED_ANSWER, canned_drafts
    from evals.services import drafts_eval_run
    from orders.models import Customer

    customer = Customer.objects.select_related("user").get(pk="C003")
    with override_settings(CS_AI_DRAFTS_ENABLED=False):  # the rated drafts are made by hand here
        unsafe = _draft(customer, body="환불 언제 돼요?", grounded=0.9)
        canned = _draft(customer, body="배송 언제 와요?", grounded=0.9)
    Draft.objects.filter(pk=unsafe.pk).update(
        body="환불은 오늘 안에 완료해 드리겠습니다. 걱정 마세요, 제가 책임지겠습니다."
    )
    Draft.objects.filter(pk=canned.pk).update(body=CANNED_ANSWER)
    draft_rating_create(draft_id=unsafe.pk, verdict="DOWN", reason="UNSAFE", actor=operator_user)
    draft_rating_create(draft_id=canned.pk, verdict="DOWN", reason="MISSING", actor=operator_user)
    eval_cases_export(since=timezone.localdate(), out_dir=tmp_path)
    cases = {c.body: c for c in draft_case_list(directory=tmp_path / "drafts")}
    assert r"환불은\s*오늘\s*안에\s*완료해\s*드리겠습니다\." in cases["환불 언제 돼요?"].expected.must_not_say
    assert cases["배송 언제 와요?"].expected.must_not_reproduce == [CANNED_ANSWER]
    Ticket.objects.all().delete()

    scripted_model.handler = canned_drafts  # a model that writes the flagged answer again
    report = drafts_eval_run(
        selector=None, model="canned", out_dir=tmp_path / "out", decisions=[], cases_dir=tmp_path / "drafts"
    ).report
    flagged = {s["id"]: s["must_not_violations"] for s in report["case_results"]}
    assert flagged[cases["배송 언제 와요?"].id] == [f"👎 받은 답변을 되풀이: {CANNED_ANSWER[:60]}"]
    assert report["must_not_violations"] == 1


def test_operator_rates_a_draft_from_the_ticket_review_panel(client, c003, operator_user):
    draft = _draft(c003, body="배송 언제 와요?", grounded=0.9)
    client.force_login(operator_user)
    page = f"/admin/tickets/ticket/{draft.ticket_id}/change/"
    html = client.get(page).content.decode()
    assert 'id="cs-rate"' in html and f"/admin/evals/draftrating/rate/{draft.pk}/" in html
    response = client.post(
        f"/admin/evals/draftrating/rate/{draft.pk}/",
        {"verdict": "DOWN", "reason": "WRONG_FACT", "note": "출고일이 틀림", "next": page},
    )
    assert response.status_code == 302 and response["Location"] == page
    rating = DraftRating.objects.get()
    assert (rating.draft_id, rating.verdict, rating.reason, rating.note) == (
        draft.pk,
        "DOWN",
        "WRONG_FACT",
        "출고일이 틀림",
    )
    assert (
        client.post(
            f"/admin/evals/draftrating/rate/{draft.pk}/",
            {"verdict": "UP", "reason": "CORRECT", "next": "https://evil.example/"},
        )["Location"]
        == "/admin/evals/draftrating/"
    )


def test_staff_who_may_not_rate_see_no_buttons_and_cannot_post(client, c003, operator_user):
    from django.contrib.auth.models import Permission

    operator_user.user_permissions.remove(Permission.objects.get(codename="add_draftrating"))
    draft = _draft(c003, body="배송 언제 와요?", grounded=0.9)
    client.force_login(operator_user)
    assert 'id="cs-rate"' not in client.get(f"/admin/tickets/ticket/{draft.ticket_id}/change/").content.decode()
    client.post(f"/admin/evals/draftrating/rate/{draft.pk}/", {"verdict": "UP", "reason": "CORRECT"})
    assert not DraftRating.objects.exists()
