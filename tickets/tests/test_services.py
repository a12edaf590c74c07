"""A customer message and its draft request are one transaction: both stored, or neither."""

import pytest
from django.db import transaction

from common.models import OutboxMessage
from orders.models import Customer
from tickets.services import DRAFT_REQUESTED, ticket_create, ticket_message_add

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def c005(shop):
    return Customer.objects.select_related("user").get(pk="C005")


def test_each_customer_message_writes_one_draft_request_with_its_ids(c005, settings):
    settings.CS_AI_DRAFTS_ENABLED = False  # the request, not the pipeline, is under test
    ticket = ticket_create(customer=c005, category="배송", subject="배송", body="언제?", source="API", author=c005.user)
    follow_up = ticket_message_add(ticket=ticket, body="아직이요?", author=c005.user)
    first = ticket.messages.order_by("id").first()
    # Only the draft requests: opening the ticket also writes one `shop.event` (ticket.created) for a shop.
    requests = OutboxMessage.objects.filter(topic=DRAFT_REQUESTED)
    rows = list(requests.order_by("id").values_list("topic", "dedupe_key", "payload"))
    assert rows == [
        (DRAFT_REQUESTED, f"draft.requested:{first.pk}", {"ticket_id": ticket.pk, "message_id": first.pk}),
        (DRAFT_REQUESTED, f"draft.requested:{follow_up.pk}", {"ticket_id": ticket.pk, "message_id": follow_up.pk}),
    ]
    assert set(requests.values_list("status", flat=True)) == {"DISPATCHED"}
    shop_event = f"shop.event:ticket.created:{ticket.pk}"
    assert OutboxMessage.objects.filter(topic="shop.event", dedupe_key=shop_event).exists()


def test_a_rolled_back_message_leaves_no_request(c005):
    with pytest.raises(RuntimeError), transaction.atomic():
        ticket_create(customer=c005, category="배송", subject="배송", body="언제?", source="API", author=c005.user)
        raise RuntimeError("the surrounding change failed")
    assert not OutboxMessage.objects.exists()
