"""The chat agent's tools. The customer is bound when a turn's registry is made; no tool takes a customer id,
and arguments outside a tool's schema are ignored. Every decision is made by the services and policy of the
apps below, never by the model. `action_decide` is deliberately not here.

A tool is one function, its arguments' schema and one registration:

    class OrderArgs(_Args):
        order_id: str = Field(description="주문번호", min_length=1, max_length=32)

    @agent_tool("고객 본인의 주문 하나를 조회한다.", label="주문 상세 조회")
    def get_order(ctx: ToolContext, args: OrderArgs) -> dict:
        order = customer_order_get(customer=ctx.customer, order_id=args.order_id)
        return {"ok": True, **order_brief(order, today())}

The function's name is the tool's English name, what the model calls and what `ToolCall.tool` stores; its `args`
annotation is the schema. `label` is the tool's Korean name, the one people read: operators (the tool-call admin,
the metrics dashboard) and customers (the result cards of the chat page and the widget, through
`ToolResult.tool_label`). `ToolRegistry.call` validates the
arguments against the schema and turns domain errors into results the model can read (docs/ARCHITECTURE.md,
"Adding an agent tool")."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from functools import cache
from typing import Annotated, Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from actions import services
from actions.errors import Refused
from actions.models import ActionRecord
from actions.policy import customer_status_message, days_since
from actions.selectors import (
    action_record_list,
    action_record_summary_masked,
    money_claims_strip,
)
from chat.selectors import money_request_refused
from common.actors import Actor
from common.business_hours import WEEKDAY_NAMES, after_hours_notice, business_calendar
from common.choices import choice_parse
from common.clock import SEOUL, now, today
from common.errors import DomainError, NotFound
from common.numbering import parse_number
from orders.models import Customer, Order
from orders.selectors import customer_order_get
from tickets.models import DataSubjectRequest, Ticket
from tickets.selectors import customer_ticket_list
from tickets.services import (
    data_request_open,
    review_ticket_open,
    ticket_create,
    ticket_handoff_get_or_create,
    ticket_message_add,
)

log = logging.getLogger(__name__)

REASON_CHOICES = ["단순변심", "상품하자", "오배송", "확인필요"]
CLARIFY_CHOICES = ["단순변심", "상품하자", "오배송"]
MONEY_TOOLS = frozenset({"request_refund"})  # the tools that ask for money back (a refund or a cancellation)
MAX_ORDERS_LISTED = 20
MAX_REQUESTS_LISTED = 20


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class NoArgs(_Args):
    pass


class ChangeAddressArgs(_Args):
    order_id: str = Field(description="주문번호 (예: HR20260721001)", min_length=1, max_length=32)
    new_address: str = Field(description="새 배송지 전체 주소", max_length=300)


# The arguments every request about one order takes: which order, and why (read from the whole sentence).
OrderId = Annotated[str, Field(description="주문번호", min_length=1, max_length=32)]
ReasonCategory = Annotated[
    str,
    Field(
        default="확인필요",
        description="문장 전체의 의미로 분류한 사유: 단순변심, 상품하자, 오배송, 확인필요(불명확할 때)",
        json_schema_extra={"enum": REASON_CHOICES},
    ),
]
Reason = Annotated[str, Field(default="", description="고객이 말한 사유 원문 요약", max_length=500)]


class ExchangeArgs(_Args):
    order_id: OrderId
    new_option: str = Field(description="교환받을 옵션 (예: 블랙/260). 같은 상품의 옵션만 가능", max_length=50)
    reason_category: ReasonCategory
    reason: Reason


class RefundArgs(_Args):
    order_id: OrderId
    reason_category: ReasonCategory
    reason: Reason
    note: str = Field(default="", description="담당자에게 남길 메모 (선택)", max_length=500)


class TicketArgs(_Args):
    category: str = Field(
        default="기타",
        description="분류: 배송, 교환/반품, 결제, 계정, 오류, 보상, 상담원연결, 기타",
        # A review of an automated decision has its own tool (request_human_review), linked to the record.
        json_schema_extra={"enum": [c.label for c in Ticket.Category if c != Ticket.Category.AUTO_REVIEW]},
    )
    summary: str = Field(description="상담원이 읽을 요청 요약", min_length=1, max_length=1000)
    order_id: str = Field(default="", description="요청이 관한 고객의 주문번호 (있으면)", max_length=32)


class DataRequestArgs(_Args):
    kind: str = Field(
        description="요청 종류: 열람(내 정보 보기), 정정, 삭제, 처리정지",
        json_schema_extra={"enum": [k.label for k in DataSubjectRequest.Kind]},
    )


class ReviewArgs(_Args):
    action_id: str = Field(
        default="", description="다시 검토받을 처리번호 (예: A00012). 없으면 가장 최근의 자동 처리", max_length=12
    )
    reason: str = Field(default="", description="고객이 말한 검토 요청 사유 요약", max_length=500)


# What the agent decided by itself, without a person (개인정보 보호법 제37조의2): the reply says so and how to ask
# for a person, whatever the model wrote (chat.services appends it from the tool result).
AUTOMATED_KINDS = (ActionRecord.Kind.ADDRESS_CHANGE, ActionRecord.Kind.EXCHANGE)
CRITERIA_PATH = "/criteria/"
AUTOMATED_DECISION_NOTICE = (
    "이 처리는 사람의 개입 없이 자동으로 결정되었습니다. 원하시면 '사람이 다시 검토해 주세요'라고 말씀해 "
    f"주세요. 담당자가 다시 검토합니다. 자동 처리 기준: {CRITERIA_PATH}"
)

# The fixed sentences the tools tell the customer (`message`); the model may quote them, so each must pass the
# money-claim guard as written (chat/tests/test_claim_guard.py reads them from here).
ADDRESS_CHANGED = "배송지를 변경했습니다."
EXCHANGE_ACCEPTED = "교환을 접수했습니다."
REFUND_REQUESTED = "승인 요청을 등록했습니다. 담당자가 승인하면 처리됩니다."
REFUND_ALREADY_PENDING = "이미 승인을 기다리는 요청이 있습니다."
TICKET_OPENED = "상담원 티켓을 접수했습니다. 담당자가 확인 후 연락드립니다."
TICKET_ALREADY_OPEN = "이미 접수된 상담원 티켓이 있습니다. 담당자가 확인 후 연락드립니다."
CUSTOMER_MESSAGES = (
    ADDRESS_CHANGED,
    EXCHANGE_ACCEPTED,
    REFUND_REQUESTED,
    REFUND_ALREADY_PENDING,
    TICKET_OPENED,
    TICKET_ALREADY_OPEN,
    AUTOMATED_DECISION_NOTICE,
)


@dataclass
class ToolContext:
    """What every tool is called with: the bound customer, who acts, the conversation, and this turn's state."""

    customer: Customer
    actor: Actor
    conversation_id: uuid.UUID | None = None
    # The conversation so far, for a handoff ticket (read only when one is opened).
    transcript: Callable[[], str] | None = None
    turn_ticket: Ticket | None = None  # the one ticket this turn opened or found (at most one per turn)
    turn_orders: list[str] = field(default_factory=list)  # the orders this turn's calls were about, in order
    turn_money_refused: bool = False  # a refund or cancellation was refused by the rules in this turn


Handler = Callable[[ToolContext, Any], dict]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args_model: type[_Args]
    handler: Handler
    label: str

    def spec(self) -> dict:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": _parameters(self.args_model),
            },
        }


# Every registered tool, in registration order (the order the model sees them in).
TOOLS: dict[str, Tool] = {}


def agent_tool(description: str, *, label: str) -> Callable[[Handler], Handler]:
    """Register `fn(ctx, args: Args) -> dict` as the agent's tool: the model calls it by the function's name, with
    the arguments' schema its `args` annotation names (NoArgs when it names none), and reads `description`.
    `label` is the Korean name operators and customers read in its place."""

    def register(fn: Handler) -> Handler:
        name = fn.__name__
        if name in TOOLS:
            raise ValueError(f"agent tool {name!r} is registered twice")
        if not label.strip():
            raise ValueError(f"agent tool {name!r} needs a Korean label")
        args = get_type_hints(fn).get("args", NoArgs)
        if not (isinstance(args, type) and issubclass(args, _Args)):
            raise TypeError(f"agent tool {name!r}: `args` must be annotated with an _Args schema, not {args!r}")
        TOOLS[name] = Tool(name, description, args, fn, label)
        return fn

    return register


def agent_tool_unregister(name: str) -> None:
    """Remove a tool (tests that register one of their own)."""
    TOOLS.pop(name, None)


UNKNOWN_TOOL_LABEL = "알 수 없는 도구"

# The errors the registry and the agent loop answer with (`ToolCall.error`), in the operators' words.
TOOL_ERROR_LABELS = {
    "unknown_tool": "없는 도구 호출",
    "invalid_arguments": "잘못된 도구 인자",
    "too_many_calls": "한 번에 너무 많은 호출",
    "internal_error": "내부 오류",
}


def tool_label(name: str) -> str:
    """The Korean name of the tool `name` as operators read it. A name no tool is registered under (the model
    called a tool that does not exist, or one was removed since) reads as 알 수 없는 도구."""
    tool = TOOLS.get(name)
    return tool.label if tool is not None else UNKNOWN_TOOL_LABEL


@dataclass(frozen=True)
class ToolResult:
    """What a customer is shown of one tool call: the chat API's `tool_results`, the result cards of the chat page
    and the widget (web/static/web/desk.js), and what a reply keeps (`ChatMessage.tool_results`). Codes for
    programs and Korean labels for people, one field each. The model reads the tool's own dict instead, where
    `status` is the Korean label and `status_code` the code (`from_call` turns one into the other).
    `metadata["help"]` is the field's description in the API schema (chat.apis builds its serializer from here)."""

    tool: str = field(metadata={"help": "도구 코드 (request_refund …)"})
    tool_label: str = field(metadata={"help": "도구 이름 (환불 요청 …): 화면에 보일 이름"})
    ok: bool = field(metadata={"help": "처리되었는지"})
    action_id: str | None = field(default=None, metadata={"help": "처리번호 (A00001)"})
    ticket_id: str | None = field(default=None, metadata={"help": "문의 번호 (T00001)"})
    status: str | None = field(default=None, metadata={"help": "상태 코드 (DONE, PENDING, OPEN …)"})
    status_display: str | None = field(default=None, metadata={"help": "상태 (완료, 승인대기 …)"})
    reason: str | None = field(default=None, metadata={"help": "거절·확인 사유"})
    needs_clarification: bool | None = field(default=None, metadata={"help": "사유를 골라야 처리할 수 있는지"})
    choices: list[str] | None = field(default=None, metadata={"help": "고를 수 있는 사유 (needs_clarification일 때)"})

    @classmethod
    def of(cls, tool: str, **values: Any) -> ToolResult:
        """A result of `tool`, labelled as the registry labels it."""
        return cls(tool=tool, tool_label=tool_label(tool), **values)

    @classmethod
    def from_call(cls, tool: str, result: dict) -> ToolResult:
        """What the customer is shown of the dict a tool (or the registry, or the agent loop) answered with."""
        code = result.get("status_code")
        return cls.of(
            tool,
            ok=bool(result.get("ok")),
            action_id=result.get("action_id"),
            ticket_id=result.get("ticket_id"),
            status=code,
            status_display=result.get("status"),
            reason=result.get("reason"),
            needs_clarification=result.get("needs_clarification"),
            choices=result.get("choices"),
        )

    @classmethod
    def from_stored(cls, stored: dict) -> ToolResult:
        """A result as a reply keeps it. One kept before results carried labels is labelled now, and its
        clarification gets the choices the registry offers (the page once knew them by itself)."""
        values = {f.name: stored[f.name] for f in fields(cls) if f.name in stored}
        values.setdefault("ok", False)
        tool = str(values.pop("tool", ""))
        label = values.pop("tool_label", None) or tool_label(tool)
        if values.get("needs_clarification") and not values.get("choices"):
            values["choices"] = CLARIFY_CHOICES
        return cls(tool=tool, tool_label=label, **values)

    def as_dict(self) -> dict:
        """The JSON a reply keeps and the API sends: the fields that have a value."""
        return {name: value for name, value in asdict(self).items() if value is not None}


def tool_error_label(code: str) -> str:
    """The Korean name of a tool-call error code ("" for none; an unlisted code reads as 기타 오류)."""
    if not code:
        return ""
    return TOOL_ERROR_LABELS.get(code, "기타 오류")


@cache
def _parameters(args_model: type[_Args]) -> dict:
    """The JSON schema of a tool's arguments, built once per process (pydantic rebuilds it on every call).
    Shared between turns: read it, never mutate it."""
    schema = args_model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        prop.pop("default", None)
    schema.setdefault("properties", {})
    return schema


def order_brief(order: Order, on: Any) -> dict:
    return {
        "order_id": order.order_id,
        "product_name": order.product.name,
        "product_id": order.product_id,
        "option": order.option.label,
        # The product's real options, so a model can match "블랙으로" to a label instead of guessing one.
        "options": [option.label for option in order.product.options.all()],
        "quantity": order.quantity,
        "order_amount": int(order.amount),
        "status": order.get_status_display(),
        "status_code": order.status,
        "shipping_address": order.shipping_address,
        "ordered_at": order.ordered_at.isoformat(),
        "shipped_at": order.shipped_at.isoformat() if order.shipped_at else None,
        "delivered_at": order.delivered_at.isoformat() if order.delivered_at else None,
        "days_since_delivery": days_since(order.delivered_at, on),
    }


def record_result(record: ActionRecord, **extra: Any) -> dict:
    return {
        "ok": True,
        "action_id": record.number,
        "order_id": record.order_id,
        "kind": record.get_kind_display(),
        "status": record.status_label,
        "status_code": record.status,
        **extra,
    }


def ticket_result(ticket: Ticket, **extra: Any) -> dict:
    """The result of a tool that opened (or found) a ticket for the customer."""
    return {
        "ok": True,
        "ticket_id": ticket.number,
        "category": ticket.get_category_display(),
        "status": ticket.get_status_display(),
        "status_code": ticket.status,
        **extra,
    }


def automated_result(record: ActionRecord, message: str, **extra: Any) -> dict:
    """The result of a request the agent decided by itself: the reply must say so (AUTOMATED_KINDS)."""
    return record_result(record, message=message, automated_decision_notice=AUTOMATED_DECISION_NOTICE, **extra)


class ToolRegistry:
    """The registered tools bound to one customer for one chat turn. `call` never raises: every failure is a
    result the model can read.

    One registry serves one chat turn: it opens at most one ticket (a second `create_ticket` answers the
    first one), and with a conversation the ticket is the conversation's one open handoff ticket."""

    def __init__(
        self,
        customer: Customer,
        actor: Actor,
        *,
        conversation_id: uuid.UUID | None = None,
        transcript: Callable[[], str] | None = None,
    ) -> None:
        self.context = ToolContext(
            customer=customer, actor=actor, conversation_id=conversation_id, transcript=transcript
        )
        self._tools = dict(TOOLS)

    @property
    def customer(self) -> Customer:
        return self.context.customer

    @property
    def actor(self) -> Actor:
        return self.context.actor

    # --- registry ------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[dict]:
        return [tool.spec() for tool in self._tools.values()]

    def call(self, name: str, arguments: str | dict | None) -> dict:
        result = self._call(name, arguments)
        if result.get("order_id"):
            self.context.turn_orders.append(str(result["order_id"]))
        return result

    def _call(self, name: str, arguments: str | dict | None) -> dict:
        tool = self._tools.get(name)
        if tool is None:
            return {
                "ok": False,
                "error": "unknown_tool",
                "reason": f"'{name}' 도구는 없습니다. 사용 가능: {', '.join(self.names)}",
            }
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError:
                return {"ok": False, "error": "invalid_arguments", "reason": "도구 인자가 올바른 JSON이 아닙니다."}
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return {"ok": False, "error": "invalid_arguments", "reason": "도구 인자는 JSON 객체여야 합니다."}
        try:
            args = tool.args_model.model_validate(arguments)
        except ValidationError as exc:
            names = ", ".join(sorted({str(e["loc"][0]) for e in exc.errors() if e.get("loc")})) or "인자"
            return {"ok": False, "error": "invalid_arguments", "reason": f"도구 인자가 올바르지 않습니다: {names}"}
        try:
            return tool.handler(self.context, args)
        except NotFound as exc:
            return {"ok": False, "order_id": arguments.get("order_id"), "reason": exc.message}
        except Refused as exc:
            result: dict[str, Any] = {"ok": False, "order_id": getattr(args, "order_id", None), "reason": exc.message}
            if exc.status:
                result["order_status"] = Order.Status(exc.status).label
            if exc.needs_clarification:
                result.update(needs_clarification=True, choices=CLARIFY_CHOICES)
            elif name in MONEY_TOOLS:
                self.context.turn_money_refused = True
            return result
        except DomainError as exc:
            return {"ok": False, "reason": exc.message}


# --- the tools -----------------------------------------------------------------------------------
@agent_tool(
    "고객 본인의 주문 목록(주문번호, 상품, 옵션, 상태, 배송완료일, 배송지)을 조회한다. "
    "어떤 주문을 말하는지 모를 때, 상태를 확인할 때 먼저 사용한다.",
    label="주문 조회",
)
def get_my_orders(ctx: ToolContext, args: NoArgs) -> dict:
    on = today()
    orders = (
        Order.objects.filter(customer=ctx.customer)
        .select_related("product", "option")
        .prefetch_related("product__options")
        .order_by("-ordered_at", "order_id")[:MAX_ORDERS_LISTED]
    )
    return {"ok": True, "today": on.isoformat(), "orders": [order_brief(o, on) for o in orders]}


@agent_tool(
    "[직접 처리] 출고 전(결제완료·배송준비) 주문의 배송지를 바꾼다. 가능 여부는 도구가 판정한다.",
    label="배송지 변경",
)
def change_shipping_address(ctx: ToolContext, args: ChangeAddressArgs) -> dict:
    record = services.address_change(
        customer=ctx.customer, order_id=args.order_id, new_address=args.new_address, actor=ctx.actor
    )
    return automated_result(record, ADDRESS_CHANGED, new_address=record.detail["new_address"])


def _customer_bound(ctx: ToolContext, text: str, *, order_id: str | None = None) -> str:
    """A model-written text the customer will read (a request's reason, a ticket's summary) without what it
    says about money that the records do not say: the model cannot promise a refund through a field."""
    if not text:
        return text
    orders = [order_id] if order_id else ctx.turn_orders
    kept, removed = money_claims_strip(text, customer_id=ctx.customer.pk, order_ids=orders or None)
    if removed:
        log.warning("tool.claim_stripped customer_id=%s order_id=%s claims=%d", ctx.customer.pk, order_id, removed)
    return kept


def _order_request(ctx: ToolContext, args: ExchangeArgs | RefundArgs) -> dict[str, Any]:
    """What a request about one order passes its service: the customer, the order, why (the reason as the
    customer may read it back), and who acts."""
    return {
        "customer": ctx.customer,
        "order_id": args.order_id,
        "reason_category": args.reason_category,
        "reason": _customer_bound(ctx, args.reason, order_id=args.order_id),
        "actor": ctx.actor,
    }


@agent_tool(
    "[직접 처리] 배송 완료된 주문을 같은 상품의 다른 옵션으로 교환 접수한다. "
    "기간(배송 완료 후 단순변심·상품하자·오배송별로 쇼핑몰이 정한 일수)과 재고는 도구가 판정한다.",
    label="교환 접수",
)
def request_exchange(ctx: ToolContext, args: ExchangeArgs) -> dict:
    record = services.exchange_request(**_order_request(ctx, args), new_option=args.new_option)
    return automated_result(record, EXCHANGE_ACCEPTED, new_option=record.detail["new_option"])


@agent_tool(
    "[승인 요청까지만] 환불 또는 주문 취소를 '승인대기'로 등록한다. 환불을 실행하지 않는다. "
    "출고 전이면 주문취소요청, 배송완료면 환불요청이 된다. 사유가 불명확하면 확인필요로 보낸다.",
    label="환불 요청",
)
def request_refund(ctx: ToolContext, args: RefundArgs) -> dict:
    note = _customer_bound(ctx, args.note, order_id=args.order_id)
    outcome = services.refund_request(**_order_request(ctx, args), note=note)
    record = outcome.record
    order = record.order
    extra: dict[str, Any] = {"product_name": order.product.name, "order_amount": int(order.amount)}
    if outcome.created:
        extra["message"] = REFUND_REQUESTED
    else:
        extra.update(already_pending=True, message=REFUND_ALREADY_PENDING)
    return record_result(record, **extra)


@agent_tool(
    "[상담원에게] 도구로 처리할 수 없는 요청(계정·결제 오류, 보상 요구, 상담원 연결 요청 등)을 "
    "상담원 티켓으로 접수한다.",
    label="상담 요청 접수",
)
def create_ticket(ctx: ToolContext, args: TicketArgs) -> dict:
    summary = _customer_bound(ctx, args.summary)
    order, order_problem = None, ""
    if args.order_id:
        try:  # a handoff never fails over its order: an unknown (or someone else's) one is left off
            order = customer_order_get(customer=ctx.customer, order_id=args.order_id)
        except NotFound as exc:
            order_problem = f"{exc.message} 주문 없이 접수했습니다."
    created = False
    # A person asked for after the rules refused the customer's money (tickets.policy.initial_priority: 높음).
    refused = ctx.turn_money_refused or (
        ctx.conversation_id is not None and money_request_refused(conversation_id=ctx.conversation_id)
    )
    # What opens the ticket, in or out of a conversation: the customer's summary as its first message.
    opening: dict[str, Any] = {
        "customer": ctx.customer,
        "category": args.category,
        "subject": summary,
        "body": summary,
        "source": Ticket.Source.AGENT,
        "author": ctx.customer.user,
        "after_refused_money_request": refused,
        "order": order,
    }
    if ctx.turn_ticket is not None:
        ticket = ctx.turn_ticket
    elif ctx.conversation_id is not None:
        ticket, created = ticket_handoff_get_or_create(
            **opening,
            chat_conversation_id=ctx.conversation_id,
            transcript=ctx.transcript() if ctx.transcript is not None else "",
        )
        if not created and ticket.status == Ticket.Status.ANSWERED:
            # Asked again after an operator answered: the request goes back to a person (reopened).
            ticket_message_add(ticket=ticket, body=summary, author=ctx.customer.user)
            ticket.refresh_from_db()
    else:
        ticket = ticket_create(**opening)
        created = True
    ctx.turn_ticket = ticket
    result = ticket_result(ticket, order_id=ticket.order_id, message=TICKET_OPENED)
    if order_problem:
        result["order_note"] = order_problem
    if not created:
        result.update(already_open=True, message=TICKET_ALREADY_OPEN)
    # Outside business hours the customer is told when a person will answer (the reply carries it as written).
    notice = after_hours_notice(now(), business_calendar())
    if notice:
        result["after_hours_notice"] = notice
    return result


@agent_tool(
    "고객 본인의 처리 기록(처리번호, 종류, 상태, 다음 단계)과 문의 티켓(상태)을 조회한다. "
    "'답변 왔나요', '환불 언제 들어와요', '교환 어떻게 됐어요' 같은 진행 상황 질문에는 이 도구로 찾아 "
    "번호·상태·다음 단계와 답변이 표시되는 곳(이 채팅과 '내 문의')을 답하고, 티켓을 새로 만들지 않는다.",
    label="처리 내역 조회",
)
def get_my_requests(ctx: ToolContext, args: NoArgs) -> dict:
    records = action_record_list(customer=ctx.customer)[:MAX_REQUESTS_LISTED]
    tickets = customer_ticket_list(customer=ctx.customer)[:MAX_REQUESTS_LISTED]
    return {
        "ok": True,
        "actions": [
            {
                "action_id": r.number,
                "kind": r.get_kind_display(),
                "order_id": r.order_id,
                "product_name": r.order.product.name,
                "status": r.status_label,
                "status_message": customer_status_message(r.kind, r.status),
                "detail": action_record_summary_masked(r),
                "created_at": r.created_at.isoformat(timespec="minutes"),
            }
            for r in records
        ],
        "tickets": [
            {
                "ticket_id": t.number,
                "category": t.get_category_display(),
                "summary": t.subject,
                "status": t.get_status_display(),
                "created_at": t.created_at.isoformat(timespec="minutes"),
            }
            for t in tickets
        ],
    }


@agent_tool(
    "[개인정보 요청] 고객이 자기 개인정보의 열람(내 정보 보기·내려받기), 정정, 삭제(탈퇴·지워 달라), 처리정지를 "
    "요청하면 접수한다. 본인 확인 후 담당자가 처리하며, 결과에 처리 기한이 있다. 기한은 결과 그대로 전한다.",
    label="개인정보 요청 접수",
)
def request_my_data(ctx: ToolContext, args: DataRequestArgs) -> dict:
    kind = choice_parse(DataSubjectRequest.Kind, args.kind)
    if kind is None:
        return {"ok": False, "reason": "요청 종류를 알려 주세요: 열람, 정정, 삭제, 처리정지 중 하나입니다."}
    request, created = data_request_open(
        customer=ctx.customer,
        kind=kind,
        source=Ticket.Source.AGENT,
        actor=ctx.actor,
        chat_conversation_id=ctx.conversation_id,
    )
    due = due_words(request.due_at)
    kind_label = request.get_kind_display()
    return {
        "ok": True,
        "request_id": request.number,
        "kind": kind_label,
        "status": request.get_status_display(),
        "status_code": request.status,
        "due_at": request.due_at.isoformat(timespec="minutes"),
        "already_open": not created,
        "message": f"개인정보 {kind_label} 요청을 접수했습니다(접수번호 {request.number}).",
        "data_request_notice": f"처리 기한은 {due}까지이며, 본인 확인 후 처리해 드립니다.",
    }


@agent_tool(
    "[사람 검토] 에이전트가 자동으로 처리한 배송지 변경·교환 접수를 고객이 '사람이 다시 검토해 달라'고 하면, "
    "그 처리 기록에 연결된 재검토 티켓을 연다. 처리번호를 모르면 비워 두면 가장 최근의 자동 처리가 대상이다.",
    label="자동 처리 재검토 요청",
)
def request_human_review(ctx: ToolContext, args: ReviewArgs) -> dict:
    records = ActionRecord.objects.filter(customer=ctx.customer, kind__in=AUTOMATED_KINDS).order_by("-id")
    if args.action_id:
        pk = parse_number("A", args.action_id)
        records = records.filter(pk=pk) if pk is not None else records.none()
    record = records.select_related("order").first()
    if record is None:
        return {"ok": False, "reason": "다시 검토할 자동 처리 기록(배송지 변경·교환 접수)을 찾지 못했습니다."}
    body = _customer_bound(ctx, args.reason, order_id=record.order_id) or (
        f"{record.number} {record.get_kind_display()}: 자동 처리를 사람이 다시 검토해 주세요."
    )
    ticket, created = review_ticket_open(
        customer=ctx.customer, record_number=record.number, order=record.order, body=body, author=ctx.customer.user
    )
    ctx.turn_ticket = ticket
    return ticket_result(
        ticket,
        action_id=record.number,
        order_id=record.order_id,
        already_open=not created,
        message=f"{record.number}({record.get_kind_display()}) 처리를 담당자가 다시 검토하도록 접수했습니다"
        f"(접수번호 {ticket.number}).",
    )


def due_words(at) -> str:
    """A due time as a customer reads it: 2026년 8월 6일(목) 18:00."""
    local = at.astimezone(SEOUL)
    return f"{local.year}년 {local.month}월 {local.day}일({WEEKDAY_NAMES[local.weekday()]}) {local:%H:%M}"


def make_action_tools(
    customer: Customer,
    *,
    actor: Actor | None = None,
    conversation_id: uuid.UUID | None = None,
    transcript: Callable[[], str] | None = None,
) -> ToolRegistry:
    """The tools for one customer's turn. `actor` defaults to the chat agent acting for them."""
    return ToolRegistry(
        customer, actor or Actor.customer_agent(customer), conversation_id=conversation_id, transcript=transcript
    )
