"""The built-in offline model's customer agent: what it answers when the chat agent offers it tools.

Registered with `llm.offline` from `ChatConfig.ready()`, the way the drafts app registers its structured
handlers; the gateway itself knows nothing of the shop. It reads the conversation the way a model would
(the messages only), understands each customer message with `chat.offline_nlu`, keeps the request being
worked on across turns, and proposes one tool call at a time. What is allowed is decided by the tools;
every reply is built from their results.

Order of work for an action: find the order (`get_my_orders` when the customer did not give its id),
let the tools refuse what they will refuse, and only then ask for what is missing (a new address, an
option, a reason), so nobody is asked for details a refusal makes pointless.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from chat import offline_nlu as nlu
from llm.fence import unfence
from llm.offline import text, tool_call
from llm.wire import message_text

ACTION_TOOL = {
    nlu.ADDRESS: "change_shipping_address",
    nlu.EXCHANGE: "request_exchange",
    nlu.REFUND: "request_refund",
    nlu.CANCEL: "request_refund",
}
ACTION_LABEL = {nlu.ADDRESS: "배송지 변경", nlu.EXCHANGE: "교환", nlu.REFUND: "환불", nlu.CANCEL: "취소"}
BEFORE_SHIPPING = {"PAID", "PREPARING", "결제완료", "배송준비"}
DELIVERED = {"DELIVERED", "배송완료"}
IN_TRANSIT = {"PAID", "PREPARING", "SHIPPING", "결제완료", "배송준비", "배송중"}
# Which orders an intent can apply to (status codes and their Korean labels, as get_my_orders reports).
FITTING_STATUS = {
    nlu.ADDRESS: BEFORE_SHIPPING,
    nlu.EXCHANGE: DELIVERED,
    nlu.REFUND: BEFORE_SHIPPING | DELIVERED,
    nlu.CANCEL: BEFORE_SHIPPING,
}
CLARIFY_CHOICES = "단순변심 / 상품하자 / 오배송"
# Every question the agent asks ends with this phrase; an answer to it continues the earlier request.
ASK = "알려 주세요"
DONE_MARKERS = ("처리번호", "접수번호")
MAX_TOOL_ROUNDS = 3
MAX_REASON_LEN = 500
MAX_SUMMARY_LEN = 1000

HELP_TEXT = (
    "저는 다음 일을 도와드릴 수 있어요.\n"
    "- 주문 조회·배송 조회 (예: '뭐 주문했지?', '택배 어디쯤이야?')\n"
    "- 출고 전 주문의 배송지 변경 (예: 'HR20260726002 배송지를 서울시 마포구 양화로 45 101호로 바꿔 주세요')\n"
    "- 배송 완료 주문의 교환 접수 (예: '운동화 블랙/260으로 교환해 주세요, 단순변심이에요')\n"
    "- 환불·주문 취소 요청 (담당자 승인 후 처리)\n"
    "- 내 요청 처리 현황 조회\n"
    "- 상담원 연결 (결제 문의, 계정 문의 등)\n"
    "원하시는 내용을 말씀해 주세요."
)
# The request_my_data tool's kinds by label (tickets.DataSubjectRequest.Kind; not imported: this module loads
# before the app registry, from chat/apps.py).
DATA_KIND_LABELS = {"ACCESS": "열람", "CORRECTION": "정정", "ERASURE": "삭제", "SUSPENSION": "처리정지"}
ACTION_NUMBER = re.compile(r"[Aa][0-9]{5,}")
NEXT_STEP = "다른 도움이 필요하시면 말씀해 주세요. '상담원 연결'이라고 하시면 상담원에게 넘겨 드립니다."


# --- reading the conversation ----------------------------------------------------------------------
@dataclass
class ToolRun:
    name: str
    args: dict
    result: dict | None  # None when the tool message is missing


@dataclass
class Turn:
    current: str  # the customer's text this turn, unfenced
    prior: list[tuple[str, str]]  # earlier (role, text) pairs, oldest first
    runs: list[ToolRun] = field(default_factory=list)  # tool calls since the current user message
    rounds: int = 0
    calls_so_far: int = 0  # tool calls in the whole conversation, for stable ids

    def result_of(self, name: str) -> ToolRun | None:
        return next((run for run in reversed(self.runs) if run.name == name), None)


@dataclass
class Request:
    """The request being worked on: its intent and the customer's texts about it, oldest first."""

    intent: str | None
    texts: list[str]
    hinted_order: str | None = None  # the single order the conversation is about, by an earlier reply
    last_order: str | None = None  # the last single order anyone named in the conversation
    carried_reason: str | None = None  # a reason established for the same order in an earlier request

    @property
    def joined(self) -> str:
        """The customer's own words (for the reason and the ticket summary), quoted instructions left out."""
        return " ".join(nlu.strip_injected(t) for t in self.texts)

    @property
    def newest_first(self) -> list[str]:
        return list(reversed(self.texts))


def read_turn(messages: list[dict]) -> Turn:
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    calls_so_far = sum(len(m.get("tool_calls") or []) for m in messages if m.get("role") == "assistant")
    if last_user is None:
        return Turn(current="", prior=[], calls_so_far=calls_so_far)
    prior = [
        (m["role"], unfence(message_text(m.get("content"))))
        for m in messages[:last_user]
        if m.get("role") in ("user", "assistant") and message_text(m.get("content"))
    ]
    turn = Turn(current=unfence(message_text(messages[last_user].get("content"))).strip(), prior=prior)
    turn.calls_so_far = calls_so_far
    pending: dict[str, ToolRun] = {}
    for m in messages[last_user + 1 :]:
        if m.get("role") == "assistant" and m.get("tool_calls"):
            turn.rounds += 1
            for tc in m["tool_calls"]:
                function = tc.get("function") or {}
                run = ToolRun(function.get("name", ""), _loads(function.get("arguments")), None)
                turn.runs.append(run)
                pending[tc.get("id", "")] = run
        elif m.get("role") == "tool":
            run = pending.get(m.get("tool_call_id", ""))
            if run is not None:
                run.result = _loads(unfence(message_text(m.get("content"))))
    return turn


def _loads(raw: Any) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _single_id(text_: str) -> str | None:
    ids = set(nlu.order_ids(text_))
    if len(ids) > 1 and ASK in text_:
        # A reply that answered several requests and asks about one: the order is the one it asks about.
        asking = [line for line in text_.splitlines() if ASK in line]
        ids = {i for line in asking for i in nlu.order_ids(line)}
    return ids.pop() if len(ids) == 1 else None


def _has_slot(a: nlu.Analysed) -> bool:
    """Whether a message without an intent still carries something for a request (an answer)."""
    return bool(nlu.order_ids(a.text) or nlu.classify_reason(a).said or nlu.find_address(a) or nlu.refers_back(a))


def read_request(turn: Turn) -> Request:
    """Replay the customer's messages: a message with a new intent starts a request, an answer to our
    question (or a message that only adds a slot) continues the open one."""
    request: Request | None = None
    is_open = False  # our last reply asked the customer something
    closed = False  # our last reply reported a finished request
    last_order: str | None = None  # the last single order named by anyone
    for role, text_ in [*turn.prior, ("user", turn.current)]:
        if role == "assistant":
            is_open = ASK in text_
            closed = any(marker in text_ for marker in DONE_MARKERS) and not is_open
            named = _single_id(text_)
            if named:
                last_order = named
                if request is not None and is_open:
                    request.hinted_order = named
            continue
        a = nlu.analyse(text_)
        intent = nlu.detect_intent(a)
        same = request is not None and (
            intent == request.intent or {intent, request.intent} <= {nlu.REFUND, nlu.CANCEL}
        )
        answers_reason = (
            request is not None
            and is_open
            and request.intent in nlu.ACTION_INTENTS
            and intent not in nlu.ACTION_INTENTS
            and nlu.classify_reason(a).said
        )  # "다른 사이즈가 배송된 거예요" answers our question about the reason, whatever else it mentions
        if (intent is not None and request is not None and is_open and same) or answers_reason:
            request.texts.append(text_)
        elif intent is not None:
            previous = request
            request = Request(intent, [text_])
            names_order = bool(nlu.order_ids(a.text))
            if not names_order and (nlu.refers_back(a) or (previous is not None and is_open)):
                request.hinted_order = (previous.hinted_order if previous else None) or last_order
            if previous is not None and previous.intent in nlu.ACTION_INTENTS and intent in nlu.ACTION_INTENTS:
                if request.hinted_order and request.hinted_order == previous.hinted_order:
                    request.carried_reason = _reason_of(previous)
        elif request is not None and request.intent in nlu.ACTION_INTENTS and not closed and (is_open or _has_slot(a)):
            request.texts.append(text_)
        else:
            request = Request(None, [text_])
        named = _single_id(text_)
        if named:
            last_order = named
    request = request or Request(None, [turn.current])
    request.last_order = last_order
    return request


def _reason_of(request: Request) -> str | None:
    for text_ in request.newest_first:
        reading = nlu.classify_reason(text_)
        if reading.said:
            return reading.category
    return request.carried_reason


def reason_category(request: Request) -> str:
    return _reason_of(request) or nlu.UNCLEAR


# --- finding the order -------------------------------------------------------------------------------
def order_id_in(request: Request) -> str | None:
    for text_ in request.newest_first:
        ids = nlu.order_ids(text_)
        if ids:
            return ids[-1]
    return None


def resolve_order(request: Request, orders: list[dict], today: date | None = None) -> tuple[dict | None, list[dict]]:
    """(the order, []) or (None, the candidates to ask about)."""
    fitting = [o for o in orders if _fits(o, request.intent)]

    def pick(named: list[dict]) -> tuple[dict | None, list[dict]]:
        named_fitting = [o for o in named if _fits(o, request.intent)] or named
        if len(named_fitting) == 1:
            return named_fitting[0], []
        return None, named_fitting

    newest, *older = request.newest_first
    named = nlu.find_orders(newest, orders, today=today)
    if named:
        return pick(named)
    if request.hinted_order:
        hinted = next((o for o in orders if o.get("order_id") == request.hinted_order), None)
        if hinted is not None:
            return hinted, []
    for text_ in older:
        named = nlu.find_orders(text_, orders, today=today)
        if named:
            return pick(named)
    if len(fitting) == 1:
        return fitting[0], []
    if len(orders) == 1:
        return orders[0], []  # the tool will say why it cannot be done
    return None, fitting or orders


def _fits(order: dict, intent: str | None) -> bool:
    statuses = FITTING_STATUS.get(intent or "", set())
    return order.get("status_code") in statuses or order.get("status") in statuses


def _orders(result: dict | None) -> list[dict]:
    orders = (result or {}).get("orders") or []
    return [o for o in orders if isinstance(o, dict) and o.get("order_id")]


def _today(result: dict | None) -> date | None:
    try:
        return date.fromisoformat(str((result or {}).get("today") or ""))
    except ValueError:
        return None


# --- deciding the next message -----------------------------------------------------------------------
def offline_next_message(messages: list[dict], available_tools: frozenset[str]) -> dict:
    """The next assistant message for a conversation (the `llm.offline` conversation handler)."""
    turn = read_turn(messages)
    request = read_request(turn)

    def call(name: str, args: dict) -> dict:
        if name not in available_tools:
            return text(f"지금은 이 요청을 처리할 수 없습니다. {NEXT_STEP}")
        return tool_call(f"call_{turn.calls_so_far + 1}", name, args)

    if turn.rounds >= MAX_TOOL_ROUNDS:
        return text(f"요청을 끝까지 처리하지 못했습니다. {NEXT_STEP}")
    intent = request.intent
    if intent is None:
        return text(HELP_TEXT)

    if intent == nlu.MY_DATA:
        done = turn.result_of("request_my_data")
        if done is None:
            kind = nlu.data_request_kind(request.texts[-1] if request.texts else turn.current)
            return call("request_my_data", {"kind": DATA_KIND_LABELS.get(kind or "ACCESS", "열람")})
        return reply_code_built(done.result)
    if intent == nlu.REVIEW:
        done = turn.result_of("request_human_review")
        if done is None:
            named = ACTION_NUMBER.search(request.joined)
            return call("request_human_review", {"action_id": named.group(0).upper() if named else ""})
        return reply_code_built(done.result)
    if intent == nlu.REQUESTS:
        done = turn.result_of("get_my_requests")
        if done is None:
            return call("get_my_requests", {})
        ticket = turn.result_of("create_ticket")
        if ticket is not None:
            return reply_ticket(ticket.result)
        if nlu.asks_to_approve(request.texts[-1] if request.texts else ""):
            listed = reply_status(done.result, request)["content"]
            return text(f"{listed}\n{CANNOT_APPROVE}")
        if _money_seen_missing(request, done.result):
            # Approved or done, and the customer does not see the money: a person checks the payment.
            return call("create_ticket", {"category": "결제", "summary": request.joined[:MAX_SUMMARY_LEN]})
        return reply_status(done.result, request)
    if intent in (nlu.TICKET, nlu.HANDOFF):
        done = turn.result_of("create_ticket")
        if done:
            return reply_ticket(done.result)
        joined = request.joined
        topic = nlu.ticket_category(joined)
        # The team that can solve what the customer describes; 상담원연결 only when they name no topic.
        category = "상담원연결" if intent == nlu.HANDOFF and topic in ("기타", "상담원연결") else topic
        args: dict[str, Any] = {"category": category, "summary": joined[:MAX_SUMMARY_LEN]}
        order_id = order_id_in(request)
        if order_id is None and nlu.names_product(joined):  # "백팩 배송이 늦어요": the order it names
            orders_run = turn.result_of("get_my_orders")
            if orders_run is None and "get_my_orders" in available_tools:
                return call("get_my_orders", {})
            named = nlu.find_orders(joined, _orders(orders_run.result if orders_run else None))
            order_id = str(named[0]["order_id"]) if len(named) == 1 else None
        order_id = order_id or request.hinted_order or request.last_order
        if order_id:
            args["order_id"] = order_id  # the ticket is about that order
        return call("create_ticket", args)

    orders_run = turn.result_of("get_my_orders")
    orders = _orders(orders_run.result if orders_run else None)
    if intent in (nlu.ORDERS, nlu.TRACK):
        if orders_run is None:
            return call("get_my_orders", {})
        if intent == nlu.ORDERS:
            return reply_orders(orders_run.result)
        return reply_tracking(orders_run.result, request)

    several = nlu.split_requests(turn.current) if request.texts[-1:] == [turn.current] else []
    if len(several) >= 2:
        return run_several(turn, several, call, available_tools)

    tool = ACTION_TOOL[intent]
    done = turn.result_of(tool)
    if done:
        return reply_action(intent, done, orders, request.joined)

    order_id = order_id_in(request)
    if order_id is None and request.hinted_order and nlu.detect_intent(turn.current) is None:
        order_id = request.hinted_order  # a bare answer ("상품하자") to our question about that order
    address = _address(request) if intent == nlu.ADDRESS else None
    if orders_run is None:
        # With the order and what to do known, the tool judges status and window itself: call it now.
        # Otherwise look the orders up first: which order, its status, window and real options decide
        # what is worth asking (no address question for a shipped order, no option question out of window).
        if order_id is not None and intent == nlu.ADDRESS and address:
            return call(tool, {"order_id": order_id, "new_address": address})
        if order_id is not None and intent in (nlu.REFUND, nlu.CANCEL):
            return call(tool, _reason_args(request, order_id))
        if "get_my_orders" in available_tools:
            return call("get_my_orders", {})
        if order_id is None:
            return text(f"{ACTION_LABEL[intent]}할 주문번호(예: HR20260721001)를 {ASK}.")
    elif not (orders_run.result or {}).get("ok", False):
        return reply_failure(orders_run.result)

    order: dict | None = None
    explicit = order_id_in(request)
    if explicit is not None:
        order_id = explicit
        order = next((o for o in orders if o.get("order_id") == explicit), None)
        if order is None and orders_run is not None:
            # Not among the customer's orders: the tool says so (it never reveals whose it is).
            blanks = {"new_address": address or ""} if intent == nlu.ADDRESS else {"new_option": ""}
            extra = blanks if intent in (nlu.ADDRESS, nlu.EXCHANGE) else {}
            base = {"order_id": order_id} if intent == nlu.ADDRESS else _reason_args(request, order_id)
            return call(tool, base | extra)
    elif orders:
        order, candidates = resolve_order(request, orders, _today(orders_run.result if orders_run else None))
        if order is None:
            return ask_which_order(intent, candidates)
        order_id = str(order["order_id"])
    if order_id is None:
        return ask_which_order(intent, [])

    if intent == nlu.ADDRESS:
        if order is not None and not _fits(order, nlu.ADDRESS):
            # The tool refuses by status before it looks at the address: no point asking for one.
            return call(tool, {"order_id": order_id, "new_address": address or ""})
        if not address:
            return text(
                f"주문 {_order_label(order_id, order)}의 새 배송지를 {ASK}. 도로명 주소와 상세주소까지 적어 주세요."
            )
        return call(tool, {"order_id": order_id, "new_address": address})

    args = _reason_args(request, order_id)
    reason = args["reason_category"]
    if intent == nlu.EXCHANGE:
        option, choices = _option(request, order)
        refusal = _exchange_not_offered(request, order, option) if order is not None else None
        if refusal is not None:
            label = _order_label(order_id, order)
            return text(
                f"{refusal} (대상 주문: {label}){_option_choices(order, choices or _others(order))} {NEXT_STEP}"
            )
        if option is None and not _exchange_refused(order, reason):
            if reason == nlu.UNCLEAR:
                return text(
                    f"주문 {_order_label(order_id, order)}의 교환 사유와 교환할 옵션을 {ASK}. "
                    f"사유는 {CLARIFY_CHOICES} 중 하나로 답해 주세요.{_option_choices(order, choices)}"
                )
            return text(
                f"주문 {_order_label(order_id, order)}을 어떤 옵션으로 교환할지 {ASK}.{_option_choices(order, choices)}"
            )
        args["new_option"] = option or ""
        return call(tool, args)
    return call(tool, args)


def run_several(turn: Turn, several: list[tuple[str, str]], call, available_tools: frozenset[str]) -> dict:
    """Two or more requests in one message, handled in the order the customer gave them: the orders looked up
    once, every request that is ready called in one round, then one reply that answers each in turn (a
    question where something is missing, the tool's own words where it refused)."""
    whole = nlu.classify_reason(turn.current)
    # "둘 다 단순변심이에요" said once holds for each request that does not give its own reason.
    shared = whole.category if whole.said else None
    subs = [Request(intent, [words], carried_reason=shared) for intent, words in several]
    orders_run = turn.result_of("get_my_orders")
    if orders_run is None and any(order_id_in(sub) is None for sub in subs) and "get_my_orders" in available_tools:
        return call("get_my_orders", {})
    orders = _orders(orders_run.result if orders_run else None)
    today = _today(orders_run.result if orders_run else None)
    plans: list[tuple[Request, str | None, dict | str]] = []  # (request, tool, arguments) or (request, None, question)
    for sub in subs:
        plans.append(_plan(sub, orders, today))
    ran = {(run.name, str(run.args.get("order_id"))): run for run in turn.runs if run.result is not None}
    ready = [(tool, args) for _, tool, args in plans if tool and (tool, str(args["order_id"])) not in ran]
    if ready:
        return _calls(turn, [(tool, args) for tool, args in ready if tool in available_tools])
    lines = []
    for sub, tool, args in plans:
        if tool is None:
            lines.append(f"- {args}")
        else:
            order_id = str(args["order_id"])
            order = next((o for o in orders if o.get("order_id") == order_id), None)
            said = reply_action(sub.intent, ran[(tool, order_id)], orders, sub.joined)["content"]
            lines.append(said if order_id in said else f"- {_order_label(order_id, order)}: {said}")
            if not lines[-1].startswith("- "):
                lines[-1] = f"- {lines[-1]}"
    return text("요청하신 일을 차례로 처리했습니다.\n" + "\n".join(lines))


def _plan(sub: Request, orders: list[dict], today: date | None) -> tuple[Request, str | None, dict | str]:
    tool = ACTION_TOOL[sub.intent]
    order_id = order_id_in(sub)
    order = next((o for o in orders if o.get("order_id") == order_id), None) if order_id else None
    if order_id is None:
        order, candidates = resolve_order(sub, orders, today)
        if order is None:
            return sub, None, ask_which_order(sub.intent, candidates)["content"]
        order_id = str(order["order_id"])
    if sub.intent == nlu.ADDRESS:
        address = _address(sub)
        if order is not None and not _fits(order, nlu.ADDRESS):
            return sub, tool, {"order_id": order_id, "new_address": address or ""}
        if not address:
            return sub, None, f"주문 {_order_label(order_id, order)}의 새 배송지를 {ASK}."
        return sub, tool, {"order_id": order_id, "new_address": address}
    args = _reason_args(sub, order_id)
    if sub.intent == nlu.EXCHANGE:
        option, choices = _option(sub, order)
        if option is None and not _exchange_refused(order, args["reason_category"]):
            label = _order_label(order_id, order)
            return sub, None, f"주문 {label}을 어떤 옵션으로 교환할지 {ASK}.{_option_choices(order, choices)}"
        args["new_option"] = option or ""
    return sub, tool, args


def _calls(turn: Turn, calls: list[tuple[str, dict]]) -> dict:
    """One assistant message with several tool calls (the chat agent runs them in order)."""
    first = turn.calls_so_far + 1
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{first + i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
            }
            for i, (name, args) in enumerate(calls)
        ],
    }


def _reason_args(request: Request, order_id: str) -> dict[str, Any]:
    return {
        "order_id": order_id,
        "reason_category": reason_category(request),
        "reason": request.joined[:MAX_REASON_LEN],
    }


def _address(request: Request) -> str | None:
    for text_ in request.newest_first:
        found = nlu.find_address(text_)
        if found:
            return found
    return None


def _option(request: Request, order: dict | None) -> tuple[str | None, list[str]]:
    if order is None or not order.get("options"):
        # Without the catalogue only a written-out label ("블랙/260") can be passed on; the tool checks it.
        for text_ in request.newest_first:
            for word in nlu.clean(text_).split():
                if "/" in word:
                    return word.strip(".,!?").removesuffix("으로").removesuffix("로"), []
        return None, []
    choices: list[str] = []
    for text_ in request.newest_first:
        option, fitting = nlu.find_option(text_, order)
        if option:
            return option, []
        choices = choices or fitting
    return None, choices


def _exchange_not_offered(request: Request, order: dict, option: str | None) -> str | None:
    """Why no exchange of this order can give what the customer named: another product (운동화를 백팩으로),
    or a colour the product does not come in (레드/260 for a white or black shoe). None when it can."""
    current = request.texts[-1] if request.texts else ""
    other = nlu.other_product(current, order)
    if other is not None:
        return (
            f"{other}(으)로는 교환할 수 없습니다. 교환은 같은 상품의 다른 옵션으로만 가능하고, "
            "다른 상품을 원하시면 반품 후 새로 주문해 주셔야 합니다."
        )
    foreign = nlu.foreign_option(current, order) if option is None else None
    if foreign is not None:
        return f"요청하신 '{foreign}'은(는) 이 상품에 없는 옵션이라 그 옵션으로는 교환할 수 없습니다."
    return None


def _others(order: dict | None) -> list[str]:
    return [str(o) for o in (order or {}).get("options") or [] if o != (order or {}).get("option")]


def _exchange_refused(order: dict | None, reason: str) -> bool:
    """Whether the tool will refuse whatever option is named (not delivered, past the window)."""
    if order is None:
        return False
    if not _fits(order, nlu.EXCHANGE):
        return True
    days = order.get("days_since_delivery")
    if not isinstance(days, int):
        return False
    from actions.selectors import return_windows  # app registry: this module is imported before models load

    windows = return_windows()  # the shop's own windows; only to avoid pointless questions, the tools decide
    return days > windows.defect_days or (reason == nlu.CHANGE_OF_MIND and days > windows.return_days)


def _option_choices(order: dict | None, fitting: list[str]) -> str:
    if order is None:
        return " 예: 블랙/260"
    current = str(order.get("option") or "")
    labels = fitting or [str(x) for x in order.get("options") or [] if str(x) != current]
    out = f" 선택할 수 있는 옵션: {', '.join(labels)}" if labels else ""
    return out + (f" (현재 옵션: {current})" if current else "")


def _order_label(order_id: str, order: dict | None) -> str:
    return f"{order_id}({order['product_name']})" if order and order.get("product_name") else order_id


def _order_line(order: dict) -> str:
    option = f" {order['option']}" if order.get("option") else ""
    return f"- {order['order_id']} {order.get('product_name', '')}{option} · {order.get('status', '')}"


def ask_which_order(intent: str, candidates: list[dict]) -> dict:
    if not candidates:
        return text(f"{ACTION_LABEL[intent]}할 주문을 찾지 못했습니다. 주문번호(예: HR20260721001)를 {ASK}.")
    lines = "\n".join(_order_line(o) for o in candidates)
    return text(f"어느 주문을 {ACTION_LABEL[intent]}할까요? 주문번호나 상품명을 {ASK}.\n{lines}")


# --- replies built from tool results ------------------------------------------------------------------
def reply_action(intent: str, run: ToolRun, orders: list[dict], asked: str = "") -> dict:
    result = run.result
    if result is None:
        return text(f"처리 결과를 확인하지 못했습니다. {NEXT_STEP}")
    order_id = str(result.get("order_id") or run.args.get("order_id") or "")
    order = next((o for o in orders if o.get("order_id") == order_id), None)
    if not result.get("ok"):
        if result.get("needs_clarification"):
            what = "교환" if intent == nlu.EXCHANGE else "환불"
            return text(
                f"주문 {_order_label(order_id, order)}의 {what} 사유를 {ASK}. {CLARIFY_CHOICES} 중 하나로 답해 주세요."
            )
        if order_id:  # the order the customer meant, named in the refusal
            reason = result.get("reason") or "요청을 처리하지 못했습니다."
            return text(f"{reason} (대상 주문: {_order_label(order_id, order)}) {NEXT_STEP}")
        return reply_failure(result)
    number = result.get("action_id", "")
    status = result.get("status", "")
    if result.get("already_pending"):
        return text(
            f"이미 승인을 기다리는 요청이 있습니다. 처리번호 {number} (상태: {status}). 담당자가 승인하면 처리됩니다."
        )
    if status == "승인대기":
        kind = result.get("kind") or "환불"
        line = f"{kind}을 등록했습니다. 처리번호 {number} (상태: {status}). 담당자가 승인하면 처리됩니다."
        amount = result.get("order_amount")
        if isinstance(amount, int) and nlu.asks_amount(asked):
            line += f" 이 주문의 결제 금액은 {amount:,}원이며, 승인되면 그 금액 기준으로 처리됩니다."
        return text(line)
    done = result.get("message") or "처리했습니다."
    return text(f"{done} 처리번호 {number} (상태: {status}).")


def reply_failure(result: dict | None) -> dict:
    reason = (result or {}).get("reason") or "요청을 처리하지 못했습니다."
    return text(f"{reason} {NEXT_STEP}")


def reply_code_built(result: dict | None) -> dict:
    """The tool's own message; the due date or review sentence is appended by chat.services, as for any model."""
    if not result or not result.get("ok"):
        return reply_failure(result)
    return text(str(result.get("message", "")))


def reply_ticket(result: dict | None) -> dict:
    if not result or not result.get("ok"):
        return reply_failure(result)
    return text(
        f"상담원 티켓을 등록했습니다. 접수번호 {result.get('ticket_id', '')} "
        f"(분류: {result.get('category', '')}, 상태: {result.get('status', '')}). 담당자가 확인 후 연락드립니다."
    )


def reply_orders(result: dict | None) -> dict:
    if not result or not result.get("ok"):
        return reply_failure(result)
    orders = _orders(result)
    if not orders:
        return text("주문 내역이 없습니다.")
    return text("주문 내역입니다.\n" + "\n".join(_order_line(o) for o in orders))


def reply_tracking(result: dict | None, request: Request) -> dict:
    if not result or not result.get("ok"):
        return reply_failure(result)
    orders = _orders(result)
    named: list[dict] = []
    for text_ in request.newest_first:
        named = nlu.find_orders(text_, orders, today=_today(result))
        if named:
            break
    shown = named or [o for o in orders if o.get("status_code") in IN_TRANSIT or o.get("status") in IN_TRANSIT]
    if not shown:
        return text(
            "배송 중인 주문이 없습니다.\n" + "\n".join(_order_line(o) for o in orders[:5])
            if orders
            else "주문 내역이 없습니다."
        )
    lines = []
    for order in shown:
        line = _order_line(order)
        if order.get("delivered_at"):
            line += f" (배송 완료 {str(order['delivered_at'])[:10]})"
        elif order.get("shipped_at"):
            line += f" (출고 {str(order['shipped_at'])[:10]})"
        else:
            line += " (아직 출고 전)"
        lines.append(line)
    return text("배송 상태입니다.\n" + "\n".join(lines))


def reply_requests(result: dict | None) -> dict:
    if not result or not result.get("ok"):
        return reply_failure(result)
    actions = [a for a in result.get("actions") or [] if isinstance(a, dict)]
    tickets = [t for t in result.get("tickets") or [] if isinstance(t, dict)]
    if not actions and not tickets:
        return text("접수된 요청이 없습니다.")
    parts = []
    if actions:
        parts.append("처리 기록:\n" + "\n".join(_action_line(a) for a in actions))
    if tickets:
        parts.append("문의 티켓:\n" + "\n".join(_ticket_line(t) for t in tickets))
    return text("\n".join(parts))


CANNOT_APPROVE = (
    "환불·취소 승인은 담당자만 할 수 있어 제가 승인할 수는 없습니다. 담당자가 확인하면 결과를 안내해 드립니다."
)
STATUS_KINDS = {
    nlu.MONEY: ("환불요청", "주문취소요청"),
    nlu.EXCHANGE_TOPIC: ("교환접수",),
    nlu.ADDRESS_TOPIC: ("배송지변경",),
}
STATUS_NOUN = {nlu.MONEY: "환불·취소", nlu.EXCHANGE_TOPIC: "교환", nlu.ADDRESS_TOPIC: "배송지 변경"}
SETTLED_LABELS = ("승인완료", "환불완료", "취소완료")
WHERE_ANSWERS = "상담원 답변은 이 채팅과 '내 문의'에 표시됩니다."


def _asked_about(request: Request, actions: list[dict]) -> list[dict]:
    """The records the customer's question names by product, nickname or order id (all if none is named)."""
    pseudo = [{"order_id": a.get("order_id"), "product_name": a.get("product_name", "")} for a in actions]
    for text_ in request.newest_first:
        named = {o["order_id"] for o in nlu.find_orders(text_, pseudo)}
        if named:
            return [a for a in actions if a.get("order_id") in named]
    return actions


def _money_seen_missing(request: Request, result: dict | None) -> bool:
    """ "카드 취소가 아직 안 됐어요" about a refund or cancellation a person already approved: not a status to
    repeat but a payment to check."""
    current = request.texts[-1] if request.texts else ""
    a = nlu.analyse(current)
    if nlu.status_topic(a) != nlu.MONEY or not a.says(*nlu.MISSING):
        return False
    actions = [x for x in (result or {}).get("actions") or [] if isinstance(x, dict)]
    money = [x for x in _asked_about(request, actions) if x.get("kind") in STATUS_KINDS[nlu.MONEY]]
    return any(x.get("status") in SETTLED_LABELS for x in money)


def reply_status(result: dict | None, request: Request) -> dict:
    """A question about how far something got, answered from the records: the number, the status, what
    happens next and where an answer will appear. Never a new ticket."""
    if not result or not result.get("ok"):
        return reply_failure(result)
    topic = nlu.status_topic(request.texts[-1] if request.texts else "")
    if topic is None:
        return reply_requests(result)
    actions = [a for a in result.get("actions") or [] if isinstance(a, dict)]
    tickets = [t for t in result.get("tickets") or [] if isinstance(t, dict)]
    if topic == nlu.ANSWER:
        if not tickets:
            return text("접수된 문의가 없습니다. 상담원과 이야기하시려면 '상담원 연결'이라고 말씀해 주세요.")
        lines = [_ticket_status_line(t) for t in tickets[:5]]
        return text("문의 처리 상황입니다.\n" + "\n".join(lines) + f"\n{WHERE_ANSWERS}")
    if topic:
        actions = [a for a in actions if a.get("kind") in STATUS_KINDS[topic]]
    actions = _asked_about(request, actions)
    if not actions and not (topic == "" and tickets):
        noun = STATUS_NOUN.get(topic, "")
        return text(f"접수된 {noun + ' ' if noun else ''}요청이 없습니다. {NEXT_STEP}")
    lines = [_action_status_line(a) for a in actions[:5]]
    if topic == "" and tickets:
        lines += [_ticket_status_line(t) for t in tickets[:3]]
    return text("처리 상황입니다.\n" + "\n".join(lines))


def _action_status_line(action: dict) -> str:
    product = action.get("product_name") or ""
    head = f"- {product} ({action.get('order_id', '')})" if product else f"- {action.get('order_id', '')}"
    line = f"{head} {action.get('kind', '')}: {action.get('status', '')} (처리번호 {action.get('action_id', '')})"
    message = action.get("status_message")
    return f"{line}. {message}" if message else line


def _ticket_status_line(ticket: dict) -> str:
    status = ticket.get("status", "")
    line = f"- 문의 {ticket.get('ticket_id', '')} ({ticket.get('category', '')}): {status}"
    if status == "답변완료":
        return f"{line}. 답변이 도착했습니다."
    if status == "종료":
        return f"{line}. 상담이 끝난 문의입니다."
    return f"{line}. 상담원이 확인하고 있습니다."


def _action_line(action: dict) -> str:
    a = {key: action.get(key, "") for key in ("action_id", "kind", "order_id", "status")}
    return f"- {a['action_id']} {a['kind']} · {a['order_id']} · {a['status']}"


def _ticket_line(ticket: dict) -> str:
    return f"- {ticket.get('ticket_id', '')} {ticket.get('category', '')} · {ticket.get('status', '')}"
