"""Demo orchestration across apps: seed and reset. Each app's own service does its part."""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.db import transaction

from orders.services import DemoAccounts, demo_accounts_ensure, shop_fixture_load, shop_fixture_read

# Rows that activity creates, deleted by reset (children first). Apps not installed are skipped.
ACTIVITY_MODELS = (
    "assist.Draft",
    "chat.ChatMessage",
    "chat.Conversation",
    "llm.LLMCall",
    "tickets.TicketMessage",
    "tickets.Ticket",
    "actions.ActionEvent",
    "actions.ActionRecord",
)


def demo_seed(*, password: str | None = None, knowledge: bool = True) -> tuple[dict[str, int], DemoAccounts]:
    data = shop_fixture_read(settings.FIXTURES_DIR / "shop.json")
    counts = shop_fixture_load(data=data, restore=False)
    accounts = demo_accounts_ensure(password=password or settings.CS_DEMO_PASSWORD)
    if knowledge:
        counts.update(demo_knowledge_seed())
    return counts, accounts


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
