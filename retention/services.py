"""Retention by rule: the periodic sweep that destroys or pseudonymises what expired, and a customer's requests
to see (`customer_data_export`) or erase (`customer_data_erase`) what is held on them (개인정보 보호법 제35–37조).

A face: it reads and changes every app's records, so it sits above them all; the sweep runs it from `ops.sweep`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models, transaction
from django.db.models import Q, QuerySet

from accounts.models import AuthToken
from actions.models import ActionEvent, ActionRecord
from chat.models import ChatMessage, Conversation, ToolCall
from common import clock
from common.errors import NotFound
from diagnostics.models import ServiceEvent
from drafts.models import DeadLetter, Draft, DraftEvent
from evals.models import DraftRating
from llm.models import LLMCall
from orders.models import Customer, Order, OrderEvent
from privacy.services import access_records_expired, access_records_purge
from retention import policy
from retention.models import RetentionMark, RetentionRun
from tickets.models import DataSubjectRequest, Ticket, TicketEvent, TicketMessage

log = logging.getLogger(__name__)

# What pseudonymised contact data reads as: the row stays, the person is no longer named in it.
ERASED = "(파기됨)"
ADDRESS_KEYS = ("new_address", "old_address", "address", "shipping_address")
FINISHED_ORDER_STATUSES = (Order.Status.DELIVERED, Order.Status.CANCELLED, Order.Status.RETURNED)


def _overrides() -> dict[str, int]:
    return dict(getattr(settings, "CS_RETENTION_YEARS", {}) or {})


def _cutoff(code: str, now: datetime) -> datetime:
    return policy.cutoff(now, code, _overrides())


# --- the sweep -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One kind of expiry: which rule, whether rows go or only lose contact data, how to find and treat them."""

    name: str
    rule: str
    destroys: bool
    candidates: Callable[[datetime], QuerySet]
    apply: Callable[[list], None]


def _tickets_expired(now: datetime) -> QuerySet:
    # A closed complaint's period runs from its closing; an open one is still being handled.
    return Ticket.objects.filter(status=Ticket.Status.CLOSED, closed_at__lt=_cutoff("COMPLAINT", now))


def _open_handoffs() -> QuerySet:
    return Ticket.objects.exclude(status=Ticket.Status.CLOSED).filter(chat_conversation_id__isnull=False)


def _conversations_expired(now: datetime) -> QuerySet:
    return Conversation.objects.filter(updated_at__lt=_cutoff("COMPLAINT", now)).exclude(
        id__in=_open_handoffs().values("chat_conversation_id")
    )


def _data_requests_expired(now: datetime) -> QuerySet:
    # A handled request (and the export it holds) is a record of a complaint's handling: kept as long, then gone.
    return DataSubjectRequest.objects.exclude(status=DataSubjectRequest.Status.OPEN).filter(
        done_at__lt=_cutoff("COMPLAINT", now)
    )


def _model_calls_expired(now: datetime) -> QuerySet:
    return LLMCall.objects.filter(created_at__lt=_cutoff(policy.model_call_rule(_overrides()), now))


def _service_events_expired(now: datetime) -> QuerySet:
    return ServiceEvent.objects.filter(occurred_at__lt=_cutoff("ACCESS", now))


def _money_cutoff(now: datetime) -> datetime:
    # An order carries its contract and every withdrawal or payment made on it: the longest of those periods.
    return min(_cutoff("CONTRACT", now), _cutoff("PAYMENT", now))


def _orders_expired(now: datetime) -> QuerySet:
    cut = _money_cutoff(now)
    recent = ActionRecord.objects.filter(created_at__gte=cut).values("order_id")
    return Order.objects.filter(ordered_at__lt=cut.date()).exclude(pk__in=recent)


def _orders_contact_expired(now: datetime) -> QuerySet:
    cut = _cutoff(policy.RECORD_RULES["contact"], now)
    recent_actions = ActionRecord.objects.filter(created_at__gte=cut).values("order_id")
    live_complaints = Ticket.objects.filter(Q(closed_at__isnull=True) | Q(closed_at__gte=cut), order__isnull=False)
    return (
        Order.objects.filter(ordered_at__lt=cut.date(), status__in=FINISHED_ORDER_STATUSES)
        .exclude(shipping_address=ERASED)
        .exclude(pk__in=recent_actions)
        .exclude(pk__in=live_complaints.values("order_id"))
        # Those past the money period go whole (the step before): a dry run must not count them twice.
        .exclude(pk__in=_orders_expired(now).values("pk"))
    )


def _customers_contact_expired(now: datetime) -> QuerySet:
    cut = _cutoff("COMPLAINT", now)
    return (
        Customer.objects.filter(created_at__lt=cut)
        .exclude(name=ERASED)
        .exclude(pk__in=Order.objects.filter(ordered_at__gte=cut.date()).values("customer_id"))
        .exclude(pk__in=Order.objects.exclude(status__in=FINISHED_ORDER_STATUSES).values("customer_id"))
        .exclude(pk__in=ActionRecord.objects.filter(created_at__gte=cut).values("customer_id"))
        .exclude(pk__in=Ticket.objects.filter(Q(closed_at__isnull=True) | Q(closed_at__gte=cut)).values("customer_id"))
        .exclude(pk__in=Conversation.objects.filter(updated_at__gte=cut).values("customer_id"))
    )


def _delete(model: type[models.Model]) -> Callable[[list], None]:
    def apply(pks: list) -> None:
        model.objects.filter(pk__in=pks).delete()

    return apply


def _orders_destroy(pks: list) -> None:
    # Action records protect their order: they go first (their events with them), then the order and its events.
    ActionRecord.objects.filter(order_id__in=pks).delete()
    Order.objects.filter(pk__in=pks).delete()


def _scrub(text: str, addresses: Iterable[str]) -> str:
    for address in addresses:
        if address and address != ERASED:
            text = text.replace(address, ERASED)
    return text


def _address_scrub(payload: dict) -> tuple[dict, list[str]]:
    found = [payload[key] for key in ADDRESS_KEYS if isinstance(payload.get(key), str)]
    return {key: (ERASED if key in ADDRESS_KEYS else value) for key, value in payload.items()}, found


def _orders_contact_remove(pks: list) -> None:
    """The order and what was done on it stay (amounts, dates, statuses); the addresses in them go."""
    for order in Order.objects.select_for_update().filter(pk__in=pks):
        addresses = [order.shipping_address]
        for record in ActionRecord.objects.select_for_update().filter(order=order):
            record.detail, found = _address_scrub(record.detail or {})
            addresses += found
            record.summary = _scrub(record.summary, addresses)[:500]
            record.save(update_fields=["detail", "summary"])
            for event in record.events.all():
                event.note = _scrub(event.note, addresses)[:500]
                event.save(update_fields=["note"])
        order.shipping_address = ERASED
        order.save(update_fields=["shipping_address"])


def _customer_contact_remove(customer: Customer) -> None:
    customer.name, customer.phone, customer.email = ERASED, "", ""
    customer.save(update_fields=["name", "phone", "email"])
    if customer.user_id:
        user = get_user_model().objects.get(pk=customer.user_id)
        user.first_name, user.last_name, user.email = "", "", ""
        user.save(update_fields=["first_name", "last_name", "email"])


def _customers_contact_remove(pks: list) -> None:
    for customer in Customer.objects.select_for_update().filter(pk__in=pks):
        _customer_contact_remove(customer)


def sweep_steps() -> list[Step]:
    return [
        Step("tickets", "COMPLAINT", True, _tickets_expired, _delete(Ticket)),
        Step("conversations", "COMPLAINT", True, _conversations_expired, _delete(Conversation)),
        Step("data_requests", "COMPLAINT", True, _data_requests_expired, _delete(DataSubjectRequest)),
        Step("model_calls", policy.model_call_rule(_overrides()), True, _model_calls_expired, _delete(LLMCall)),
        Step("service_events", "ACCESS", True, _service_events_expired, _delete(ServiceEvent)),
        # The access log keeps its own period (privacy, CS_ACCESS_LOG_RETENTION_DAYS) and its one way out: the
        # append-only table refuses any other DELETE.
        Step(
            "access_records",
            "ACCESS",
            True,
            lambda now: access_records_expired(now=now),
            lambda pks: access_records_purge(pks=list(pks)),
        ),
        Step("orders", "CONTRACT", True, _orders_expired, _orders_destroy),
        Step("order_contact", "COMPLAINT", False, _orders_contact_expired, _orders_contact_remove),
        Step("customer_contact", "COMPLAINT", False, _customers_contact_expired, _customers_contact_remove),
    ]


def retention_sweep(*, dry_run: bool = False, limit: int | None = None) -> RetentionRun:
    """One bounded pass: each step treats at most `limit` expired rows (CS_RETENTION_BATCH), so a large backlog
    is worked off over several passes; every pass, a dry run too, leaves one RetentionRun row. A dry run counts
    what would go and changes nothing else."""
    limit = int(limit or getattr(settings, "CS_RETENTION_BATCH", 500))
    now = clock.now()
    by_rule: dict[str, dict] = {}
    destroyed = pseudonymised = 0
    complete = True
    for step in sweep_steps():
        with transaction.atomic():
            pks = list(step.candidates(now).order_by("pk").values_list("pk", flat=True)[: limit + 1])
            complete = complete and len(pks) <= limit
            pks = pks[:limit]
            if pks and not dry_run:
                step.apply(pks)
        counted = len(pks)
        by_rule[step.name] = {
            "rule": step.rule,
            "destroyed": counted if step.destroys else 0,
            "pseudonymised": 0 if step.destroys else counted,
        }
        destroyed += by_rule[step.name]["destroyed"]
        pseudonymised += by_rule[step.name]["pseudonymised"]
    if not dry_run:
        # A mark outlives nothing: the row it marked is gone or its period is over.
        RetentionMark.objects.filter(keep_until__lt=now).delete()
    run = RetentionRun.objects.create(
        ran_at=now,
        dry_run=dry_run,
        destroyed=destroyed,
        pseudonymised=pseudonymised,
        by_rule=by_rule,
        complete=complete,
    )
    log.info(
        "retention.swept run_id=%s dry_run=%s destroyed=%s pseudonymised=%s complete=%s",
        run.pk,
        dry_run,
        destroyed,
        pseudonymised,
        complete,
    )
    return run


def retention_sweep_part() -> dict:
    """The periodic sweep's part (`ops.sweep`): a real pass, summarised."""
    run = retention_sweep()
    return {"destroyed": run.destroyed, "pseudonymised": run.pseudonymised}


# --- a customer's data ---------------------------------------------------------------------------------------

OPERATOR = "상담원"  # another person (staff) in the customer's records: named by role only
HIDDEN_FIELDS = {"accounts.AuthToken": {"digest", "password_fingerprint"}}


def customer_tables(customer: Customer) -> dict[str, QuerySet]:
    """Every table with rows about the customer, by model label, each with the rows about them."""
    cid = customer.pk
    return {
        "orders.Customer": Customer.objects.filter(pk=cid),
        "accounts.AuthToken": AuthToken.objects.filter(user_id=customer.user_id)
        if customer.user_id
        else AuthToken.objects.none(),
        "orders.Order": Order.objects.filter(customer_id=cid),
        "orders.OrderEvent": OrderEvent.objects.filter(order__customer_id=cid),
        "actions.ActionRecord": ActionRecord.objects.filter(customer_id=cid),
        "actions.ActionEvent": ActionEvent.objects.filter(record__customer_id=cid),
        "tickets.Ticket": Ticket.objects.filter(customer_id=cid),
        "tickets.TicketMessage": TicketMessage.objects.filter(ticket__customer_id=cid),
        "tickets.TicketEvent": TicketEvent.objects.filter(ticket__customer_id=cid),
        "tickets.DataSubjectRequest": DataSubjectRequest.objects.filter(customer_id=cid),
        "chat.Conversation": Conversation.objects.filter(customer_id=cid),
        "chat.ChatMessage": ChatMessage.objects.filter(conversation__customer_id=cid),
        "chat.ToolCall": ToolCall.objects.filter(message__conversation__customer_id=cid),
        "drafts.Draft": Draft.objects.filter(ticket__customer_id=cid),
        "drafts.DraftEvent": DraftEvent.objects.filter(draft__ticket__customer_id=cid),
        "drafts.DeadLetter": DeadLetter.objects.filter(ticket__customer_id=cid),
        "evals.DraftRating": DraftRating.objects.filter(draft__ticket__customer_id=cid),
        "diagnostics.ServiceEvent": ServiceEvent.objects.filter(customer_id=cid),
        "retention.RetentionMark": RetentionMark.objects.filter(customer_id=cid),
    }


def _row(obj: models.Model, label: str, own_user_id: int | None) -> dict:
    hidden = HIDDEN_FIELDS.get(label, set())
    user_model = get_user_model()
    row: dict = {}
    for field in obj._meta.concrete_fields:
        if field.name in hidden:
            continue
        value = field.value_from_object(obj)
        if field.is_relation and field.related_model is user_model:
            value = None if value is None else ("본인" if value == own_user_id else OPERATOR)
        elif field.name == "actor_label" and getattr(obj, "actor_type", "") not in ("CUSTOMER", "SYSTEM"):
            value = OPERATOR  # the operator's name concerns them, not the customer
        row[field.name] = value
    for field in obj._meta.many_to_many:
        row[field.name] = [str(item) for item in getattr(obj, field.name).all()]
    return row


def customer_data_export(*, customer_id: str) -> dict:
    """Everything held on the customer, table by table (제35조 열람). Others in it (staff) appear by role only."""
    customer = Customer.objects.filter(pk=customer_id).first()
    if customer is None:
        raise NotFound(f"고객을 찾을 수 없습니다: {customer_id}", code="customer_not_found")
    tables = {
        label: [_row(obj, label, customer.user_id) for obj in queryset.order_by("pk")]
        for label, queryset in customer_tables(customer).items()
    }
    data = {
        "customer_id": customer.pk,
        "exported_at": clock.now(),
        "tables": {label: rows for label, rows in tables.items() if rows},
    }
    log.info("retention.exported customer_id=%s tables=%s", customer.pk, len(data["tables"]))
    return json.loads(json.dumps(data, cls=DjangoJSONEncoder))


def _complaint_link_conversations(customer: Customer) -> set:
    """Conversations that are records of complaint handling: one handed to a person, or one in which the agent
    filed a request or a ticket. The rest (questions answered) no law keeps."""
    handed = set(
        Ticket.objects.filter(customer=customer, chat_conversation_id__isnull=False).values_list(
            "chat_conversation_id", flat=True
        )
    )
    acted = set(
        ToolCall.objects.filter(message__conversation__customer=customer)
        .filter(~Q(action_number="") | ~Q(ticket_number=""))
        .values_list("message__conversation_id", flat=True)
    )
    return handed | acted


def _mark(rows: list[tuple[str, object, str, datetime]], customer_id: str, now: datetime) -> None:
    for label, pk, rule, until in rows:
        RetentionMark.objects.update_or_create(
            model=label,
            object_pk=str(pk),
            defaults={"customer_id": customer_id, "rule": rule, "keep_until": until, "marked_at": now},
        )


def _as_datetime(day) -> datetime:
    if isinstance(day, datetime):
        return day
    return datetime(day.year, day.month, day.day, tzinfo=clock.SEOUL)


def customer_data_erase(*, customer_id: str, actor_label: str) -> dict:
    """Erase what no law requires keeping (제36조), pseudonymise the contact data, and mark every row kept with
    the rule that keeps it and until when (제21조제3항). Returns what went, what was pseudonymised, what stayed
    and why."""
    overrides = _overrides()
    now = clock.now()
    with transaction.atomic():
        customer = Customer.objects.select_for_update().filter(pk=customer_id).first()
        if customer is None:
            raise NotFound(f"고객을 찾을 수 없습니다: {customer_id}", code="customer_not_found")
        destroyed: dict[str, int] = {}
        pseudonymised: dict[str, int] = {}
        marks: list[tuple[str, object, str, datetime]] = []

        def until(start, code: str) -> datetime:
            return policy.keep_until(_as_datetime(start), code, overrides)

        # Operator aids and logs no law keeps: drafts (the reply sent is a ticket message), their ratings and
        # dead letters, the customer's request logs, and chats that handled no complaint.
        keep_conversations = _complaint_link_conversations(customer)
        gone = (
            DraftRating.objects.filter(draft__ticket__customer=customer),
            DeadLetter.objects.filter(ticket__customer=customer),
            Draft.objects.filter(ticket__customer=customer),
            ServiceEvent.objects.filter(customer=customer),
            Conversation.objects.filter(customer=customer).exclude(id__in=keep_conversations),
        )
        for queryset in gone:
            _, per_model = queryset.delete()
            for model_label, count in per_model.items():
                if count:
                    destroyed[model_label] = destroyed.get(model_label, 0) + count

        for conversation in Conversation.objects.filter(customer=customer):
            end = until(conversation.updated_at, "COMPLAINT")
            marks.append(("chat.Conversation", conversation.pk, "COMPLAINT", end))
            for message in conversation.messages.all():
                marks.append(("chat.ChatMessage", message.pk, "COMPLAINT", end))
                marks += [("chat.ToolCall", call.pk, "COMPLAINT", end) for call in message.tool_calls.all()]
        for ticket in Ticket.objects.filter(customer=customer):
            end = until(ticket.closed_at or now, "COMPLAINT")
            marks.append(("tickets.Ticket", ticket.pk, "COMPLAINT", end))
            marks += [
                ("tickets.TicketMessage", pk, "COMPLAINT", end) for pk in ticket.messages.values_list("pk", flat=True)
            ]
            marks += [
                ("tickets.TicketEvent", pk, "COMPLAINT", end) for pk in ticket.events.values_list("pk", flat=True)
            ]
        for request in DataSubjectRequest.objects.filter(customer=customer):
            marks.append(
                ("tickets.DataSubjectRequest", request.pk, "COMPLAINT", until(request.created_at, "COMPLAINT"))
            )
        for order in Order.objects.filter(customer=customer):
            end = until(order.ordered_at, "CONTRACT")
            marks.append(("orders.Order", order.pk, "CONTRACT", end))
            marks += [("orders.OrderEvent", pk, "CONTRACT", end) for pk in order.events.values_list("pk", flat=True)]
        for record in ActionRecord.objects.filter(customer=customer):
            rule = policy.action_rule(record.kind)
            end = until(record.created_at, rule)
            marks.append(("actions.ActionRecord", record.pk, rule, end))
            marks += [("actions.ActionEvent", pk, rule, end) for pk in record.events.values_list("pk", flat=True)]

        tokens, _ = AuthToken.objects.filter(user_id=customer.user_id).delete() if customer.user_id else (0, {})
        if tokens:
            destroyed["accounts.AuthToken"] = tokens
        if customer.user_id:
            get_user_model().objects.filter(pk=customer.user_id).update(is_active=False)
        _customer_contact_remove(customer)
        pseudonymised["orders.Customer"] = 1
        if marks:
            # The profile stays as the party of the contracts and complaints kept, under the longest of their rules.
            longest = max(marks, key=lambda mark: mark[3])
            marks.append(("orders.Customer", customer.pk, longest[2], longest[3]))
        _mark(marks, customer.pk, now)
        kept: dict[str, dict[str, int]] = {}
        for label, _pk, rule, _until in marks:
            kept.setdefault(label, {}).setdefault(rule, 0)
            kept[label][rule] += 1
    log.info(
        "retention.erased customer_id=%s destroyed=%s kept=%s actor=%s",
        customer_id,
        sum(destroyed.values()),
        len(marks),
        actor_label,
    )
    return {"customer_id": customer_id, "destroyed": destroyed, "pseudonymised": pseudonymised, "kept": kept}
