"""Draft review on the admin ticket page: what the operator sees, and the three decisions."""

import re

import pytest
from django.urls import reverse
from django.utils.html import escape

from common.tests.factories import operator_with
from diagnostics.schemas import VERDICT_LABELS
from drafts.models import Draft
from drafts.tests.support import inquiry
from knowledge.models import KnowledgeDocument
from tickets.models import TicketMessage
from tickets.tests.pages import unlabelled

pytestmark = pytest.mark.django_db(transaction=True)


def _page(ticket_id):
    return reverse("admin:tickets_ticket_change", args=[ticket_id])


def _decide(ticket_id, draft_id):
    return reverse("admin:tickets_ticket_draft_decide", args=[ticket_id, draft_id])


def test_ticket_page_shows_conversation_draft_scores_citations_diagnosis_and_tags(operator_client, c005_draft):
    """On the demo: what the draft cites (the shop's knowledge base) and diagnoses (C005's events) is the point."""
    live_draft = c005_draft
    html = operator_client.get(_page(live_draft.ticket_id)).content.decode()
    assert "결제하려고 하면 계속 오류가 나요." in html  # the conversation
    assert escape(live_draft.corrected_body.splitlines()[0]) in html  # the corrected answer
    for label in ("근거성", "완결성", "안전성", "불확실성 처리"):
        assert label in html
    # The diagnosis and the citations read as Korean: labels and titles visible, codes and slugs only in titles.
    verdict = live_draft.diagnosis["verdict"]
    assert "운영자 전용 진단" in html and f'<b title="{verdict}">{VERDICT_LABELS[verdict]}</b>' in html
    citation = live_draft.citations[0]
    title = KnowledgeDocument.objects.get(doc_id=citation["doc_id"]).title
    assert f'<b title="{citation["doc_id"]} #{citation["chunk"]}">{escape(title)}</b>' in html
    assert f"{citation['chunk'] + 1}번째 단락" in html
    review = html[html.index('id="cs-review"') : html.index('id="ticket_form"')]
    visible = re.sub(r"<[^>]+>", " ", re.sub(r'title="[^"]*"', "", review))
    assert f"{citation['doc_id']} #" not in visible and "## " not in visible and "**" not in visible
    assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", visible) and verdict not in visible
    for tag in live_draft.recommended_tags:
        assert f'value="{tag}" checked> {tag} <span class="cs-muted">(추천)' in html
    # One send button (the text box is sent; UNCHANGED/EDITED by comparing texts) and a separate 반려.
    for decision in ("apply", "reject"):
        assert f'value="{decision}"' in html
    assert 'value="apply_unchanged"' not in html


def test_apply_unchanged_from_the_admin(operator_client, live_draft, desk_tags):
    response = operator_client.post(
        _decide(live_draft.ticket_id, live_draft.pk),
        {"decision": "apply", "final_body": live_draft.answer, "tags": ["결제오류"]},
    )
    assert response.status_code == 302
    draft = Draft.objects.get(pk=live_draft.pk)
    assert (draft.status, draft.applied, draft.edit_ratio) == ("APPLIED", "UNCHANGED", 0.0)
    assert TicketMessage.objects.get(ticket_id=draft.ticket_id, author_type="OPERATOR").body == live_draft.answer
    assert list(draft.ticket.tags.values_list("name", flat=True)) == ["결제오류"]
    page = operator_client.get(_page(draft.ticket_id)).content.decode()
    assert "그대로 발송" in page and 'value="apply"' not in page


def test_apply_edited_from_the_admin_records_the_edit_ratio(operator_client, live_draft):
    final = "고객님, 결제 오류를 확인하고 있습니다. 잠시만 기다려 주세요."
    operator_client.post(
        _decide(live_draft.ticket_id, live_draft.pk), {"decision": "apply", "final_body": final, "tags": []}
    )
    draft = Draft.objects.get(pk=live_draft.pk)
    assert (draft.status, draft.applied, draft.final_body) == ("APPLIED", "EDITED", final)
    assert 0 < draft.edit_ratio <= 1
    assert draft.ticket.tags.count() == 0  # the operator chose none of the recommended tags


def test_reject_from_the_admin(operator_client, live_draft):
    operator_client.post(_decide(live_draft.ticket_id, live_draft.pk), {"decision": "reject"})
    draft = Draft.objects.get(pk=live_draft.pk)
    assert draft.status == "REJECTED"
    assert not TicketMessage.objects.filter(ticket_id=draft.ticket_id, author_type="OPERATOR").exists()


def test_staff_without_review_permission_see_no_decisions_and_change_nothing(client, live_draft):
    client.force_login(operator_with("tickets.view_ticket", "drafts.view_draft"))
    page = client.get(_page(live_draft.ticket_id))
    assert page.status_code == 200 and 'value="apply"' not in page.content.decode()
    response = client.post(_decide(live_draft.ticket_id, live_draft.pk), {"decision": "apply"}, follow=True)
    assert "권한이 없습니다" in response.content.decode()
    assert Draft.objects.get(pk=live_draft.pk).status == "GENERATED"


def test_failed_stage_is_shown_and_retried_from_the_admin(operator_client, customer, scripted_model):
    from llm.testing import Fault

    scripted_model.handler = lambda body: Fault(500)
    ticket = inquiry(customer)
    page = operator_client.get(_page(ticket.pk)).content.decode()
    assert "생성 실패" in page and "실패한 단계 다시 실행" in page

    from llm.offline import respond

    scripted_model.handler = respond  # the model is back
    operator_client.post(reverse("admin:tickets_ticket_draft_retry", args=[ticket.pk]))
    draft = Draft.objects.get(ticket=ticket)
    assert (draft.status, draft.draft_state, draft.qa_state) == ("GENERATED", "DONE", "DONE")
    assert draft.attempts == 2


def test_draft_list_and_queue_query_counts_stay_flat(operator_client, live_draft, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        assert operator_client.get(reverse("admin:drafts_draft_changelist")).status_code == 200
    with django_assert_max_num_queries(12):
        assert operator_client.get(reverse("admin:tickets_ticket_changelist")).status_code == 200


def test_review_panel_diagnosis_reads_korean_with_local_times_and_linked_events(
    operator_client, shop_knowledge, offline_model
):
    """The C005 payment-error story: facts and cited events by label and Seoul time, never ISO or codes."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from django.db import transaction

    from diagnostics.models import ServiceEvent
    from orders.models import Customer
    from tickets.models import Ticket

    at = datetime(2026, 7, 26, 14, 10, tzinfo=ZoneInfo("Asia/Seoul"))
    customer = Customer.objects.select_related("user").get(pk="C005")
    with transaction.atomic():
        ticket = inquiry(customer, "결제가 안 돼요.", category="오류", subject="결제 오류")
        TicketMessage.objects.filter(ticket=ticket).update(created_at=at)
        Ticket.objects.filter(pk=ticket.pk).update(created_at=at)
    draft = Draft.objects.get(ticket=ticket)
    assert draft.diagnosis["verdict"] == "FAILURE_POINT_IDENTIFIED"

    html = operator_client.get(_page(ticket.pk)).content.decode()
    panel = html[html.index('id="cs-diagnosis"') : html.index('id="ticket_form"')]
    cited = ServiceEvent.objects.get(pk=int(draft.diagnosis["observed_facts"][0]["event_ids"][0][1:]))
    url = reverse("admin:diagnostics_serviceevent_change", args=[cited.pk])
    assert f'<a href="{url}">{cited.event_id}</a>' in panel
    assert "2026년 7월 26일 13:58:43" in panel and '<span title="PG_TIMEOUT">PG사 응답 시간 초과</span>' in panel
    assert '<span title="/api/payments">결제 요청</span>' in panel
    visible = re.sub(r"<[^>]+>", " ", re.sub(r'title="[^"]*"', "", panel))
    assert not re.search(r"\d{4}-\d{2}-\d{2}T|PG_TIMEOUT|FAILURE_POINT_IDENTIFIED", visible)
    assert "doyoon.jung@example.com" not in html and "010-6645-1005" not in html


def test_the_draft_send_box_comes_before_the_review_material_and_every_control_is_labelled(operator_client, live_draft):
    html = operator_client.get(_page(live_draft.ticket_id)).content.decode()
    assert html.index('id="cs-final-body"') < html.index('id="cs-draft-details"') < html.index('id="cs-diagnosis"')
    assert '<label for="cs-final-body"' in html and '<label for="cs-override-reason"' in html
    assert unlabelled(html) == []
