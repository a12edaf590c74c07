"""What apps above tickets add to the staff ticket API (`tickets.apis`: /api/ops/tickets/ and its detail).

The staff API shows a ticket with what higher floors know about it (drafts: the newest draft's status in the
list, every draft in the detail). tickets may not import drafts, so an app registers a part from its own
`apis.py` at start-up: the fields it adds (schema included: drf-spectacular reads them like any other), the
permissions a reader needs to see them (the endpoint then requires them, as before), how it loads its data for a
whole page in a constant number of queries, and the serializer context its fields read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.db.models import QuerySet
    from rest_framework.request import Request
    from rest_framework.serializers import Field

    from tickets.models import Ticket


@dataclass(frozen=True)
class OpsTicketPart:
    key: str
    permissions: tuple[str, ...]  # needed, with the ticket's own, to read the list and the detail
    list_fields: Callable[[], dict[str, Field]]
    detail_fields: Callable[[], dict[str, Field]]
    list_queryset: Callable[[QuerySet], QuerySet] = field(default=lambda qs: qs)
    # Loads what the detail's fields read onto the ticket; returns extra serializer context.
    detail_load: Callable[[Ticket, Request], dict] = field(default=lambda ticket, request: {})


PARTS: dict[str, OpsTicketPart] = {}


def ops_ticket_part_register(part: OpsTicketPart) -> OpsTicketPart:
    PARTS[part.key] = part
    return part


def ops_ticket_parts() -> list[OpsTicketPart]:
    return list(PARTS.values())
