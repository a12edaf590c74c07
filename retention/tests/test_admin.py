"""The data-request workflow on the team desk: listed by due date, nothing runs before a person verified who asked."""

from __future__ import annotations

import pytest
from django.test import Client

from common.actors import Actor
from orders.models import Customer
from retention.services import ERASED
from tickets.models import DataSubjectRequest
from tickets.services import data_request_open

pytestmark = pytest.mark.django_db
URL = "/admin/tickets/datasubjectrequest/"


@pytest.fixture
def desk(history):
    client = Client()
    client.force_login(history.admin)
    return client


def test_an_erasure_request_runs_from_the_desk_only_after_the_identity_is_verified(desk, history):
    request, _ = data_request_open(
        customer=history.customer, kind="ERASURE", source="API", actor=Actor.customer_agent(history.customer)
    )
    listing = desk.get(URL).content.decode()
    assert request.number in listing and "삭제" in listing

    desk.post(URL, {"action": "run_selected", "_selected_action": [request.pk]}, follow=True)
    request.refresh_from_db()
    assert request.status == "OPEN"
    assert Customer.objects.get(pk=history.customer.pk).name == history.customer.name

    desk.post(URL, {"action": "verify_selected", "_selected_action": [request.pk]})
    desk.post(URL, {"action": "run_selected", "_selected_action": [request.pk]})
    request.refresh_from_db()
    assert (request.status, request.identity_verified) == (DataSubjectRequest.Status.DONE, True)
    assert request.result["kept"]["actions.ActionRecord"]
    assert Customer.objects.get(pk=history.customer.pk).name == ERASED
