"""Sections that apps on higher floors add to the ticket page (the admin Ticket change page) and its list.

The ticket page is the operator's desk: the conversation, the reply box and what is known about the customer.
Some of what belongs there lives above tickets (drafts' review panel with its send/reject buttons and the views
they post to; chat's requests for the customer and the link to the chat), and tickets may not import those
apps. So the page owns the slots and their layout, and an app above registers a section from its own admin
module (`drafts/admin.py`, `chat/admin.py`), the way `actions.record_sections` serves the approval record page:
data flows up through a named hook, never through an import pointing up, and no app replaces another's admin.

Slots: `ANSWER` sits beside the latest messages, above the operator's own reply box; a section there may take
the reply box's place (a live draft: its text box is what gets sent). `SIDE` is the side panel about the
customer. A section may add admin URLs (named `tickets_ticket_…`, mounted under the ticket admin) and the list
may take extra columns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.contrib.admin import AdminSite
    from django.db.models import QuerySet
    from django.http import HttpRequest
    from django.urls import URLPattern

    from tickets.models import Ticket

ANSWER = "answer"
SIDE = "side"


def _never(_context: dict) -> bool:
    return False


def _no_urls(_site: AdminSite) -> list[URLPattern]:
    return []


@dataclass(frozen=True)
class TicketSection:
    key: str  # the element id suffix: cs-section-<key>
    slot: str  # ANSWER or SIDE
    template: str  # rendered with the page's context plus what `context` returns
    context: Callable[[HttpRequest, Ticket], dict | None]  # None: nothing to show this user
    takes_reply: Callable[[dict], bool] = _never  # its own text box replaces the reply box (given its context)
    urls: Callable[[AdminSite], list[URLPattern]] = _no_urls


@dataclass(frozen=True)
class TicketColumn:
    """A column of the ticket list: `value(ticket)` (HTML-safe or plain text), shown to holders of `permission`;
    `queryset` loads what it reads for the whole page at once."""

    name: str  # the list_display key (and the cell's CSS class column-<name>)
    description: str
    value: Callable[[Ticket], Any]
    permission: str | None = None
    queryset: Callable[[QuerySet], QuerySet] = field(default=lambda qs: qs)


# In registration order, keyed so that a re-imported module replaces its section instead of adding a second.
SECTIONS: dict[str, TicketSection] = {}
COLUMNS: dict[str, TicketColumn] = {}


def ticket_section_register(section: TicketSection) -> TicketSection:
    if section.slot not in (ANSWER, SIDE):
        raise ValueError(f"unknown ticket page slot {section.slot!r}")
    SECTIONS[section.key] = section
    return section


def ticket_column_register(column: TicketColumn) -> TicketColumn:
    COLUMNS[column.name] = column
    return column


@dataclass(frozen=True)
class ShownSection:
    section: TicketSection
    context: dict


def ticket_sections_for(request: HttpRequest, ticket: Ticket, slot: str) -> list[ShownSection]:
    shown = []
    for section in SECTIONS.values():
        if section.slot != slot:
            continue
        context = section.context(request, ticket)
        if context is not None:
            shown.append(ShownSection(section, context))
    return shown


def ticket_section_urls(site: AdminSite) -> list[URLPattern]:
    return [url for section in SECTIONS.values() for url in section.urls(site)]


# The text an operator wrote and could not send comes back in the page's own reply box (never lost). A section
# whose own box is gone by then (a draft a colleague answered with) hands its text over here.
HELD_REPLY_KEY = "tickets.held_reply.{}"


def held_reply_keep(request: HttpRequest, ticket_id: int, text: str) -> None:
    request.session[HELD_REPLY_KEY.format(ticket_id)] = text


def held_reply_take(request: HttpRequest, ticket_id: int) -> str:
    return request.session.pop(HELD_REPLY_KEY.format(ticket_id), None) or ""


def last_seen_from(data) -> int | None:
    """The form's `last_seen_message_id` (the newest message on the writer's screen), or None."""
    value = (data.get("last_seen_message_id") or "").strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) < 19 else None
