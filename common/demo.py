"""Demo orchestration across apps: seed and reset. Each app's own service does its part."""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.db import transaction
from django.db.models import F

from orders.services import DemoAccounts, demo_accounts_ensure, shop_fixture_load, shop_fixture_read

# Rows that activity creates, deleted by reset (children first). Apps not installed are skipped.
ACTIVITY_MODELS = (
    "common.OutboxMessage",
    "drafts.DeadLetter",
    "drafts.TicketLease",
    "drafts.Draft",
    "chat.ChatMessage",
    "chat.Conversation",
    "llm.LLMCall",
    "tickets.TicketMessage",
    "tickets.Ticket",
    "actions.ActionEvent",
    "actions.ActionRecord",
)


def demo_seed(
    *, password: str | None = None, knowledge: bool = True, inquiries: bool = False, progress=iter
) -> tuple[dict[str, int], DemoAccounts]:
    data = shop_fixture_read(settings.FIXTURES_DIR / "shop.json")
    counts = shop_fixture_load(data=data, restore=False)
    accounts = demo_accounts_ensure(password=password or settings.CS_DEMO_PASSWORD)
    if knowledge:
        counts.update(demo_knowledge_seed())
    if inquiries:
        counts["inquiries"] = demo_inquiries_seed(progress=progress)
    return counts, accounts


def demo_inquiries_seed(*, progress=iter) -> int:
    """Open the demo inquiries of fixtures/demo_inquiries.json through the real services, so their drafts
    come from the pipeline (in-process and offline by default; a worker's job when REDIS_URL is set).

    Each message is placed at its story time in the demo world (the error inquiries must fall in their
    service events' window) before the pipeline reads it; once a draft exists, its stage timestamps are
    moved back with it, keeping the measured durations. Idempotent: an inquiry already there is skipped.
    """
    import json
    from datetime import datetime

    from orders.models import Customer
    from tickets.models import Ticket, TicketMessage
    from tickets.services import ticket_create, ticket_message_add

    rows = json.loads((settings.FIXTURES_DIR / "demo_inquiries.json").read_text(encoding="utf-8"))["inquiries"]
    created = 0
    for row in progress(rows):
        at = datetime.fromisoformat(row["at"])
        customer = Customer.objects.select_related("user").get(pk=row["customer_id"])
        if Ticket.objects.filter(customer=customer, subject=row["subject"], created_at=at).exists():
            continue
        with transaction.atomic():  # the draft task is enqueued on commit, after the back-dating
            ticket = ticket_create(
                customer=customer,
                category=row["category"],
                subject=row["subject"],
                body=row["body"],
                source=Ticket.Source.API,
                author=customer.user,
            )
            Ticket.objects.filter(pk=ticket.pk).update(created_at=at, updated_at=at)
            TicketMessage.objects.filter(ticket=ticket).update(created_at=at)
        _draft_times_backdate(ticket.pk)
        for follow_up in row.get("follow_ups", []):
            with transaction.atomic():
                message = ticket_message_add(ticket=ticket, body=follow_up["body"], author=customer.user)
                TicketMessage.objects.filter(pk=message.pk).update(created_at=datetime.fromisoformat(follow_up["at"]))
            _draft_times_backdate(ticket.pk)
        created += 1
    return created


def _draft_times_backdate(ticket_id: int) -> None:
    from drafts.models import Draft

    for draft in Draft.objects.filter(ticket_id=ticket_id, draft_at__isnull=False, created_at__gt=F("input_at")):
        shift = draft.created_at - draft.input_at
        fields = {
            name: getattr(draft, name) - shift
            for name in ("draft_at", "qa_at", "confidence_at")
            if getattr(draft, name)
        }
        Draft.objects.filter(pk=draft.pk).update(created_at=draft.input_at, **fields)


def demo_knowledge_seed() -> dict[str, int]:
    """Tags, FAQ and documents (indexed for Korean search), and the service-event store."""
    import json

    from diagnostics.services import service_events_fixture_load
    from knowledge.selectors import index_status
    from knowledge.services import knowledge_fixture_load, knowledge_index_build
    from tickets.models import Tag

    names = json.loads((settings.FIXTURES_DIR / "tags.json").read_text(encoding="utf-8"))
    tags = sum(Tag.objects.get_or_create(name=name)[1] for name in names)
    knowledge_fixture_load(directory=settings.FIXTURES_DIR / "knowledge")
    chunks = 0 if index_status()["built"] else knowledge_index_build()
    events = service_events_fixture_load(path=settings.FIXTURES_DIR / "service_events.json")
    return {"tags": tags, "knowledge_chunks": chunks, "service_events": events}


@transaction.atomic
def demo_reset() -> dict[str, int]:
    """Remove every action record, ticket and conversation; put orders and stock back to the fixture."""
    deleted: dict[str, int] = {}
    for label in ACTIVITY_MODELS:
        try:
            model = apps.get_model(label)
        except LookupError:
            continue
        deleted[label], _ = model.objects.all().delete()
    shop_fixture_load(data=shop_fixture_read(settings.FIXTURES_DIR / "shop.json"), restore=True)
    return deleted
