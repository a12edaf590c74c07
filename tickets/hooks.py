"""What apps above tickets plug into the operator's reply (`tickets.services.ticket_reply_send`).

The desk lives in tickets, which sits below the money-claim analyser's callers and below drafts and imports
neither (`actions | tickets` are independent, `drafts` is a floor up). So the reply names two hooks and the app
that owns each behaviour fills it in at start-up (`DraftsConfig.ready()`), as `actions.execution` lets the
integration app say who executes a refund:

- **the reply guard** `(*, text, customer_id, order_ids) -> [sentences]`: the sentences of an operator's own
  reply that promise a refund or cancellation the customer's records do not show
  (`actions.selectors.money_claims_unsupported`, wrapped by drafts). It fails closed: with no guard registered
  nothing is sent (409 `reply_unchecked`), and the system check `tickets.E001` says so at start-up.
- **reply-sent hooks** `(*, ticket, message, actor) -> None`, called in the reply's transaction after the
  ticket row is locked and the reply stored: drafts rejects the live draft the operator answered past and
  notes it on the ticket. A hook that raises undoes the reply.
- **reply-stored hooks**, same signature, called by `tickets.services.ticket_reply_add` for *every* operator
  answer (the reply box, the staff API and an applied draft alike), in its transaction: chat appends the answer
  to the conversation the ticket came from. A hook that raises undoes the answer.
- **the shop's own notice** `(customer_id) -> bool`: whether a connected shop tells this customer about an
  answer itself (it gets `ticket.replied`); the desk e-mails only the customers no shop speaks for. The
  integration app registers it; with none registered every customer is the desk's own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from common.actors import Person
    from tickets.models import Ticket, TicketMessage


class ReplyGuard(Protocol):
    def __call__(self, *, text: str, customer_id: str, order_ids: Sequence[str] | None) -> list[str]: ...


class ReplySent(Protocol):
    def __call__(self, *, ticket: Ticket, message: TicketMessage, actor: Person) -> None: ...


_guard: ReplyGuard | None = None
_shop_notifies: Callable[[str], bool] | None = None
# Keyed by name so that registering again (a re-imported module) replaces instead of adding a second call.
_reply_sent: dict[str, ReplySent] = {}


def reply_guard_register(guard: ReplyGuard | None) -> None:
    global _guard
    _guard = guard


def reply_guard() -> ReplyGuard | None:
    return _guard


def reply_sent_register(name: str, hook: ReplySent) -> None:
    _reply_sent[name] = hook


def reply_sent_hooks() -> list[Callable[..., None]]:
    return list(_reply_sent.values())


_reply_stored: dict[str, ReplySent] = {}


def reply_stored_register(name: str, hook: ReplySent) -> None:
    _reply_stored[name] = hook


def reply_stored_hooks() -> list[Callable[..., None]]:
    return list(_reply_stored.values())


def shop_notifies_register(fn: Callable[[str], bool] | None) -> None:
    global _shop_notifies
    _shop_notifies = fn


def shop_notifies(customer_id: str) -> bool:
    """Does a connected shop notify this customer itself (so the desk sends no e-mail)?"""
    return _shop_notifies(customer_id) if _shop_notifies is not None else False


class DataRequestRunner(Protocol):
    def __call__(self, *, customer_id: str, actor_label: str) -> dict: ...


# What runs a customer's data request of each kind (ACCESS: the export, ERASURE: the erasure), filled in by the app
# that can read every table (retention, a face) at start-up. A kind with no runner is carried out by a person.
_data_request_runners: dict[str, DataRequestRunner] = {}


def data_request_runner_register(kind: str, runner: DataRequestRunner) -> None:
    _data_request_runners[kind] = runner


def data_request_runner(kind: str) -> DataRequestRunner | None:
    return _data_request_runners.get(kind)
