"""Every state change on action records. Rules come from `actions.policy`; this module applies them
to rows under locks and writes one audit event per change in the same transaction."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from django.db import IntegrityError, transaction

from actions import hooks, policy
from actions.errors import AlreadyDecided, NotApprovable, Refused, ResultInvalid
from actions.execution import ShopExecutor, order_executor
from actions.models import ActionEvent, ActionRecord, ReasonCategory
from actions.selectors import return_windows
from common import clock, events
from common.actors import Actor, Person
from common.clock import today
from common.errors import NotFound, PermissionDenied
from common.numbering import parse_number
from orders.models import Customer, Order, ProductOption
from orders.selectors import customer_order_get
from orders.services import order_address_change, order_cancel, order_return, stock_reserve

log = logging.getLogger(__name__)

DECIDE_PERMISSION = "actions.decide"
EXTERNAL_REF_MAX_LEN = 100  # what is kept of a shop's reference (the API takes no more)


def _event(record: ActionRecord, *, actor: Actor, from_status: str, to_status: str, note: str = "") -> None:
    ActionEvent.transition(record, actor=actor, before=from_status, after=to_status, note=note).save()


def _done_now(record: ActionRecord, *, actor: Actor, shop_event: str, **data: object) -> None:
    """Work done at once (an address change, an exchange): its audit row and the shop's event, in its transaction."""
    _event(record, actor=actor, from_status="", to_status=record.status)
    events.shop_event_emit(
        type=shop_event,
        key=str(record.pk),
        data={"action_id": record.number, "order_id": record.order_id, "customer_id": record.customer_id, **data},
    )


def _clean_text(value: object, *, limit: int = policy.REASON_MAX_LEN) -> str:
    return " ".join(str(value).split())[:limit] if value else ""


def _refuse(order: Order, decision: policy.Decision) -> Refused:
    return Refused(decision.reason, needs_clarification=decision.needs_clarification, status=order.status)


def _window_allowed(rule: Callable[..., policy.Decision], order: Order, *, on: date, category: str) -> policy.Decision:
    """`rule` (the exchange or refund window) on `order` as of `on`, with this shop's windows; refused: raised."""
    decision = rule(
        status=order.status,
        delivered_at=order.delivered_at,
        today=on,
        reason_category=category,
        windows=return_windows(),
    )
    if not decision.allowed:
        raise _refuse(order, decision)
    return decision


def address_change(*, customer: Customer, order_id: str, new_address: object, actor: Actor) -> ActionRecord:
    """직접 처리: change the shipping address of an order that has not shipped. The old address is kept."""
    with transaction.atomic():
        order = customer_order_get(customer=customer, order_id=order_id, for_update=True)
        decision = policy.address_change_decision(order.status)
        if not decision.allowed:
            raise _refuse(order, decision)
        address, problem = policy.normalize_address(new_address)
        if address is None:
            raise Refused(problem, status=order.status)
        old_address = order.shipping_address
        if address == old_address:
            raise Refused("이미 그 주소로 배송될 예정입니다.", status=order.status)
        record = ActionRecord.objects.create(
            customer=customer,
            order=order,
            kind=ActionRecord.Kind.ADDRESS_CHANGE,
            status=ActionRecord.Status.DONE,
            requested_on=today(),
            detail={"new_address": address, "old_address": old_address},
            summary=f"{order.product.name} 배송지를 '{address}'(으)로 변경",
        )
        order_address_change(order=order, address=address, actor=actor, reference=record.number)
        _done_now(
            record, actor=actor, shop_event=events.ACTION_ADDRESS_CHANGED, old_address=old_address, new_address=address
        )
    log.info("action.address_changed action_id=%s order_id=%s actor=%s", record.number, order.pk, actor.type)
    return record


def _match_option(order: Order, wanted: object) -> ProductOption | None:
    if not isinstance(wanted, str) or not wanted.strip():
        return None
    key = "".join(wanted.split()).lower()
    for option in order.product.options.all():
        if "".join(option.label.split()).lower() == key:
            return option
    return None


def exchange_request(
    *, customer: Customer, order_id: str, new_option: object, reason_category: object, reason: object, actor: Actor
) -> ActionRecord:
    """직접 처리: accept an exchange within the window and reserve one unit of the new option."""
    category = policy.parse_reason_category(reason_category) or ReasonCategory.UNCLEAR
    on = today()
    with transaction.atomic():
        order = customer_order_get(customer=customer, order_id=order_id, for_update=True)
        _window_allowed(policy.exchange_decision, order, on=on, category=category)
        option = _match_option(order, new_option)
        if option is None:
            labels = ", ".join(o.label for o in order.product.options.all())
            raise Refused(
                f"'{order.product.name}'에는 '{new_option}' 옵션이 없습니다. 선택 가능한 옵션: {labels}",
                status=order.status,
            )
        existing = ActionRecord.objects.filter(
            order=order, kind=ActionRecord.Kind.EXCHANGE, status=ActionRecord.Status.DONE
        ).first()
        if existing is not None:
            raise Refused(f"이미 교환이 접수된 주문입니다 (처리번호 {existing.number}).", status=order.status)
        try:
            with transaction.atomic():
                # Conditional decrement: the database, not a read-then-write, decides who gets the last unit.
                if not stock_reserve(order=order, option=option, actor=actor):
                    raise Refused(
                        f"'{option.label}' 옵션은 재고가 없어 교환을 접수할 수 없습니다.", status=order.status
                    )
                record = ActionRecord.objects.create(
                    customer=customer,
                    order=order,
                    kind=ActionRecord.Kind.EXCHANGE,
                    status=ActionRecord.Status.DONE,
                    reason_category=category,
                    requested_on=on,
                    reserved_option=option,
                    detail={
                        "old_option": order.option.label,
                        "new_option": option.label,
                        "reason_category": category,
                        "reason": _clean_text(reason),
                    },
                    summary=f"{order.product.name} {order.option.label} → {option.label} 교환 접수 · 사유: "
                    f"{ReasonCategory(category).label} {_clean_text(reason, limit=200)}".strip(),
                )
                _done_now(
                    record,
                    actor=actor,
                    shop_event=events.ACTION_EXCHANGE_ACCEPTED,
                    old_option=order.option.label,
                    new_option=option.label,
                    reason_category=category,
                )
        except IntegrityError:
            raise Refused("이미 교환이 접수된 주문입니다.", status=order.status) from None
    log.info("action.exchange_done action_id=%s order_id=%s option_id=%s", record.number, order.pk, option.pk)
    return record


@dataclass(frozen=True)
class RefundOutcome:
    record: ActionRecord
    created: bool


def refund_request(
    *,
    customer: Customer,
    order_id: str,
    reason_category: object,
    reason: object,
    note: object = "",
    actor: Actor,
) -> RefundOutcome:
    """승인 요청까지만: register a cancel (before shipping) or refund (delivered) as PENDING.

    Nothing is paid out here. A request already pending for the order is returned instead of a second
    one; the conditional unique constraint makes that hold under concurrency too.
    """
    category = policy.parse_reason_category(reason_category) or ReasonCategory.UNCLEAR
    order = customer_order_get(customer=customer, order_id=order_id)
    existing = _pending_money_request(order)
    if existing is not None:
        return RefundOutcome(existing, created=False)
    on = today()
    decision = _window_allowed(policy.refund_decision, order, on=on, category=category)
    kind = ActionRecord.Kind(decision.kind)
    reason_text = _clean_text(reason)
    note_text = _clean_text(note)
    summary = f"{order.product.name} {order.option.label} · 결제 {order.amount:,}원"
    if reason_text or kind == ActionRecord.Kind.REFUND:
        summary += f" · 사유: {ReasonCategory(category).label} {reason_text}".rstrip()
    if note_text:
        summary += f" · {note_text}"
    try:
        with transaction.atomic():
            record = ActionRecord.objects.create(
                customer=customer,
                order=order,
                kind=kind,
                status=ActionRecord.Status.PENDING,
                reason_category=category,
                requested_on=on,
                detail={"reason_category": category, "reason": reason_text, "note": note_text},
                summary=summary[:500],
            )
            _event(record, actor=actor, from_status="", to_status=record.status)
    except IntegrityError:
        existing = _pending_money_request(order)
        if existing is None:  # pragma: no cover - the conflicting row was decided in between
            raise
        return RefundOutcome(existing, created=False)
    log.info("action.requested action_id=%s kind=%s order_id=%s", record.number, kind, order.pk)
    return RefundOutcome(record, created=True)


def _pending_money_request(order: Order) -> ActionRecord | None:
    return ActionRecord.objects.filter(
        order=order, status=ActionRecord.Status.PENDING, kind__in=ActionRecord.MONEY_KINDS
    ).first()


def action_decide(*, number: str | int, approve: bool, actor: Person, note: str = "") -> ActionRecord:
    """A person approves or rejects a pending refund/cancel. Approval executes it, exactly once.

    Not reachable from the agent: it is not in the tool registry and needs the `decide` permission.
    """
    if actor is None or not actor.is_active or not actor.has_perm(DECIDE_PERMISSION):
        raise PermissionDenied("환불·취소 요청을 결정할 권한이 없습니다.")
    pk = parse_number("A", number)
    if pk is None:
        raise NotFound(f"처리번호 '{number}'을(를) 찾을 수 없습니다.")
    who = Actor.operator(actor)
    with transaction.atomic():
        record = ActionRecord.objects.select_for_update().filter(pk=pk).first()
        if record is None:
            raise NotFound(f"처리번호 '{number}'을(를) 찾을 수 없습니다.")
        if record.kind not in ActionRecord.MONEY_KINDS:
            raise NotApprovable(f"{record.number}은(는) 승인이 필요한 요청이 아닙니다.")
        if record.status != ActionRecord.Status.PENDING:
            raise AlreadyDecided(
                f"{record.number}은(는) 이미 '{record.get_status_display()}' 상태입니다. 다시 결정할 수 없습니다."
            )
        order = Order.objects.select_for_update().get(pk=record.order_id)
        old_status = record.status
        if approve:
            check = policy.approval_decision(
                kind=record.kind,
                status_now=order.status,
                delivered_at=order.delivered_at,
                requested_on=record.requested_on,
                reason_category=record.reason_category,
                windows=return_windows(),
            )
            if not check.allowed:
                raise NotApprovable(check.reason)
            record.refund_amount = order.amount
            executor = order_executor(order.pk)
            if executor is not None:
                # The shop moves the money and reports back (action_result_record); the order stays as it is.
                # A paused shop too: its request waits for it rather than the desk refunding in its place.
                record.status = ActionRecord.Status.EXECUTING
                event_note = _shop_request_note(executor, order.amount)
            else:
                event_note = _order_settle(order, record, actor=who)
                record.status = ActionRecord.Status.APPROVED
            events.shop_event_emit(
                type=events.ACTION_CANCEL_APPROVED
                if record.kind == ActionRecord.Kind.CANCEL
                else events.ACTION_REFUND_APPROVED,
                key=str(record.pk),
                data=_money_event_data(record, order),
            )
        else:
            record.status = ActionRecord.Status.REJECTED
            event_note = ""
            events.shop_event_emit(
                type=events.ACTION_REJECTED, key=str(record.pk), data=_money_event_data(record, order)
            )
        record.decided_by = actor
        record.decided_at = clock.now()  # the desk's clock: the refund deadline counts from it
        record.decision_note = _clean_text(note)
        record.save(update_fields=["status", "refund_amount", "decided_by", "decided_at", "decision_note"])
        _event(
            record,
            actor=who,
            from_status=old_status,
            to_status=record.status,
            note=" · ".join(p for p in (event_note, record.decision_note) if p),
        )
        for hook in hooks.outcome_hooks():
            hook(record=record, actor=who)
    log.info("action.decided action_id=%s status=%s actor_id=%s", record.number, record.status, actor.pk)
    return record


def _shop_request_note(executor: ShopExecutor, amount: object) -> str:
    note = f"쇼핑몰 처리 요청: 환불 {amount:,}원"
    if executor.paused:
        note += f" · 쇼핑몰 연동({executor.name})이 중지되어 있어 연동이 다시 켜지면 요청이 전달됩니다"
    return note


def _order_settle(order: Order, record: ActionRecord, *, actor: Actor) -> str:
    """The money went back: the order is cancelled (units back on the shelf) or returned, through `orders`
    (which writes the OrderEvent). Returns the note for the action's event."""
    order_before = order.status
    if record.kind == ActionRecord.Kind.CANCEL:
        order_cancel(order=order, actor=actor, reference=record.number)
    else:
        order_return(order=order, actor=actor, reference=record.number)
    return (
        f"주문 {order.pk}: {Order.Status(order_before).label} → {order.get_status_display()}, "
        f"환불 {record.refund_amount:,}원"
    )


def _money_event_data(record: ActionRecord, order: Order) -> dict:
    return {
        "action_id": record.number,
        "kind": record.kind,
        "status": record.status,
        "order_id": order.pk,
        "customer_id": record.customer_id,
        "amount": int(record.refund_amount) if record.refund_amount is not None else None,
        "reason_category": record.reason_category,
    }


def action_result_record(
    *,
    number: str | int,
    ok: bool,
    external_ref: str,
    amount: object = None,
    message: str = "",
    actor: Actor,
) -> tuple[ActionRecord, bool]:
    """The shop reports what became of an approved refund/cancel it was carrying out (EXECUTING): DONE, with
    the order settled, or FAILED. Returns (record, changed); the same report again changes nothing, and a
    record that is not EXECUTING (any more) refuses a different outcome. `external_ref` is compared and kept in
    one normalised form (trimmed, inner whitespace runs as one space), so a report sent twice is the same report
    however its reference was spaced. An amount above the order's is refused (ResultInvalid): a shop cannot
    refund more than was paid."""
    pk = parse_number("A", number)
    if pk is None:
        raise NotFound(f"처리번호 '{number}'을(를) 찾을 수 없습니다.")
    reference = _clean_text(external_ref, limit=EXTERNAL_REF_MAX_LEN)
    if not reference:
        raise ResultInvalid("쇼핑몰 처리번호(external_ref)를 입력해 주세요.")
    with transaction.atomic():
        record = ActionRecord.objects.select_for_update().filter(pk=pk).first()
        if record is None:
            raise NotFound(f"처리번호 '{number}'을(를) 찾을 수 없습니다.")
        wanted = ActionRecord.Status.DONE if ok else ActionRecord.Status.FAILED
        if record.status == wanted and record.detail.get("external_ref") == reference:
            return record, False
        if record.status != ActionRecord.Status.EXECUTING:
            raise AlreadyDecided(f"{record.number}은(는) '{record.status_label}' 상태라 처리 결과를 받을 수 없습니다.")
        order = Order.objects.select_for_update().get(pk=record.order_id)
        if amount is not None and amount > order.amount:
            raise ResultInvalid(
                f"환불 금액 {amount:,}원이 주문 {order.pk}의 결제 금액 {order.amount:,}원보다 큽니다. "
                "결제 금액 이하로 보고해 주세요.",
                code="amount_exceeds_order",
            )
        if ok:
            if amount is not None:
                record.refund_amount = amount
            note = _order_settle(order, record, actor=actor)
        else:
            note = "쇼핑몰 처리 실패"
        record.status = wanted
        record.detail = {**record.detail, "external_ref": reference}
        if message:
            record.detail["shop_message"] = _clean_text(message)
        record.save(update_fields=["status", "refund_amount", "detail"])
        _event(
            record,
            actor=actor,
            from_status=ActionRecord.Status.EXECUTING,
            to_status=record.status,
            note=" · ".join(p for p in (note, _clean_text(message)) if p),
        )
        for hook in hooks.outcome_hooks():
            hook(record=record, actor=actor)
    log.info("action.result action_id=%s status=%s", record.number, record.status)
    return record, True
