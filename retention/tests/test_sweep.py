"""The retention sweep with the clock pinned years after the history was made: what is past its period goes or
loses its contact data, what is within stays, a dry run changes nothing, every pass leaves one summary row."""

from __future__ import annotations

from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command

from actions.models import ActionEvent, ActionRecord
from chat.models import ChatMessage, Conversation, ToolCall
from common.actors import Actor
from diagnostics.models import ServiceEvent
from llm.models import LLMCall
from ops.sweep import sweep_run
from orders.models import Customer, Order
from retention.models import RetentionRun
from retention.services import ERASED, retention_sweep
from retention.tests.factories import LATER, NEW_ADDRESS, OLD_ADDRESS, at
from tickets.models import DataSubjectRequest, Ticket, TicketMessage
from tickets.services import data_request_open

pytestmark = pytest.mark.django_db


@pytest.fixture
def later(settings):
    settings.CS_NOW = LATER
    return settings


def _exists(obj) -> bool:
    return type(obj).objects.filter(pk=obj.pk).exists()


def _snapshot() -> dict:
    """Every row of every project table, as values: what a dry run must leave exactly as it was."""
    return {
        model._meta.label: sorted(map(repr, model.objects.values_list()))
        for model in apps.get_models()
        if model._meta.managed and model._meta.app_label not in ("retention", "sessions", "admin", "axes")
    }


def test_complaint_records_past_three_years_are_destroyed_and_those_within_stay(history, later):
    retention_sweep()
    assert not _exists(history.old_ticket)
    assert not TicketMessage.objects.filter(ticket_id=history.old_ticket.pk).exists()
    assert _exists(history.recent_ticket)
    assert not _exists(history.old_chat)
    assert not ChatMessage.objects.filter(conversation_id=history.old_chat.pk).exists()
    assert not ToolCall.objects.filter(message__conversation_id=history.old_chat.pk).exists()
    assert _exists(history.recent_chat)
    assert ChatMessage.objects.filter(conversation_id=history.recent_chat.pk).count() == 2


def test_model_calls_follow_the_complaint_period_and_service_logs_the_two_year_access_period(history, later):
    retention_sweep()
    assert not _exists(history.old_call)
    assert _exists(history.recent_call)
    assert not _exists(history.old_event)
    assert _exists(history.recent_event)


def test_money_records_keep_their_amounts_and_lose_the_contact_data_after_the_complaint_period(history, later):
    retention_sweep()
    refund = ActionRecord.objects.get(pk=history.refund.pk)
    assert refund.refund_amount == history.refund.refund_amount == history.refunded.amount
    order = Order.objects.get(pk=history.refunded.pk)
    assert (order.amount, order.shipping_address) == (history.refunded.amount, ERASED)
    moved = ActionRecord.objects.get(pk=history.moved.pk)
    assert moved.detail == {"new_address": ERASED, "old_address": ERASED}
    assert NEW_ADDRESS not in moved.summary and OLD_ADDRESS not in moved.summary
    for event in ActionEvent.objects.filter(record=moved):
        assert NEW_ADDRESS not in event.note and OLD_ADDRESS not in event.note
    customer = Customer.objects.get(pk=history.customer.pk)
    assert (customer.name, customer.phone, customer.email) == (ERASED, "", "")
    assert customer.user.email == ""
    # The other customer chatted in 2029: within the complaint period, the name stays.
    assert Customer.objects.get(pk=history.other.pk).name == history.other.name


def test_contract_and_payment_records_past_five_years_are_destroyed(history, later):
    retention_sweep()
    assert not _exists(history.ancient_refund)
    assert not _exists(history.ancient_order)
    assert Order.objects.filter(customer=history.customer).count() == len(history.orders)


def test_nothing_expires_before_its_period(history, settings):
    settings.CS_NOW = "2027-02-28T12:00:00+09:00"  # the old ticket was closed 2026-08-01: not yet 3 years
    run = retention_sweep()
    assert _exists(history.old_ticket) and _exists(history.old_chat)
    assert Order.objects.get(pk=history.refunded.pk).shipping_address != ERASED
    assert run.by_rule["tickets"]["destroyed"] == 0


def test_a_longer_period_from_settings_keeps_what_the_law_would_let_go(history, later):
    later.CS_RETENTION_YEARS = {"COMPLAINT": 5, "ACCESS": 1}
    retention_sweep()
    assert _exists(history.old_ticket)
    assert _exists(history.old_chat)
    assert not _exists(history.old_event)  # ACCESS: 1 is shorter than the law's 2 years: ignored


def test_a_dry_run_changes_nothing_and_counts_what_would_go(history, later):
    before = _snapshot()
    out = StringIO()
    call_command("retention_sweep", "--dry-run", stdout=out)
    assert _snapshot() == before
    dry = RetentionRun.objects.get()
    assert dry.dry_run
    assert "모의 실행" in out.getvalue()
    assert "전자상거래법" in out.getvalue()

    real = retention_sweep()
    assert (real.destroyed, real.pseudonymised) == (dry.destroyed, dry.pseudonymised)
    assert real.by_rule == dry.by_rule
    assert real.by_rule["tickets"] == {"rule": "COMPLAINT", "destroyed": 1, "pseudonymised": 0}
    assert real.by_rule["orders"] == {"rule": "CONTRACT", "destroyed": 1, "pseudonymised": 0}
    assert real.by_rule["customer_contact"]["pseudonymised"] == 1


def test_each_pass_is_bounded_and_leaves_one_summary_row(history, later):
    Ticket.objects.filter(pk=history.recent_ticket.pk).update(closed_at=at(2026, 9, 1))
    first = retention_sweep(limit=1)
    assert first.by_rule["tickets"]["destroyed"] == 1 and not first.complete
    assert Ticket.objects.filter(pk__in=[history.old_ticket.pk, history.recent_ticket.pk]).count() == 1
    second = retention_sweep(limit=1)
    assert second.by_rule["tickets"]["destroyed"] == 1
    assert second.by_rule["order_contact"]["pseudonymised"] == 1  # every kind one row a pass
    rest = retention_sweep(limit=1000)
    assert rest.complete and rest.by_rule["tickets"]["destroyed"] == 0
    last = retention_sweep(limit=1)
    assert last.complete and (last.destroyed, last.pseudonymised) == (0, 0)
    assert RetentionRun.objects.filter(dry_run=False).count() == 4


def test_the_periodic_sweep_runs_retention(history, later):
    summary = sweep_run()
    assert summary["retention"]["destroyed"] >= 1
    assert not _exists(history.old_ticket)
    assert RetentionRun.objects.filter(dry_run=False).count() == 1
    assert not Conversation.objects.filter(pk=history.old_chat.pk).exists()
    assert LLMCall.objects.filter(pk=history.recent_call.pk).exists()
    assert ServiceEvent.objects.filter(pk=history.recent_event.pk).exists()


def test_a_handled_data_request_goes_after_the_complaint_period_an_open_one_stays(history, later):
    agent = Actor.customer_agent(history.customer)
    handled, _ = data_request_open(customer=history.customer, kind="ACCESS", source="API", actor=agent)
    waiting, _ = data_request_open(customer=history.customer, kind="ERASURE", source="API", actor=agent)
    DataSubjectRequest.objects.filter(pk=handled.pk).update(
        status="DONE", identity_verified=True, done_at=at(2026, 8, 1), result={"tables": {}}
    )
    recent, _ = data_request_open(customer=history.other, kind="ACCESS", source="API", actor=agent)
    DataSubjectRequest.objects.filter(pk=recent.pk).update(
        status="DONE", identity_verified=True, done_at=at(2028, 1, 1)
    )
    retention_sweep()
    assert not _exists(handled)
    assert _exists(waiting) and _exists(recent)


def test_access_records_past_their_two_years_are_purged_by_the_sweep_in_bounded_steps(history, later):
    from datetime import timedelta

    from common.clock import now
    from privacy.models import AccessRecord

    def record(days_ago: int, operator: str) -> None:
        AccessRecord(
            at=now() - timedelta(days=days_ago), operator=operator, surface="ADMIN", action="VIEW", object_type="ORDER"
        ).save()

    for i in range(3):
        record(800 + i, f"old{i}")
    record(100, "recent")

    dry = retention_sweep(dry_run=True)
    assert dry.by_rule["access_records"] == {"rule": "ACCESS", "destroyed": 3, "pseudonymised": 0}
    assert AccessRecord.objects.count() == 4

    first = retention_sweep(limit=2)
    assert first.by_rule["access_records"]["destroyed"] == 2
    assert not first.complete
    retention_sweep(limit=2)
    assert list(AccessRecord.objects.values_list("operator", flat=True)) == ["recent"]
