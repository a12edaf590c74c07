"""Synthetic load data: many customers, orders, inquiries and pending refunds, fast.

Rows go in with `bulk_create`, one transaction per batch, bypassing the domain services on purpose: those
take row locks, write audit events one by one and, for tickets, enqueue AI draft work after commit. The rows
written here still satisfy every database constraint and the shapes the services produce (a ticket's first
message is the customer's, a pending refund has its audit event and `requested_on`).

Synthetic customers are `S` + 8 digits; their orders are `HR` + order date + 8-digit sequence. Numbering
continues after existing synthetic rows, so running twice adds more instead of colliding. The same seed on
the same database state gives the same rows.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import reset_queries, transaction
from django.db.models import Max
from django.db.models.functions import Substr
from tqdm import tqdm

from actions.models import ActionEvent, ActionRecord, ReasonCategory
from actions.selectors import return_windows
from common.actors import Actor
from common.clock import today
from orders.models import Customer, Order, ProductOption
from orders.services import shop_fixture_load, shop_fixture_read
from tickets.models import Ticket, TicketMessage

__all__ = ["CUSTOMER_PREFIX", "SyntheticResult", "synthetic_generate"]

CUSTOMER_PREFIX = "S"
CUSTOMER_ID_REGEX = r"^S[0-9]{8}$"
ORDER_ID_REGEX = r"^HR[0-9]{16}$"
ORDER_SEQ_START = 11  # 1-based position of the sequence in HR + YYYYMMDD + NNNNNNNN
MAX_ORDER_AGE_DAYS = 365

SURNAMES = "김이박최정강조윤장임한오서신권황안송류홍"
GIVEN = [
    "민준",
    "서연",
    "지훈",
    "수아",
    "도윤",
    "하은",
    "예준",
    "지우",
    "서준",
    "하린",
    "시우",
    "지민",
    "주원",
    "채원",
    "은우",
    "다은",
    "건우",
    "윤서",
    "현우",
    "소율",
]
PLACES = [
    ("서울특별시", "송파구", "올림픽로"),
    ("서울특별시", "마포구", "월드컵북로"),
    ("서울특별시", "강남구", "테헤란로"),
    ("부산광역시", "해운대구", "센텀중앙로"),
    ("대구광역시", "수성구", "동대구로"),
    ("인천광역시", "연수구", "송도과학로"),
    ("광주광역시", "서구", "상무중앙로"),
    ("대전광역시", "유성구", "대학로"),
    ("경기도", "성남시 분당구", "판교역로"),
    ("경기도", "고양시 일산동구", "중앙로"),
]
INQUIRIES: dict[str, list[tuple[str, str]]] = {
    Ticket.Category.DELIVERY: [
        ("배송이 늦어요", "주문한 상품이 아직 도착하지 않았어요. 언제 받을 수 있나요?"),
        ("배송 조회가 안 돼요", "송장번호로 조회해도 정보가 없다고 나옵니다."),
    ],
    Ticket.Category.EXCHANGE_RETURN: [
        ("사이즈 교환 문의", "사이즈가 맞지 않아서 한 치수 큰 걸로 바꾸고 싶어요."),
        ("반품 절차 문의", "포장을 뜯지 않았는데 반품하려면 어떻게 하나요?"),
    ],
    Ticket.Category.PAYMENT: [
        ("결제가 두 번 됐어요", "카드 결제 문자가 두 번 왔습니다. 확인 부탁드려요."),
        ("영수증 발급", "현금영수증을 발급받고 싶습니다."),
    ],
    Ticket.Category.ACCOUNT: [("로그인이 안 돼요", "비밀번호를 바꿨는데 계속 로그인이 실패합니다.")],
    Ticket.Category.ERROR: [
        ("결제 화면 오류", "결제하기 버튼을 누르면 오류가 나고 넘어가지 않아요."),
        ("앱이 멈춰요", "주문 내역 화면에서 앱이 멈춥니다."),
    ],
    Ticket.Category.COMPENSATION: [("상품이 파손되어 왔어요", "상자가 찌그러져 있고 제품에 흠집이 있습니다.")],
    Ticket.Category.OTHER: [("기타 문의", "선물 포장이 가능한지 궁금합니다.")],
}
INQUIRY_WEIGHTS = {
    Ticket.Category.DELIVERY: 30,
    Ticket.Category.EXCHANGE_RETURN: 25,
    Ticket.Category.PAYMENT: 12,
    Ticket.Category.ACCOUNT: 8,
    Ticket.Category.ERROR: 10,
    Ticket.Category.COMPENSATION: 5,
    Ticket.Category.OTHER: 10,
}
REFUND_REASONS = {
    ReasonCategory.DEFECT: "받은 제품에 흠집이 있어요",
    ReasonCategory.WRONG_ITEM: "주문한 옵션과 다른 제품이 왔어요",
    ReasonCategory.CHANGE_OF_MIND: "마음이 바뀌었어요",
}


@dataclass
class SyntheticResult:
    customers: int = 0
    orders: int = 0
    tickets: int = 0
    pending_actions: int = 0
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class _Option:
    option_id: int
    product_id: str
    product_name: str
    label: str
    price: Decimal


def synthetic_generate(
    *,
    customers: int,
    orders: int,
    inquiries: int = 0,
    pending_actions: int = 0,
    seed: int = 0,
    batch: int = 5000,
    progress: bool = False,
) -> SyntheticResult:
    """Add `customers` customers and `orders` orders spread over them (over existing synthetic customers
    when `customers` is 0), `inquiries` open tickets with a first customer message, and `pending_actions`
    pending REFUND records on recently delivered synthetic orders (one per order, as the constraint says)."""
    if min(customers, orders, inquiries, pending_actions) < 0 or batch < 1:
        raise ValueError("counts must be >= 0 and batch >= 1")
    on = today()
    result = SyntheticResult()
    options = _catalogue()

    started = time.monotonic()
    first = _next_number(Customer.objects.filter(customer_id__regex=CUSTOMER_ID_REGEX), "customer_id", 2)
    _insert(Customer, _customers(first, customers, random.Random(seed)), customers, batch, "customers", progress)
    result.customers = customers
    result.seconds["customers"] = time.monotonic() - started

    if customers:
        numbers = range(first, first + customers)
    else:
        numbers = sorted(
            int(cid[1:])
            for cid in Customer.objects.filter(customer_id__regex=CUSTOMER_ID_REGEX).values_list(
                "customer_id", flat=True
            )
        )
    if (orders or inquiries) and not numbers:
        raise ValueError("no synthetic customers to attach orders or inquiries to: pass --customers")

    started = time.monotonic()
    # A separate stream picks the orders that inquiries mention, so orders do not depend on --inquiries.
    sample: list[tuple[str, str]] = []
    if orders:
        seq = _next_number(Order.objects.filter(order_id__regex=ORDER_ID_REGEX), "order_id", ORDER_SEQ_START)
        rows = _orders(
            seq, orders, numbers, options, on, random.Random(seed + 1), sample, inquiries, random.Random(seed + 2)
        )
        _insert(Order, rows, orders, batch, "orders", progress)
    result.orders = orders
    result.seconds["orders"] = time.monotonic() - started

    started = time.monotonic()
    result.tickets = _tickets(inquiries, numbers, sample, random.Random(seed + 3), batch, progress)
    result.seconds["inquiries"] = time.monotonic() - started

    started = time.monotonic()
    result.pending_actions = _pending_refunds(pending_actions, on, random.Random(seed + 4), batch, progress)
    result.seconds["pending_actions"] = time.monotonic() - started
    return result


# --- helpers -------------------------------------------------------------------------------------
def _catalogue() -> list[_Option]:
    if not ProductOption.objects.exists():
        shop_fixture_load(data=shop_fixture_read(settings.FIXTURES_DIR / "shop.json"), restore=False)
    return [
        _Option(o.pk, o.product_id, o.product.name, o.label, o.product.price)
        for o in ProductOption.objects.select_related("product").order_by("product_id", "id")
    ]


def _next_number(queryset, field_name: str, start: int) -> int:
    """1 + the largest number already used (the zero-padded tail of the id, so text order is number order)."""
    top = queryset.aggregate(top=Max(Substr(field_name, start)))["top"]
    return int(top) + 1 if top else 1


def _insert(model, rows: Iterator, total: int, batch: int, label: str, progress: bool) -> None:
    with tqdm(total=total, desc=label, unit="row", disable=not progress, mininterval=0.5) as bar:
        for chunk in _chunks(rows, batch):
            with transaction.atomic():
                model.objects.bulk_create(chunk, batch_size=batch)
            reset_queries()  # with DEBUG=True Django keeps every statement (MBs per batch) in memory
            bar.update(len(chunk))


def _chunks(rows: Iterator, size: int) -> Iterator[list]:
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _customer_id(number: int) -> str:
    return f"{CUSTOMER_PREFIX}{number:08d}"


def _address(number: int) -> str:
    """A fixed home address per customer, derived from the number (no randomness to keep in step)."""
    city, district, road = PLACES[number % len(PLACES)]
    return f"{city} {district} {road} {number % 397 + 1}, {number % 23 + 1}{number % 9 + 1:02d}호"


def _customers(first: int, count: int, rng: random.Random) -> Iterator[Customer]:
    for number in range(first, first + count):
        yield Customer(
            customer_id=_customer_id(number),
            name=rng.choice(SURNAMES) + rng.choice(GIVEN),
            phone=f"010-{rng.randrange(2000, 10000)}-{rng.randrange(10000):04d}",
            email=f"s{number:08d}@example.com",
        )


def _orders(
    seq: int,
    count: int,
    numbers,
    options: list[_Option],
    on: date,
    rng: random.Random,
    sample: list[tuple[str, str]],
    sample_size: int,
    sample_rng: random.Random,
) -> Iterator[Order]:
    quantities, quantity_weights = (1, 2, 3), (80, 15, 5)
    for index in range(count):
        number = numbers[rng.randrange(len(numbers))]
        option = options[rng.randrange(len(options))]
        quantity = rng.choices(quantities, quantity_weights)[0]
        age = min(int(rng.expovariate(1 / 45)), MAX_ORDER_AGE_DAYS)  # most orders are recent
        ordered = on - timedelta(days=age)
        shipped = ordered + timedelta(days=rng.randint(1, 2))
        delivered = shipped + timedelta(days=rng.randint(1, 3))
        roll = rng.random()
        if on < shipped:
            status = Order.Status.PAID if age == 0 or roll < 0.3 else Order.Status.PREPARING
            shipped = delivered = None
        elif on < delivered:
            status, delivered = Order.Status.SHIPPING, None
        else:
            status = Order.Status.DELIVERED
        if roll > 0.95 and status in (Order.Status.PAID, Order.Status.PREPARING, Order.Status.DELIVERED):
            # Cancelled before shipping, or returned after delivery (dates kept, as in the shop fixture).
            if status == Order.Status.DELIVERED:
                status = Order.Status.RETURNED
            elif age >= 1:
                status = Order.Status.CANCELLED
        order_id = f"HR{ordered:%Y%m%d}{seq + index:08d}"
        customer_id = _customer_id(number)
        # Reservoir sampling: `sample_size` orders chosen uniformly, in one pass, for inquiries to mention.
        if index < sample_size:
            sample.append((order_id, customer_id))
        elif sample_size:
            slot = sample_rng.randrange(index + 1)
            if slot < sample_size:
                sample[slot] = (order_id, customer_id)
        yield Order(
            order_id=order_id,
            customer_id=customer_id,
            product_id=option.product_id,
            option_id=option.option_id,
            quantity=quantity,
            amount=option.price * quantity,
            status=status,
            shipping_address=_address(number),
            ordered_at=ordered,
            shipped_at=shipped,
            delivered_at=delivered,
        )


def _tickets(count: int, numbers, sample: list[tuple[str, str]], rng: random.Random, batch: int, progress: bool) -> int:
    """Open tickets (source API) whose first message is the customer's, inserted directly: no AI draft is
    requested for them (ticket_create would enqueue one per ticket)."""
    categories = list(INQUIRY_WEIGHTS)
    weights = list(INQUIRY_WEIGHTS.values())
    created = 0
    with tqdm(total=count, desc="inquiries", unit="row", disable=not progress, mininterval=0.5) as bar:
        for start in range(0, count, batch):
            size = min(batch, count - start)
            tickets, bodies = [], []
            for index in range(start, start + size):
                category = rng.choices(categories, weights)[0]
                subject, body = rng.choice(INQUIRIES[category])
                if index < len(sample) and rng.random() < 0.7:
                    order_id, customer_id = sample[index]
                    body = f"{order_id} {body}"
                else:
                    order_id, customer_id = None, _customer_id(numbers[rng.randrange(len(numbers))])
                tickets.append(
                    Ticket(
                        customer_id=customer_id,
                        category=category,
                        subject=subject,
                        order_id=order_id,
                        status=Ticket.Status.OPEN,
                        source=Ticket.Source.API,
                    )
                )
                bodies.append(body)
            with transaction.atomic():
                Ticket.objects.bulk_create(tickets, batch_size=batch)
                TicketMessage.objects.bulk_create(
                    [
                        TicketMessage(ticket=ticket, author_type=TicketMessage.Author.CUSTOMER, body=body)
                        for ticket, body in zip(tickets, bodies, strict=True)
                    ],
                    batch_size=batch,
                )
            created += size
            bar.update(size)
    return created


def _pending_refunds(count: int, on: date, rng: random.Random, batch: int, progress: bool) -> int:
    """PENDING refunds on synthetic orders delivered within the defect window that have no open money
    request yet (the one-pending-per-order constraint), as the approval queue sees them."""
    if not count:
        return 0
    windows = return_windows()
    busy = ActionRecord.objects.filter(status=ActionRecord.Status.PENDING, kind__in=ActionRecord.MONEY_KINDS).values(
        "order_id"
    )
    candidates = list(
        Order.objects.filter(
            order_id__regex=ORDER_ID_REGEX,
            status=Order.Status.DELIVERED,
            delivered_at__gte=on - timedelta(days=windows.defect_days),
            delivered_at__lte=on,
        )
        .exclude(order_id__in=busy)
        .order_by("order_id")
        .values_list("order_id", flat=True)
    )
    if len(candidates) < count:
        raise ValueError(
            f"only {len(candidates)} synthetic orders delivered in the last {windows.defect_days} days without an "
            f"open refund; asked for {count} pending refunds (generate more orders)"
        )
    chosen = sorted(rng.sample(candidates, count))
    del candidates
    created = 0
    with tqdm(total=count, desc="pending refunds", unit="row", disable=not progress, mininterval=0.5) as bar:
        for chunk in _chunks(iter(chosen), batch):
            details = (
                Order.objects.filter(order_id__in=chunk)
                .order_by("order_id")
                .values_list("order_id", "customer_id", "delivered_at", "amount", "product__name", "option__label")
            )
            records = []
            for order_id, customer_id, delivered_at, amount, product_name, option_label in details:
                recent = (on - delivered_at).days <= windows.return_days
                category = rng.choice(
                    list(REFUND_REASONS) if recent else [ReasonCategory.DEFECT, ReasonCategory.WRONG_ITEM]
                )
                reason = REFUND_REASONS[category]
                records.append(
                    ActionRecord(
                        customer_id=customer_id,
                        order_id=order_id,
                        kind=ActionRecord.Kind.REFUND,
                        status=ActionRecord.Status.PENDING,
                        reason_category=category,
                        requested_on=on,
                        detail={"reason_category": category, "reason": reason, "note": ""},
                        summary=f"{product_name} {option_label} · 결제 {amount:,}원 · 사유: "
                        f"{ReasonCategory(category).label} {reason}"[:500],
                    )
                )
            with transaction.atomic():
                ActionRecord.objects.bulk_create(records, batch_size=batch)
                ActionEvent.objects.bulk_create(
                    [
                        ActionEvent.transition(
                            record,
                            actor=Actor("CUSTOMER", f"{record.customer_id} (에이전트)"),
                            before="",
                            after=record.status,
                        )
                        for record in records
                    ],
                    batch_size=batch,
                )
            created += len(records)
            bar.update(len(records))
    return created
