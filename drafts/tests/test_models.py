"""Each kind of DraftEvent is built by its own classmethod beside the model: the rows keep the payload keys and
values the history and the admin read (no database: the builders return unsaved rows)."""

from __future__ import annotations

import pytest

from common.actors import Actor
from drafts.models import Draft, DraftEvent

SYSTEM = Actor.system("AI 초안 파이프라인")


def _draft(**fields) -> Draft:
    return Draft(pk=7, ticket_id=3, source_message_id=11, **fields)


@pytest.mark.parametrize(
    ("event", "type", "payload"),
    [
        (
            lambda: DraftEvent.created(_draft(), actor=SYSTEM),
            "CREATED",
            {"after": "PREPARING", "ticket_id": 3, "message_id": 11},
        ),
        (
            lambda: DraftEvent.generated(_draft(attempts=2), actor=SYSTEM, before="FAILED"),
            "GENERATED",
            {"before": "FAILED", "after": "GENERATED", "attempt": 2},
        ),
        (
            lambda: DraftEvent.failed(
                _draft(attempts=1, errors={"draft": "Timeout"}), actor=SYSTEM, before="PREPARING"
            ),
            "FAILED",
            {"before": "PREPARING", "after": "FAILED", "attempt": 1, "errors": {"draft": "Timeout"}},
        ),
        (
            lambda: DraftEvent.superseded(7, actor=SYSTEM, before="GENERATED", reason="newer_draft"),
            "SUPERSEDED",
            {"before": "GENERATED", "after": "SUPERSEDED", "reason": "newer_draft"},
        ),
        (
            lambda: DraftEvent.applied(_draft(applied="EDITED", edit_ratio=0.123456), actor=SYSTEM, tags=["배송"]),
            "APPLIED",
            {"before": "GENERATED", "after": "APPLIED", "applied": "EDITED", "edit_ratio": 0.1235, "tags": ["배송"]},
        ),
        (
            lambda: DraftEvent.overridden(_draft(), actor=SYSTEM, holds=("money_claim",), claims=1),
            "OVERRIDDEN",
            {"holds": ["money_claim"], "claims": 1},
        ),
        (
            lambda: DraftEvent.rejected(_draft(), actor=SYSTEM, tags=[]),
            "REJECTED",
            {"before": "GENERATED", "after": "REJECTED", "tags": []},
        ),
        (
            lambda: DraftEvent.rejected(_draft(), actor=SYSTEM, reason="own_reply"),
            "REJECTED",
            {"before": "GENERATED", "after": "REJECTED", "reason": "own_reply"},
        ),
    ],
)
def test_each_kind_of_draft_event_writes_its_payload_and_the_actors_columns(event, type, payload):
    row = event()
    assert (row.draft_id, row.type, row.payload) == (7, type, payload)
    assert list(row.payload) == list(payload)  # the keys in the order the history lists them
    assert (row.actor_type, row.actor_id, row.actor_label) == ("SYSTEM", None, "AI 초안 파이프라인")
