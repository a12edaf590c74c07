"""A customer's requests about their data: the export holds every table with a row about them, the erasure leaves
only what a rule keeps and marks each kept row with that rule."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import models

from accounts.models import AuthToken
from common.actors import Actor
from common.clock import now
from common.errors import InvalidState
from drafts.models import DeadLetter, Draft
from evals.models import DraftRating
from orders.models import Customer
from retention.models import RetentionMark
from retention.services import ERASED, OPERATOR, customer_data_erase, customer_data_export
from tickets.models import DataSubjectRequest, Ticket
from tickets.services import data_request_open, data_request_run, data_request_verify, ticket_reply_send

pytestmark = pytest.mark.django_db


def _path_to_customer(model: type[models.Model], depth: int = 4) -> str | None:
    """The lookup from `model` to the customer through foreign keys ("ticket__customer"), if any."""
    if model is Customer:
        return "pk"
    if depth == 0:
        return None
    for field in model._meta.concrete_fields:
        if not field.many_to_one and not field.one_to_one:
            continue
        if field.related_model is Customer:
            return f"{field.name}__pk"
        if field.related_model is not None and field.related_model is not model:
            rest = _path_to_customer(field.related_model, depth - 1)
            if rest is not None and field.related_model is not get_user_model():
                return f"{field.name}__{rest}"
    return None


def _rows_about(customer_id: str) -> dict[str, int]:
    """Every project table with rows reachable from the customer by foreign keys, and how many."""
    found = {}
    for model in apps.get_models():
        if not model._meta.managed:
            continue
        path = _path_to_customer(model)
        if path is None:
            continue
        count = model.objects.filter(**{path: customer_id}).count()
        if count:
            found[model._meta.label] = count
    return found


@pytest.fixture
def full(history):
    """The customer's history, plus a draft with a rating and a dead letter, an operator's reply, a login token and a
    data request: a row in every kind of table."""
    admin = history.admin
    ticket = Ticket.objects.create(customer=history.customer, subject="교환 문의", source="API")
    message = ticket.messages.create(author_type="CUSTOMER", body="사이즈 교환하고 싶어요")
    draft = Draft.objects.create(ticket=ticket, source_message=message, input_at=now(), body="교환 안내드립니다.")
    DraftRating.objects.create(
        draft=draft, verdict="UP", reason="CORRECT", answer=draft.body, customer_input=message.body, rated_by=admin
    )
    DeadLetter.objects.create(ticket=ticket, source_message=message, error="timeout")
    ticket_reply_send(ticket_id=ticket.pk, body="교환 접수 도와드리겠습니다.", actor=admin)
    AuthToken.objects.create(digest="0" * 64, user=history.customer.user, created_at=now(), password_fingerprint="x")
    customer = history.customer
    data_request_open(customer=customer, kind="ACCESS", source="API", actor=Actor.customer_agent(customer))
    return history


def test_the_export_holds_every_table_with_a_row_about_the_customer(full):
    held = _rows_about(full.customer.pk)
    assert {"drafts.Draft", "evals.DraftRating", "chat.ToolCall", "actions.ActionEvent"} <= set(held)
    out = StringIO()
    call_command("customer_data", "export", full.customer.pk, stdout=out)
    export = json.loads(out.getvalue())
    for label, count in held.items():
        assert len(export["tables"].get(label, [])) == count, label
    assert export["tables"]["orders.Customer"][0]["name"] == full.customer.name
    assert len(export["tables"]["accounts.AuthToken"]) == 1
    assert "digest" not in export["tables"]["accounts.AuthToken"][0]


def test_the_export_names_staff_by_role_only_and_holds_nothing_of_other_customers(full):
    admin = full.admin
    export = customer_data_export(customer_id=full.customer.pk)
    text = json.dumps(export, ensure_ascii=False)
    assert admin.username not in text
    refund = next(row for row in export["tables"]["actions.ActionRecord"] if row["kind"] == "REFUND")
    assert refund["decided_by"] == OPERATOR
    assert full.other.name not in text and full.other.pk not in text


def test_erasure_leaves_only_what_a_rule_keeps_and_marks_each_kept_row(full):
    out = StringIO()
    call_command("customer_data", "erase", full.customer.pk, stdout=out)
    # What no law keeps is gone: drafts, ratings, dead letters, request logs, the login tokens.
    assert not Draft.objects.filter(ticket__customer_id=full.customer.pk).exists()
    assert not DraftRating.objects.filter(draft__ticket__customer_id=full.customer.pk).exists()
    assert not DeadLetter.objects.filter(ticket__customer_id=full.customer.pk).exists()
    assert not AuthToken.objects.filter(user=full.customer.user).exists()
    customer = Customer.objects.select_related("user").get(pk=full.customer.pk)
    assert (customer.name, customer.phone, customer.email) == (ERASED, "", "")
    assert not customer.user.is_active
    # Every row left about the customer says which rule keeps it and until when.
    left = _rows_about(full.customer.pk)
    assert {"orders.Order", "actions.ActionRecord", "tickets.Ticket", "chat.Conversation"} <= set(left)
    assert "diagnostics.ServiceEvent" not in left
    for label, count in left.items():
        marks = RetentionMark.objects.filter(model=label, customer_id=full.customer.pk)
        assert marks.count() == count, label
        assert set(marks.values_list("rule", flat=True)) <= {"COMPLAINT", "CONTRACT", "PAYMENT"}
    assert RetentionMark.objects.get(model="actions.ActionRecord", object_pk=str(full.refund.pk)).rule == "PAYMENT"
    assert RetentionMark.objects.get(model="tickets.Ticket", object_pk=str(full.old_ticket.pk)).rule == "COMPLAINT"
    text = out.getvalue()
    assert "보존 orders.Order" in text and "계약 또는 청약철회" in text and "파기 drafts.Draft" in text


def test_a_chat_that_handled_no_complaint_is_erased_one_that_did_is_kept(full):
    quiet = type(full.old_chat).objects.create(customer=full.customer)
    quiet.messages.create(role="customer", content="영업시간이 어떻게 돼요?")
    report = customer_data_erase(customer_id=full.customer.pk, actor_label="test")
    assert not type(quiet).objects.filter(pk=quiet.pk).exists()
    assert type(full.old_chat).objects.filter(pk=full.old_chat.pk).exists()  # it filed a ticket
    assert report["kept"]["chat.Conversation"] == {"COMPLAINT": 1}


def test_a_data_request_runs_only_after_a_person_verified_the_identity(full):
    admin = full.admin
    agent = Actor.customer_agent(full.customer)
    request, created = data_request_open(customer=full.customer, kind="ERASURE", source="API", actor=agent)
    assert created
    assert data_request_open(customer=full.customer, kind="ERASURE", source="API", actor=agent) == (request, False)
    with pytest.raises(InvalidState):
        data_request_run(request=request, actor=admin)
    assert Customer.objects.get(pk=full.customer.pk).name == full.customer.name
    assert data_request_verify(request=request, actor=admin)
    done = data_request_run(request=request, actor=admin)
    assert done.status == DataSubjectRequest.Status.DONE
    assert done.result["kept"]["orders.Order"] == {"CONTRACT": len(full.orders)}
    assert Customer.objects.get(pk=full.customer.pk).name == ERASED


def test_an_access_request_hands_over_the_export(full):
    admin = full.admin
    request = DataSubjectRequest.objects.get(customer=full.customer, kind="ACCESS")
    data_request_verify(request=request, actor=admin)
    done = data_request_run(request=request, actor=admin)
    assert len(done.result["tables"]["orders.Order"]) == len(full.orders)


def test_an_unknown_customer_is_an_error_and_nothing_changes(customer):
    with pytest.raises(CommandError, match="고객을 찾을 수 없습니다: C999"):  # not found, beside a customer who is
        call_command("customer_data", "erase", "C999", stdout=StringIO())
    assert not RetentionMark.objects.exists()
