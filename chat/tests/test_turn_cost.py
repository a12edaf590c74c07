"""What a turn costs us as a conversation grows: its stored messages are masked once, not again every turn.

Driven through the real API and the real openai client against the scripted model; the masking work is counted
where it happens (`common.redaction._redact_now`, the regex pass), with the code unchanged."""

import uuid

import pytest
from django.core.cache import cache

from common import redaction
from llm.testing import text_message
from testsupport.counting import calls_counted

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()


def _turn(api, scripted_model, conversation_id: str | None) -> tuple[str, int]:
    # Words no earlier test sent: the process-wide memory of masked texts cannot have seen them.
    scripted_model.push(text_message(f"네, 확인했습니다. {uuid.uuid4().hex}"))
    body = {"message": f"문의드립니다 {uuid.uuid4().hex}"}
    if conversation_id:
        body["conversation_id"] = conversation_id
    with calls_counted(redaction._redact_now) as counts:
        response = api.post("/api/chat/", body, format="json")
    assert response.status_code == 200
    return response.json()["conversation_id"], counts["_redact_now"]


def test_a_turn_masks_only_what_is_new_however_long_the_conversation(customer_api, scripted_model):
    conversation_id, _ = _turn(customer_api, scripted_model, None)
    masked = []
    for _ in range(8):
        conversation_id, count = _turn(customer_api, scripted_model, conversation_id)
        masked.append(count)
    # Per turn: the new message (as the current turn, then on the wire) and the previous turn's two messages in
    # their history form; never the whole history again.
    assert max(masked) <= 8, masked
    assert masked[-1] == masked[1]
