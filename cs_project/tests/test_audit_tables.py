"""The audit base (common.audit) owns what the event tables share: a row's title read from the subject the table
names, and the two kinds of foreign key to a staff user. No database: unsaved rows and model metadata."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import models

from actions.models import ActionEvent, ActionRecord
from common.actors import Actor
from drafts.models import Draft, DraftEvent
from orders.models import OrderEvent
from tickets.models import DataSubjectRequest, TicketEvent

SYSTEM = Actor.system("테스트")


@pytest.mark.parametrize(
    ("row", "title"),
    [
        (
            OrderEvent.build(order_id="HR20260722000001", type=OrderEvent.Type.SYNCED, actor=SYSTEM),
            "HR20260722000001 쇼핑몰 반영",
        ),
        (TicketEvent.build(ticket_id=12, type=TicketEvent.Type.REOPENED, actor=SYSTEM), "12 재접수(고객 추가 문의)"),
        (DraftEvent.build(draft_id=7, type=DraftEvent.Type.GENERATED, actor=SYSTEM), "D7 초안 생성"),
        (
            ActionEvent.build(record_id=3, from_status="PENDING", to_status="APPROVED", actor=SYSTEM),
            "승인대기 → 승인완료",
        ),
        (ActionEvent.build(record_id=3, to_status="DONE", actor=SYSTEM), "- → 완료"),
    ],
)
def test_an_event_row_is_titled_by_its_subject_and_kind(row, title):
    assert str(row) == title


@pytest.mark.parametrize("table", [OrderEvent, TicketEvent, DraftEvent, ActionEvent])
def test_every_event_table_names_its_subject_key(table):
    key = table._meta.get_field(table.subject_field)
    assert isinstance(key, models.ForeignKey) and key.remote_field.on_delete is models.CASCADE
    assert key.remote_field.related_name == "events"


@pytest.mark.parametrize(
    ("model", "field", "on_delete"),
    [
        (OrderEvent, "actor", models.SET_NULL),  # the row keeps the name in actor_label
        (DataSubjectRequest, "verified_by", models.SET_NULL),
        (ActionRecord, "decided_by", models.PROTECT),
        (Draft, "decided_by", models.PROTECT),
        (Draft, "override_by", models.PROTECT),
    ],
)
def test_who_acted_lets_the_account_go_and_who_decided_keeps_it(model, field, on_delete):
    key = model._meta.get_field(field)
    assert key.null and key.remote_field.on_delete is on_delete and key.remote_field.related_name == "+"


@pytest.mark.django_db
def test_the_models_match_the_migrations():
    """Shared column builders and abstract bases move declarations, never the schema: no migration is missing."""
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
