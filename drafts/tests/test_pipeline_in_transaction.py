"""A run started inside a caller's transaction (an eager run before the commit, as a test's on-commit capture)
keeps its stages in the caller's thread: they see the uncommitted ticket, and everything they write — the stage
results and the model-call log — goes with the caller's commit or rollback. Stage threads have their own
connections: they would not see the rows, and their call-log rows would survive the rollback."""

from __future__ import annotations

import pytest
from django.db import transaction

from drafts.models import Draft
from drafts.pipeline import draft_generate
from drafts.tests.support import inquiry
from llm.models import LLMCall

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_run_inside_a_transaction_writes_only_with_it(customer, offline_model):
    with pytest.raises(RuntimeError), transaction.atomic():
        ticket = inquiry(customer, "결제하려고 하면 계속 오류가 나요.", category="결제", subject="결제")
        message = ticket.messages.get()
        assert draft_generate(ticket_id=ticket.pk, message_id=message.pk) == "done"
        draft = Draft.objects.get(ticket=ticket)
        assert (draft.status, draft.draft_state, draft.qa_state, draft.confidence_state) == (
            "GENERATED", "DONE", "DONE", "DONE",
        )  # fmt: skip
        assert LLMCall.objects.count() >= 3
        raise RuntimeError("the caller rolls back")
    assert not Draft.objects.exists()
    assert not LLMCall.objects.exists()  # no stage thread committed a call-log row of its own
