"""A small hand-made dataset with known timings, built straight with the ORM (no services, no pipeline).

Two Asia/Seoul days, D1 = 2026-07-26 and D2 = 2026-07-27. `test_selectors.EXPECTED` is computed by hand
from the tables below. `auto_now_add` columns are set afterwards with `.update()`.

Drafts (input, decided = KST; +draft/+qa/+conf = seconds after input_at; runs = attempts;
failed = the stage whose state is FAILED):

| draft | ticket  | input    | +draft | +qa | +conf | status    | applied   | ratio | decided  | runs | failed     |
|-------|---------|----------|--------|-----|-------|-----------|-----------|-------|----------|------|------------|
| d1    | T1 배송 | D1 10:00 | 2.5    | 5   | 8     | APPLIED   | UNCHANGED | 0.0   | D1 11:00 | 1    |            |
| d2    | T2 배송 | D1 12:00 | 4      | 10  | 12    | APPLIED   | EDITED    | 0.3   | D2 09:00 | 2    |            |
| d3    | T2 배송 | D2 00:30 | 6      | 9   | -     | REJECTED  |           |       | D2 01:00 | 1    | confidence |
| d4    | T4 오류 | D2 10:00 | -      | -   | -     | FAILED    |           |       |          | 3    | draft      |
| d5    | T1 배송 | D2 11:00 | 1.25   | 3   | 4     | APPLIED   | EDITED    | 0.5   | D2 12:00 | 1    |            |
| d6    | T3 결제 | D2 13:00 | 3      | -   | -     | GENERATED |           |       |          | 1    |            |
| d7    | T3 결제 | D2 14:00 | -      | -   | -     | PREPARING |           |       |          | 0    |            |
| d8    | T4 오류 | D1 09:00 | 3      | 7   | 9     | REJECTED  |           |       | D1 09:30 | 1    |            |

d2 was sent although held: an operator override is recorded on it (D2 09:00).

d3's input at D2 00:30 KST is D1 15:30 UTC (decided D2 01:00 KST = D1 16:00 UTC): it must land on D2,
as days are Seoul days, on SQLite and PostgreSQL alike.

Dead letters: T2 at D1 13:00 (resolved D1 14:00); T4 at D2 10:05 (unresolved).

Money requests (created → decided): REFUND D1 10:00 → APPROVED D1 10:30 (1,800 s);
CANCEL D1 20:00 → REJECTED D2 08:00 (43,200 s); REFUND D2 09:00 → REJECTED D2 09:10 (600 s);
REFUND D2 15:00 PENDING. Also an ADDRESS_CHANGE (DONE), which is not a money request.

Chat (assistant replies): D1 10:00 OK with get_my_orders ok + request_refund refused (7-day rule);
D1 22:00 MODEL_FAILED with a CHAT_FAILURE ticket T6; D2 00:10 (D1 15:10 UTC) CLAIM_BLOCKED with no tool
call; D2 10:00 BOUNDED with request_refund refused
(same reason), change_shipping_address refused (invalid_arguments), create_ticket ok (AGENT ticket T5).
One customer message on D1 (not a reply).

Tickets with SLA clocks (the rest are rows without them and are not counted): S1 opened D1 10:00, first reply
due 12:00, answered 11:00 (3,600 s, met); S2 opened D2 10:00, due 11:00, answered 12:00 (7,200 s, missed), closed
13:00 with resolution due 18:00 (met). The tests run with the desk open around the clock (conftest), so
business time is wall time here.

Ratings (CSAT): S1 (배송) 5 at D1 11:30; T4 (오류) 1 at D2 00:20 (D1 15:20 UTC: a D2 rating); S2 (배송) 2 at D2 13:30.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model

from actions.models import ActionRecord
from chat.models import ChatMessage, Conversation, ToolCall
from common.clock import SEOUL
from drafts.models import DeadLetter, Draft, StageState
from orders.models import Customer, Order, Product, ProductOption
from tickets.models import Ticket, TicketMessage, TicketRating

REFUSED_7_DAYS = "단순변심 환불은 배송완료 후 7일 이내에만 가능합니다."
REFUSED_ARGS = "도구 인자가 올바르지 않습니다: address"


def kst(day: int, hour: int, minute: int = 0) -> datetime:
    """D1 = 2026-07-26, D2 = 2026-07-27, Asia/Seoul."""
    return datetime(2026, 7, 25 + day, hour, minute, tzinfo=SEOUL)


@dataclass
class Dataset:
    staff: object
    customer: Customer


def build_dataset(tag: str = "") -> Dataset:
    """The dataset above. `tag` makes ids unique so that it can be built several times (query-count test)."""
    staff, _ = get_user_model().objects.get_or_create(username="metrics-staff", defaults={"is_staff": True})
    customer = Customer.objects.create(customer_id=f"CM{tag}", name="지표 고객")
    product = Product.objects.create(product_id=f"PM{tag}", name="텀블러", price=38000)
    option = ProductOption.objects.create(product=product, label="기본", stock=5)
    orders = [
        Order.objects.create(
            order_id=f"OM{tag}-{i}",
            customer=customer,
            product=product,
            option=option,
            amount=38000,
            status=Order.Status.PAID,
            shipping_address="서울",
            ordered_at=kst(1, 0).date(),
        )
        for i in range(3)
    ]

    def ticket(category: str, source: str = Ticket.Source.API, created_at: datetime | None = None) -> Ticket:
        t = Ticket.objects.create(customer=customer, category=category, subject="문의", source=source)
        if created_at:
            Ticket.objects.filter(pk=t.pk).update(created_at=created_at)
        return t

    t1 = ticket(Ticket.Category.DELIVERY)
    t2 = ticket(Ticket.Category.DELIVERY)
    t3 = ticket(Ticket.Category.PAYMENT)
    t4 = ticket(Ticket.Category.ERROR)
    t5 = ticket(Ticket.Category.CALLBACK, Ticket.Source.AGENT, kst(2, 10))
    t6 = ticket(Ticket.Category.OTHER, Ticket.Source.CHAT_FAILURE, kst(1, 22))
    ticket(Ticket.Category.DELIVERY, Ticket.Source.STAFF, kst(2, 11))  # not an escalation

    def sla_ticket(created_at: datetime, due: tuple[datetime, datetime], responded: datetime, **done) -> Ticket:
        """A delivery inquiry with its SLA clocks as the desk left them: `due` = (first response, resolution)
        deadlines, `done` = its status and when it got there (answered_at or closed_at)."""
        row = ticket(Ticket.Category.DELIVERY, created_at=created_at)
        Ticket.objects.filter(pk=row.pk).update(
            first_response_due_at=due[0], first_responded_at=responded, resolution_due_at=due[1], **done
        )
        return row

    s1 = sla_ticket(
        kst(1, 10), (kst(1, 12), kst(1, 18)), kst(1, 11), status=Ticket.Status.ANSWERED, answered_at=kst(1, 11)
    )
    s2 = sla_ticket(kst(2, 10), (kst(2, 11), kst(2, 18)), kst(2, 12), status=Ticket.Status.CLOSED, closed_at=kst(2, 13))
    for rated, score, comment, at in ((s1, 5, "", kst(1, 11, 30)), (t4, 1, "해결이 안 됐어요", kst(2, 0, 20))):
        TicketRating.objects.create(ticket=rated, score=score, comment=comment, category=rated.category, created_at=at)
    TicketRating.objects.create(ticket=s2, score=2, comment="늦었어요", category=s2.category, created_at=kst(2, 13, 30))

    messages: dict[int, list[TicketMessage]] = {}

    def draft(t: Ticket, input_at: datetime, timings: tuple, status: str, attempts: int, **fields) -> Draft:
        source = TicketMessage.objects.create(ticket=t, author_type=TicketMessage.Author.CUSTOMER, body="고객 입력")
        messages.setdefault(t.pk, []).append(source)
        at = [None if s is None else input_at + timedelta(seconds=s) for s in timings]
        states = {
            f"{stage}_state": StageState.DONE if done else StageState.PENDING
            for stage, done in (("draft", at[0]), ("qa", at[1]), ("confidence", at[2]))
        }
        states.update({key: value for key, value in fields.items() if key.endswith("_state")})
        rest = {key: value for key, value in fields.items() if not key.endswith("_state")}
        return Draft.objects.create(
            ticket=t,
            source_message=source,
            status=status,
            input_at=input_at,
            draft_at=at[0],
            qa_at=at[1],
            confidence_at=at[2],
            attempts=attempts,
            **states,
            **rest,
        )

    applied, rejected = Draft.Status.APPLIED, Draft.Status.REJECTED
    unchanged, edited = Draft.Applied.UNCHANGED, Draft.Applied.EDITED
    by = {"decided_by": staff}
    draft(t1, kst(1, 10), (2.5, 5, 8), applied, 1, applied=unchanged, edit_ratio=0.0, decided_at=kst(1, 11), **by)
    draft(
        t2, kst(1, 12), (4, 10, 12), applied, 2, applied=edited, edit_ratio=0.3, decided_at=kst(2, 9),
        override_reason="담당자 확인", override_by=staff, override_at=kst(2, 9), override_holds=["money_claim"], **by,
    )  # fmt: skip
    draft(t2, kst(2, 0, 30), (6, 9, None), rejected, 1, decided_at=kst(2, 1), confidence_state=StageState.FAILED, **by)
    draft(
        t4, kst(2, 10), (None, None, None), Draft.Status.FAILED, 3,
        draft_state=StageState.FAILED, errors={"draft": "timeout"},
    )  # fmt: skip
    draft(t1, kst(2, 11), (1.25, 3, 4), applied, 1, applied=edited, edit_ratio=0.5, decided_at=kst(2, 12), **by)
    draft(t3, kst(2, 13), (3, None, None), Draft.Status.GENERATED, 1)
    draft(t3, kst(2, 14), (None, None, None), Draft.Status.PREPARING, 0)
    draft(t4, kst(1, 9), (3, 7, 9), rejected, 1, decided_at=kst(1, 9, 30), **by)

    for t, created_at, resolved_at in ((t2, kst(1, 13), kst(1, 14)), (t4, kst(2, 10, 5), None)):
        dead = DeadLetter.objects.create(
            ticket=t, source_message=messages[t.pk][0], error="timeout", retries=2, resolved_at=resolved_at
        )
        DeadLetter.objects.filter(pk=dead.pk).update(created_at=created_at)

    def action(order: Order, kind: str, status: str, created_at: datetime, decided_at: datetime | None = None) -> None:
        record = ActionRecord.objects.create(
            customer=customer,
            order=order,
            kind=kind,
            status=status,
            summary="요청",
            requested_on=created_at.date(),
            refund_amount=38000 if status == ActionRecord.Status.APPROVED else None,
            decided_at=decided_at,
            decided_by=staff if decided_at else None,
        )
        ActionRecord.objects.filter(pk=record.pk).update(created_at=created_at)

    kind, st = ActionRecord.Kind, ActionRecord.Status
    action(orders[0], kind.REFUND, st.APPROVED, kst(1, 10), kst(1, 10, 30))
    action(orders[1], kind.CANCEL, st.REJECTED, kst(1, 20), kst(2, 8))
    action(orders[0], kind.REFUND, st.REJECTED, kst(2, 9), kst(2, 9, 10))
    action(orders[2], kind.REFUND, st.PENDING, kst(2, 15))
    action(orders[1], kind.ADDRESS_CHANGE, st.DONE, kst(2, 16))

    conversation = Conversation.objects.create(customer=customer)

    def reply(at: datetime, outcome: str, calls: list[tuple], ticket: Ticket | None = None) -> None:
        message = ChatMessage.objects.create(
            conversation=conversation, role=ChatMessage.Role.ASSISTANT, content="답변", outcome=outcome, ticket=ticket
        )
        ChatMessage.objects.filter(pk=message.pk).update(created_at=at)
        for tool, ok, error, reason, ticket_number in calls:
            call = ToolCall.objects.create(
                message=message, tool=tool, ok=ok, error=error, reason=reason, ticket_number=ticket_number
            )
            ToolCall.objects.filter(pk=call.pk).update(created_at=at)

    customer_turn = ChatMessage.objects.create(
        conversation=conversation, role=ChatMessage.Role.CUSTOMER, content="환불"
    )
    ChatMessage.objects.filter(pk=customer_turn.pk).update(created_at=kst(1, 9, 59))
    reply(
        kst(1, 10),
        ChatMessage.Outcome.OK,
        [("get_my_orders", True, "", "", ""), ("request_refund", False, "", REFUSED_7_DAYS, "")],
    )
    reply(kst(1, 22), ChatMessage.Outcome.MODEL_FAILED, [], ticket=t6)
    reply(kst(2, 0, 10), ChatMessage.Outcome.CLAIM_BLOCKED, [])  # D1 15:10 UTC: a Seoul D2 reply
    reply(
        kst(2, 10),
        ChatMessage.Outcome.BOUNDED,
        [
            ("request_refund", False, "", REFUSED_7_DAYS, ""),
            ("change_shipping_address", False, "invalid_arguments", REFUSED_ARGS, ""),
            ("create_ticket", True, "", "", t5.number),
        ],
    )
    return Dataset(staff=staff, customer=customer)
