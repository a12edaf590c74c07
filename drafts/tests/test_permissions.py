"""Least privilege below the role level: each staff endpoint and the review page show only what the user's
Django permissions cover (see common/tests/test_permission_matrix.py for the role × page table)."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from drafts.models import Draft
from testsupport.api import api_as

pytestmark = pytest.mark.django_db(transaction=True)

MESSAGE_BODY = "결제하려고 하면 계속 오류가 나요."  # live_draft's inquiry


def _staff(*codenames: str):
    user = get_user_model().objects.create_user(f"staff-{len(codenames)}-{'-'.join(codenames)[:60]}", is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    return get_user_model().objects.get(pk=user.pk)  # fresh permission cache


def test_is_staff_alone_reads_nothing(live_draft):
    client = api_as(_staff())
    for path in ("/api/ops/tickets/", f"/api/ops/tickets/{live_draft.ticket.number}/"):
        response = client.get(path)
        assert response.status_code == 403
        assert response.json() == {"code": "permission_denied", "detail": "이 작업에 필요한 운영자 권한이 없습니다."}


def test_ticket_list_needs_ticket_and_draft_view_and_the_detail_also_message_view(live_draft):
    number = live_draft.ticket.number
    tickets_only = api_as(_staff("view_ticket"))
    assert tickets_only.get("/api/ops/tickets/").status_code == 403  # the list shows each ticket's draft status
    lister = api_as(_staff("view_ticket", "view_draft"))
    assert lister.get("/api/ops/tickets/").status_code == 200
    assert lister.get(f"/api/ops/tickets/{number}/").status_code == 403  # the conversation needs view_ticketmessage
    reader = api_as(_staff("view_ticket", "view_draft", "view_ticketmessage"))
    assert reader.get(f"/api/ops/tickets/{number}/").json()["messages"][0]["body"] == MESSAGE_BODY


def test_diagnosis_is_omitted_without_the_service_event_view_permission(live_draft, desk_user):
    number = live_draft.ticket.number
    reader = api_as(_staff("view_ticket", "view_draft", "view_ticketmessage"))
    assert reader.get(f"/api/ops/tickets/{number}/").json()["drafts"][0]["diagnosis"] is None
    assert desk_user.has_perm("diagnostics.view_serviceevent")
    full = api_as(desk_user).get(f"/api/ops/tickets/{number}/").json()["drafts"][0]["diagnosis"]
    assert full["verdict"] in {"FAILURE_POINT_IDENTIFIED", "PARTIAL_EVIDENCE", "INSUFFICIENT"}


def test_review_permission_without_draft_view_cannot_apply(live_draft):
    response = api_as(_staff("review")).post(f"/api/ops/drafts/{live_draft.pk}/apply/", {}, format="json")
    assert response.status_code == 403
    assert Draft.objects.get(pk=live_draft.pk).status == "GENERATED"
    decider = api_as(_staff("decide")).post("/api/ops/actions/A00001/decide/", {"approve": True}, format="json")
    assert decider.status_code == 403  # the answer shows the record: view_actionrecord too


def test_review_page_shows_only_what_the_permissions_cover(client, live_draft):
    page_url = reverse("admin:tickets_ticket_change", args=[live_draft.ticket_id])
    client.force_login(_staff("view_ticket"))
    page = client.get(page_url).content.decode()
    assert MESSAGE_BODY not in page and "문의 메시지를 볼 권한이 없습니다" in page
    assert live_draft.body not in page and "답변 초안을 볼 권한이 없습니다" in page

    client.force_login(_staff("view_ticket", "view_ticketmessage", "view_draft"))
    page = client.get(page_url).content.decode()
    assert MESSAGE_BODY in page and live_draft.answer[:40] in page
    assert "운영자 전용 진단" not in page

    client.force_login(_staff("view_ticket", "view_ticketmessage", "view_draft", "view_serviceevent"))
    assert "운영자 전용 진단" in client.get(page_url).content.decode()


def test_ticket_list_shows_the_draft_column_only_with_the_draft_view_permission(client, live_draft):
    url = reverse("admin:tickets_ticket_changelist")
    client.force_login(_staff("view_ticket"))
    assert "column-draft_status" not in client.get(url).content.decode()
    client.force_login(_staff("view_ticket", "view_draft"))
    assert "column-draft_status" in client.get(url).content.decode()


def test_draft_admin_hides_the_diagnosis_field_without_the_service_event_view_permission(client, live_draft):
    url = reverse("admin:drafts_draft_change", args=[live_draft.pk])
    client.force_login(_staff("view_draft"))
    assert 'field-diagnosis_display"' not in client.get(url).content.decode()
    client.force_login(_staff("view_draft", "view_serviceevent"))
    assert 'field-diagnosis_display"' in client.get(url).content.decode()
