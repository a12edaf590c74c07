"""The built-in deterministic model: a stand-in for demos and tests, with no weights.

It speaks the Chat Completions protocol through `handle_http` (mounted as an in-process transport by
`llm.client` when no model is configured), so the agent, the fallback loop and `LLMCall` recording run
exactly as with a real model. Three kinds of request:

- structured (`response_format` present): dispatched by schema name to handlers other apps register
  with `register_structured`;
- agent (`tools` present): a keyword-driven Korean CS agent over the tools in `actions.tools`;
- anything else: a fixed help text.

The agent only ever proposes tool calls; what is allowed is decided by the tools, as with a real model.
It never guesses a refund/exchange reason: only the explicit labels count, anything else is 확인필요.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx2

from llm.fence import unfence
from llm.wire import STRUCTURED_NAME_PREFIX, completion_body, dumps, error_body, message_text, prompt_text

log = logging.getLogger(__name__)

__all__ = ["OfflineBadRequest", "handle_http", "register_structured", "respond", "unregister_structured"]


class OfflineBadRequest(Exception):
    """A request the offline model cannot serve; answered with HTTP 400 like a real server would."""


# --- HTTP ----------------------------------------------------------------------------------------
_completion_ids = itertools.count(1)


def handle_http(request: httpx2.Request) -> httpx2.Response:
    if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
        return _json_response(404, error_body(f"no route for {request.method} {request.url.path}", code="not_found"))
    try:
        body = json.loads(request.content or b"{}")
    except ValueError:
        return _json_response(400, error_body("request body is not JSON"))
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        return _json_response(400, error_body("'messages' is required"))
    try:
        message = respond(body)
    except OfflineBadRequest as exc:
        return _json_response(400, error_body(str(exc)))
    except Exception:
        # Surface our own bugs as a server error (recorded on LLMCall), not as a dropped connection.
        log.exception("llm.offline.error")
        return _json_response(500, error_body("offline model failed", type_="server_error"))
    completion = completion_body(
        model=str(body.get("model") or "offline"),
        message=message,
        completion_id=f"chatcmpl-offline-{next(_completion_ids)}",
        prompt_text=prompt_text(body),
    )
    return _json_response(200, completion)


def _json_response(status: int, payload: dict) -> httpx2.Response:
    return httpx2.Response(status, content=dumps(payload), headers={"content-type": "application/json"})


def respond(body: dict) -> dict:
    """The assistant message (a plain dict) for one Chat Completions request body."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if body.get("response_format"):
        return _respond_structured(body, messages)
    tools = body.get("tools") or []
    if tools:
        names = {t.get("function", {}).get("name") for t in tools if isinstance(t, dict)}
        return run_agent(messages, available_tools={n for n in names if n})
    return text(HELP_TEXT)


# --- structured ----------------------------------------------------------------------------------
StructuredHandler = Callable[[dict], dict]
_structured: dict[str, StructuredHandler] = {}


def register_structured(name: str, fn: StructuredHandler) -> None:
    """Register the offline answer for structured requests named `name`. `fn` gets the request body
    and returns the JSON object the model replies with. A later registration replaces an earlier one."""
    _structured[name] = fn


def unregister_structured(name: str) -> None:
    _structured.pop(name, None)


_NAME_LINE = re.compile("^" + re.escape(STRUCTURED_NAME_PREFIX) + r"(\S+)\s*$", re.MULTILINE)


def structured_name(body: dict) -> str | None:
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return (response_format.get("json_schema") or {}).get("name")
    for m in body.get("messages") or []:
        if isinstance(m, dict) and m.get("role") in ("system", "developer"):
            match = _NAME_LINE.search(message_text(m.get("content")))
            if match:
                return match.group(1)
    return None


def _respond_structured(body: dict, messages: list[dict]) -> dict:
    name = structured_name(body)
    handler = _structured.get(name or "")
    if handler is None:
        raise OfflineBadRequest(f"offline model has no structured handler for schema {name!r}")
    return text(json.dumps(handler(body), ensure_ascii=False))


# --- message helpers -----------------------------------------------------------------------------
def text(content: str) -> dict:
    return {"role": "assistant", "content": content}


def tool_call(call_id: str, name: str, args: dict) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)},
            }
        ],
    }


# --- the agent: reading the conversation ---------------------------------------------------------
ADDRESS, EXCHANGE, REFUND, TICKET, REQUESTS, ORDERS = "address", "exchange", "refund", "ticket", "requests", "orders"
ACTION_TOOL = {ADDRESS: "change_shipping_address", EXCHANGE: "request_exchange", REFUND: "request_refund"}
ACTION_LABEL = {ADDRESS: "배송지 변경", EXCHANGE: "교환", REFUND: "환불·취소"}
# Which orders an intent can apply to (status codes and their Korean labels, as get_my_orders reports).
FITTING_STATUS = {
    ADDRESS: {"PAID", "PREPARING", "결제완료", "배송준비"},
    EXCHANGE: {"DELIVERED", "배송완료"},
    REFUND: {"PAID", "PREPARING", "DELIVERED", "결제완료", "배송준비", "배송완료"},
}
# Checked in this order: listings first (their phrases are specific), then actions, then hand-offs,
# so "내 주문 환불해 주세요" is a refund, not an order listing.
INTENT_KEYWORDS: list[tuple[str, tuple[str, ...]]] = [
    (REQUESTS, ("요청 조회", "처리 현황", "내 요청", "접수 내역", "요청 내역")),
    (ADDRESS, ("배송지", "주소")),
    (EXCHANGE, ("교환",)),
    (REFUND, ("환불", "반품", "취소")),
    (TICKET, ("상담원", "사람", "통화", "연결", "보상", "결제 오류", "결제가 안", "로그인", "계정")),
    (ORDERS, ("주문 조회", "주문 내역", "내 주문")),
]
REASON_LABELS: dict[str, re.Pattern[str]] = {
    "단순변심": re.compile(r"단순\s?변심"),
    "상품하자": re.compile(r"상품\s?하자"),
    "오배송": re.compile(r"오배송"),
}
UNCLEAR = "확인필요"
CLARIFY_CHOICES = "단순변심 / 상품하자 / 오배송"
TICKET_CATEGORIES: list[tuple[tuple[str, ...], str]] = [
    (("결제",), "결제"),
    (("로그인", "계정"), "계정"),
    (("보상",), "보상"),
    (("오류",), "오류"),
    (("상담원", "통화", "사람", "연결"), "상담원연결"),
]
ORDER_ID = re.compile(r"HR[0-9]{11}")  # ASCII digits only: `\d` also matches ١٢٣ or １２
OPTION = re.compile(r"[가-힣A-Za-z]+/[0-9A-Za-z]+")
ADDRESS_PATTERNS = [
    re.compile(r"(?:배송지|주소)\s*(?:를|을)?\s*(.+?)\s*(?:으로|로)\s*(?:바꿔|변경|수정)"),
    re.compile(r"(?:배송지|주소)\s*(?:는|은)\s*(.+?)\s*(?:입니다|이에요|예요|에요|(?:으로|로)\s*해)"),
]
# Every question the agent asks ends with this phrase; an answer to it continues the earlier request.
ASK = "알려 주세요"
MAX_TOOL_ROUNDS = 3
MAX_REASON_LEN = 500
MAX_SUMMARY_LEN = 1000

HELP_TEXT = (
    "저는 다음 일을 도와드릴 수 있어요.\n"
    "- 주문 조회 (예: '내 주문 조회')\n"
    "- 출고 전 주문의 배송지 변경 (예: 'HR20260726002 배송지를 서울시 마포구 양화로 45 101호로 바꿔 주세요')\n"
    "- 배송 완료 주문의 교환 접수 (예: '운동화 블랙/260으로 교환해 주세요, 단순변심이에요')\n"
    "- 환불·주문 취소 요청 (담당자 승인 후 처리)\n"
    "- 내 요청 처리 현황 조회\n"
    "- 상담원 연결 (결제·계정 문제, 보상 요청 등)\n"
    "원하시는 내용을 말씀해 주세요."
)
NEXT_STEP = "다른 도움이 필요하시면 말씀해 주세요. '상담원 연결'이라고 하시면 상담원에게 넘겨 드립니다."


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
    intent: str | None
    texts: list[str]  # the customer's texts for this request, oldest first, current last
    hinted_order: str | None = None  # the single order our last question was about

    @property
    def joined(self) -> str:
        return " ".join(self.texts)

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
                run.result = _loads(message_text(m.get("content")))
    return turn


def _loads(raw: Any) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def detect_intent(text: str) -> str | None:
    for intent, keywords in INTENT_KEYWORDS:
        if any(keyword in text for keyword in keywords):
            return intent
    return None


def reason_labels(text: str) -> set[str]:
    return {label for label, pattern in REASON_LABELS.items() if pattern.search(text)}


def reason_category(request: Request) -> str:
    """Only an explicit label in the customer's own words counts; two different labels in one
    message, or none, is 확인필요 (the tool then asks the customer)."""
    for text_ in request.newest_first:
        labels = reason_labels(text_)
        if len(labels) == 1:
            return labels.pop()
        if labels:
            return UNCLEAR
    return UNCLEAR


def read_request(turn: Turn) -> Request:
    intent = detect_intent(turn.current)
    if intent is not None:
        return Request(intent, [turn.current])
    # A bare reason answer ("상품하자") continues the latest exchange/refund request; any other answer
    # to a question we asked continues the latest action request.
    if len(reason_labels(turn.current)) == 1:
        continued = _continue(turn, {EXCHANGE, REFUND})
        if continued:
            return continued
    last_reply = next((t for role, t in reversed(turn.prior) if role == "assistant"), "")
    if ASK in last_reply:
        continued = _continue(turn, {ADDRESS, EXCHANGE, REFUND})
        if continued:
            return continued
    return Request(None, [turn.current])


def _continue(turn: Turn, allowed: set[str]) -> Request | None:
    """Walk back over earlier customer messages without an intent (answers) to the latest one that
    had one; continue it if its intent is allowed."""
    texts = [turn.current]
    for index in range(len(turn.prior) - 1, -1, -1):
        role, text_ = turn.prior[index]
        if role != "user":
            continue
        intent = detect_intent(text_)
        if intent is None:
            texts.insert(0, text_)
            continue
        if intent not in allowed:
            return None
        texts.insert(0, text_)
        replies = [t for r, t in turn.prior[index + 1 :] if r == "assistant"]
        return Request(intent, texts, hinted_order=_single_order_named(replies))
    return None


def _single_order_named(replies: list[str]) -> str | None:
    for reply in reversed(replies):
        ids = set(ORDER_ID.findall(reply))
        if len(ids) == 1:
            return ids.pop()
    return None


# --- the agent: arguments --------------------------------------------------------------------------
def order_id_in(request: Request) -> str | None:
    for text_ in request.newest_first:
        match = ORDER_ID.search(text_)
        if match:
            return match.group(0)
    return request.hinted_order


def product_words(product_name: str) -> list[str]:
    return [product_name] + [word for word in product_name.split() if len(word) >= 2]


def resolve_order(request: Request, orders: list[dict]) -> tuple[dict | None, list[dict]]:
    """(the order, []) or (None, the candidates to ask about)."""
    fitting = [o for o in orders if _fits(o, request.intent)]
    named = [o for o in orders if any(w in request.joined for w in product_words(str(o.get("product_name", ""))))]
    if named:
        named_fitting = [o for o in named if _fits(o, request.intent)] or named
        if len(named_fitting) == 1:
            return named_fitting[0], []
        return None, named_fitting
    if len(fitting) == 1:
        return fitting[0], []
    if len(orders) == 1:
        return orders[0], []  # the tool will say why it cannot be done
    return None, fitting or orders


def _fits(order: dict, intent: str | None) -> bool:
    statuses = FITTING_STATUS.get(intent or "", set())
    return order.get("status_code") in statuses or order.get("status") in statuses


def new_address(request: Request, orders: list[dict]) -> str | None:
    for text_ in request.newest_first:
        for pattern in ADDRESS_PATTERNS:
            match = pattern.search(text_)
            if match:
                address = _strip_order_mentions(match.group(1), orders)
                if address:
                    return address
    if len(request.texts) > 1:
        # An answer to "새 배송지를 알려 주세요": addresses carry numbers, product or order answers do not.
        candidate = _strip_order_mentions(request.texts[-1], orders)
        if re.search(r"\d", candidate) and len(candidate) >= 5:
            return candidate
    return None


def _strip_order_mentions(text_: str, orders: list[dict]) -> str:
    text_ = ORDER_ID.sub(" ", text_)
    for order in orders:
        for word in product_words(str(order.get("product_name", ""))):
            if text_.strip().startswith(word):
                text_ = text_.strip()[len(word) :]
    text_ = re.sub(r"^\s*(?:주문|상품)?\s*(?:의|은|는|을|를)?\s+", " ", text_)
    return " ".join(text_.split()).strip(" ,.")


def new_option(request: Request) -> str | None:
    for text_ in request.newest_first:
        match = OPTION.search(text_)
        if match:
            return match.group(0)
    return None


def ticket_category(text_: str) -> str:
    for keywords, category in TICKET_CATEGORIES:
        if any(keyword in text_ for keyword in keywords):
            return category
    return "기타"


# --- the agent: deciding the next message -----------------------------------------------------------
def run_agent(messages: list[dict], *, available_tools: set[str]) -> dict:
    turn = read_turn(messages)
    request = read_request(turn)

    def call(name: str, args: dict) -> dict:
        if name not in available_tools:
            return text(f"지금은 이 요청을 처리할 수 없습니다. {NEXT_STEP}")
        return tool_call(f"call_{turn.calls_so_far + 1}", name, args)

    if turn.rounds >= MAX_TOOL_ROUNDS:
        return text(f"요청을 끝까지 처리하지 못했습니다. {NEXT_STEP}")
    if request.intent is None:
        return text(HELP_TEXT)

    if request.intent == REQUESTS:
        done = turn.result_of("get_my_requests")
        return reply_requests(done.result) if done else call("get_my_requests", {})
    if request.intent == ORDERS:
        done = turn.result_of("get_my_orders")
        return reply_orders(done.result) if done else call("get_my_orders", {})
    if request.intent == TICKET:
        done = turn.result_of("create_ticket")
        if done:
            return reply_ticket(done.result)
        summary = request.joined[:MAX_SUMMARY_LEN]
        return call("create_ticket", {"category": ticket_category(request.joined), "summary": summary})

    tool = ACTION_TOOL[request.intent]
    done = turn.result_of(tool)
    orders_run = turn.result_of("get_my_orders")
    orders = _orders(orders_run.result if orders_run else None)
    if done:
        return reply_action(request.intent, done, orders)

    order_id = order_id_in(request)
    order: dict | None = next((o for o in orders if o.get("order_id") == order_id), None) if order_id else None
    if order_id is None:
        if orders_run is None:
            if "get_my_orders" not in available_tools:
                return text(f"{ACTION_LABEL[request.intent]}할 주문번호(예: HR20260721001)를 {ASK}.")
            return call("get_my_orders", {})
        if not (orders_run.result or {}).get("ok", False):
            return reply_failure(orders_run.result)
        order, candidates = resolve_order(request, orders)
        if order is None:
            return ask_which_order(request.intent, candidates)
        order_id = str(order["order_id"])

    if request.intent == ADDRESS:
        address = new_address(request, orders)
        if not address:
            return text(
                f"주문 {_order_label(order_id, order)}의 새 배송지를 {ASK}. 도로명 주소와 상세주소까지 적어 주세요."
            )
        return call(tool, {"order_id": order_id, "new_address": address})

    args = {
        "order_id": order_id,
        "reason_category": reason_category(request),
        "reason": request.joined[:MAX_REASON_LEN],
    }
    if request.intent == EXCHANGE:
        option = new_option(request)
        if not option:
            current = f" (현재 옵션: {order['option']})" if order and order.get("option") else ""
            return text(f"주문 {_order_label(order_id, order)}을 어떤 옵션으로 교환할지 {ASK}{current}. 예: 블랙/260")
        args["new_option"] = option
    return call(tool, args)


def _orders(result: dict | None) -> list[dict]:
    orders = (result or {}).get("orders") or []
    return [o for o in orders if isinstance(o, dict) and o.get("order_id")]


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


def reply_action(intent: str, run: ToolRun, orders: list[dict]) -> dict:
    result = run.result
    if result is None:
        return text(f"처리 결과를 확인하지 못했습니다. {NEXT_STEP}")
    order_id = str(result.get("order_id") or run.args.get("order_id") or "")
    order = next((o for o in orders if o.get("order_id") == order_id), None)
    if not result.get("ok"):
        if result.get("needs_clarification"):
            what = "교환" if intent == EXCHANGE else "환불"
            return text(
                f"주문 {_order_label(order_id, order)}의 {what} 사유를 {ASK}. {CLARIFY_CHOICES} 중 하나로 답해 주세요."
            )
        return reply_failure(result)
    number = result.get("action_id", "")
    status = result.get("status", "")
    if result.get("already_pending"):
        return text(
            f"이미 승인을 기다리는 요청이 있습니다. 처리번호 {number} (상태: {status}). 담당자가 승인하면 처리됩니다."
        )
    if status == "승인대기":
        kind = result.get("kind") or "환불"
        return text(f"{kind}을 등록했습니다. 처리번호 {number} (상태: {status}). 담당자가 승인하면 처리됩니다.")
    done = result.get("message") or "처리했습니다."
    return text(f"{done} 처리번호 {number} (상태: {status}).")


def reply_failure(result: dict | None) -> dict:
    reason = (result or {}).get("reason") or "요청을 처리하지 못했습니다."
    return text(f"{reason} {NEXT_STEP}")


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


def _action_line(action: dict) -> str:
    a = {key: action.get(key, "") for key in ("action_id", "kind", "order_id", "status")}
    return f"- {a['action_id']} {a['kind']} · {a['order_id']} · {a['status']}"


def _ticket_line(ticket: dict) -> str:
    return f"- {ticket.get('ticket_id', '')} {ticket.get('category', '')} · {ticket.get('status', '')}"
