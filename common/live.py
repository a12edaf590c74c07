"""Change cursors: one short token per page audience that moves whenever something the page shows may have
changed, so an open page asks a cheap question ("still this token?", answered 304) instead of reloading.

    live_topic_register("tickets", permission="tickets.view_ticket", events=..., customer_events=...)
    live_topic_extend("tickets", permission="drafts.view_draft", events=...)     # the app that owns the rows,
    live_topic_register("actions", permission="actions.view_actionrecord", ...)  # in AppConfig.ready

The token is read from the audit rows every state change already writes in its own transaction (common.audit:
`TicketEvent`, `ActionEvent`, `DraftEvent`): no extra write, no table of its own and nothing in Redis, so the
embedded default needs nothing more. Each source contributes its newest id and how many of its rows lie within
the last `WINDOW` ids: a transaction that took its id before a newer one but committed after it still moves the
token when it lands (a bare max(id) would not move, and that change would wait for the next one).

Audiences:
- staff: a topic (a page: the ticket list, the approval queue and the index counts) needs the permission of the
  list it refreshes; an extension (the ticket list's draft column) counts only for those holding its own;
- a customer: only the rows about their own tickets and requests, and the token says nothing but "changed"
  (keyed with SECRET_KEY, so it does not even reveal how many events the desk has).

The lower apps register their rows; nothing here imports an app.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from django.db.models import Count, Max, QuerySet, Subquery
from django.utils.crypto import salted_hmac

__all__ = [
    "UnknownTopic",
    "WINDOW",
    "change_marker",
    "live_counts",
    "live_customer_cursor",
    "live_staff_allowed",
    "live_staff_cursor",
    "live_staff_view",
    "live_view_cursor",
    "live_topic_extend",
    "live_topic_register",
    "live_topics",
]

# Rows behind the newest one that are still counted: far more than can commit out of order in practice.
WINDOW = 1000

Events = Callable[[], QuerySet]
CustomerEvents = Callable[[str], QuerySet]
Counts = Callable[[], dict[str, int]]


class UnknownTopic(ValueError):
    """A page asked for a topic nobody registered."""


@dataclass(frozen=True)
class _Source:
    permission: str
    events: Events


@dataclass
class _Topic:
    permission: str
    sources: list[_Source] = field(default_factory=list)
    customer_events: CustomerEvents | None = None
    counts: Counts | None = None


_registry: dict[str, _Topic] = {}


def live_topic_register(
    topic: str,
    *,
    permission: str,
    events: Events,
    customer_events: CustomerEvents | None = None,
    counts: Counts | None = None,
) -> None:
    """`topic` is readable by staff holding `permission`; `events` are the audit rows whose arrival means the
    topic's pages may show something new. `customer_events(customer_id)`: the same rows narrowed to one
    customer, for the customer's own cursor. `counts()`: figures the pages show in place (sent with a change)."""
    _registry[topic] = _Topic(
        permission=permission,
        sources=[_Source(permission, events)],
        customer_events=customer_events,
        counts=counts,
    )


def live_topic_extend(topic: str, *, permission: str, events: Events) -> None:
    """More rows for a registered topic, counted only for staff who also hold `permission` (a column of the
    list that only they see)."""
    _registry[topic].sources.append(_Source(permission, events))


def live_topics(raw: str | Iterable[str]) -> tuple[str, ...]:
    """'tickets,actions' → ('actions', 'tickets'); an unknown or empty name raises UnknownTopic."""
    names = raw.split(",") if isinstance(raw, str) else list(raw)
    topics = tuple(sorted({name.strip() for name in names}))
    if not topics or any(name not in _registry for name in topics):
        raise UnknownTopic(",".join(topics))
    return topics


def change_marker(events: QuerySet) -> tuple[int, int]:
    """(newest id, rows among the last WINDOW ids) of `events`, in one query on the primary key."""
    newest = events.order_by("-pk").values("pk")[:1]
    row = events.order_by().filter(pk__gt=Subquery(newest) - WINDOW).aggregate(top=Max("pk"), n=Count("pk"))
    return (row["top"] or 0, row["n"])


def _token(parts: Sequence[object]) -> str:
    return salted_hmac("common.live", repr(tuple(parts))).hexdigest()[:20]


def live_staff_allowed(user, topics: Sequence[str]) -> bool:
    """An active staff user holding the permission of every topic asked for (superusers hold all)."""
    if not (user and user.is_authenticated and user.is_active and user.is_staff):
        return False
    return all(user.has_perm(_registry[topic].permission) for topic in topics)


View = tuple[tuple[str, str], ...]


def live_staff_view(*, user, topics: Sequence[str]) -> View:
    """What `user` sees of `topics`: the (topic, permission) of every source counted for them. Users with the
    same view share one cursor. Call after `live_staff_allowed`."""
    return tuple(
        (topic, source.permission)
        for topic in topics
        for index, source in enumerate(_registry[topic].sources)
        if index == 0 or user.has_perm(source.permission)
    )


def live_view_cursor(view: View) -> str:
    """The token of a view (`live_staff_view`): one marker query per source."""
    parts: list[object] = []
    for topic, permission in view:
        source = next(s for s in _registry[topic].sources if s.permission == permission)
        parts.append((topic, permission, change_marker(source.events())))
    return _token(parts)


def live_staff_cursor(*, user, topics: Sequence[str]) -> str:
    """The token of `topics` as `user` sees them. Call after `live_staff_allowed`."""
    return live_view_cursor(live_staff_view(user=user, topics=topics))


def live_counts(*, topics: Sequence[str]) -> dict[str, int]:
    """The in-place figures of `topics` (e.g. the approval queue's pending and failed counts)."""
    out: dict[str, int] = {}
    for topic in topics:
        counts = _registry[topic].counts
        if counts is not None:
            out.update(counts())
    return out


def live_customer_cursor(*, customer_id: str) -> str:
    """The token of everything a customer's own pages show: rows about their own tickets and requests only."""
    parts = [
        (topic, change_marker(entry.customer_events(customer_id)))
        for topic, entry in sorted(_registry.items())
        if entry.customer_events is not None
    ]
    return _token(parts)
