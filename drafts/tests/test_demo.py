"""`seed_demo` opens demo inquiries whose drafts are ready in the admin (built-in offline model)."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import RequestFactory
from django.urls import reverse

from drafts.models import Draft
from tickets.models import Ticket

pytestmark = pytest.mark.django_db(transaction=True)


def test_seed_demo_prepares_drafts_for_demo_inquiries_including_error_diagnoses(offline_model, client):
    call_command("seed_demo", "--no-progress")
    tickets = Ticket.objects.order_by("id")
    assert tickets.count() == 5
    live = Draft.objects.filter(status="GENERATED").select_related("ticket")
    assert live.count() == 5
    assert Draft.objects.filter(status="SUPERSEDED").count() == 1  # the follow-up replaced the first draft
    verdicts = {d.ticket.customer_id: d.diagnosis.get("verdict") for d in live if d.ticket.category == "ERROR"}
    assert verdicts == {"C005": "FAILURE_POINT_IDENTIFIED", "C007": "PARTIAL_EVIDENCE", "C008": "INSUFFICIENT"}
    for draft in live:
        assert (draft.draft_state, draft.qa_state, draft.confidence_state) == ("DONE", "DONE", "DONE")
        # Placed at the story's time in the demo world, with the measured durations kept.
        assert draft.input_at == draft.source_message.created_at
        assert draft.input_at <= draft.draft_at <= draft.qa_at <= draft.confidence_at
        assert draft.confidence_at - draft.input_at < timedelta(seconds=60)

    call_command("seed_demo", "--no-progress")  # idempotent
    assert (Ticket.objects.count(), Draft.objects.count()) == (5, 6)

    # django-axes checks every password login and needs the request it comes with.
    assert client.login(request=RequestFactory().post("/admin/login/"), username="operator", password="demo1234")
    listing = client.get(reverse("admin:tickets_ticket_changelist")).content.decode()
    assert listing.count("생성됨") >= 5
    c005 = live.get(ticket__customer_id="C005")
    page = client.get(reverse("admin:tickets_ticket_change", args=[c005.ticket_id])).content.decode()
    assert "실패 지점 확인" in page and 'value="apply"' in page
