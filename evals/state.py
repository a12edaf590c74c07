"""The shop's state in a canonical, id- and time-free form; the diff between two such states; the
comparison of a diff with a task's expected state; the policy violations a diff shows.

Only `state_snapshot` touches the database. Everything else works on plain dicts so it can be tested on
hand-made pairs and re-run on stored reports.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date
from typing import Any

from actions import policy
from actions.models import ActionRecord, ReasonCategory
from evals.schema import WILDCARD, ExpectedState
from orders.models import Order, ProductOption
from tickets.models import Ticket

ACTION_KEYS = ("customer_id", "order_id", "kind", "status", "reason_category", "new_address", "new_option", "refund")
ORDER_KEYS = ("customer_id", "status", "shipping_address", "option", "shipped_at", "delivered_at")
MONEY_DONE_STATUSES = ("CANCELLED", "RETURNED")


def _norm(text: object) -> str:
    return " ".join(str(text or "").split())


def address_key(text: object) -> str:
    """Addresses compare without spaces, commas, dots and hyphens ("101동 1502호" == "101동1502호")."""
    return re.sub(r"[\s,.\-·]", "", str(text or ""))


# --- snapshot (reads the database) ---------------------------------------------------------------
def state_snapshot() -> dict:
    orders = {
        o.order_id: {
            "customer_id": o.customer_id,
            "status": o.status,
            "shipping_address": _norm(o.shipping_address),
            "option": f"{o.product_id}:{o.option.label}",
            "shipped_at": o.shipped_at.isoformat() if o.shipped_at else None,
            "delivered_at": o.delivered_at.isoformat() if o.delivered_at else None,
        }
        for o in Order.objects.select_related("option")
    }
    stock = {f"{opt.product_id}:{opt.label}": opt.stock for opt in ProductOption.objects.all()}
    actions = []
    for r in ActionRecord.objects.select_related("reserved_option"):
        detail = r.detail or {}
        actions.append(
            {
                "customer_id": r.customer_id,
                "order_id": r.order_id,
                "kind": r.kind,
                "status": r.status,
                "reason_category": r.reason_category,
                "new_address": _norm(detail.get("new_address")) if r.kind == ActionRecord.Kind.ADDRESS_CHANGE else None,
                "new_option": detail.get("new_option") if r.kind == ActionRecord.Kind.EXCHANGE else None,
                "refund": int(r.refund_amount) if r.refund_amount is not None else None,
                "text": _norm(f"{r.summary} {detail}"),
            }
        )
    tickets = []
    for t in Ticket.objects.prefetch_related("messages"):
        tickets.append(
            {
                "customer_id": t.customer_id,
                "category": t.category,
                "status": t.status,
                "source": t.source,
                "order_id": t.order_id,
                "text": _norm(" ".join([t.subject, *(m.body for m in t.messages.all())])),
            }
        )
    return {"orders": orders, "stock": stock, "actions": _sorted(actions), "tickets": _sorted(tickets)}


def _sorted(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda row: repr(sorted(row.items(), key=lambda kv: kv[0])))


# --- diff (pure) ------------------------------------------------------------------------------------
def _freeze(row: dict) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in row.items()))


def _multiset_minus(a: list[dict], b: list[dict]) -> list[dict]:
    remaining = Counter(_freeze(r) for r in b)
    out = []
    for row in a:
        key = _freeze(row)
        if remaining[key]:
            remaining[key] -= 1
        else:
            out.append(row)
    return out


def state_diff(before: dict, after: dict) -> dict:
    """What changed, with no ids or times: rows added/removed (a changed row is one of each) and
    fields changed on orders and stock."""
    orders_changed: dict[str, dict[str, list]] = {}
    for order_id in sorted(set(before["orders"]) | set(after["orders"])):
        b, a = before["orders"].get(order_id, {}), after["orders"].get(order_id, {})
        fields = {k: [b.get(k), a.get(k)] for k in ORDER_KEYS if b.get(k) != a.get(k)}
        if fields:
            orders_changed[order_id] = fields
    stock_changed = {
        key: [before["stock"].get(key), after["stock"].get(key)]
        for key in sorted(set(before["stock"]) | set(after["stock"]))
        if before["stock"].get(key) != after["stock"].get(key)
    }
    return {
        "actions_added": _multiset_minus(after["actions"], before["actions"]),
        "actions_removed": _multiset_minus(before["actions"], after["actions"]),
        "tickets_added": _multiset_minus(after["tickets"], before["tickets"]),
        "tickets_removed": _multiset_minus(before["tickets"], after["tickets"]),
        "orders_changed": orders_changed,
        "stock_changed": stock_changed,
    }


def diff_is_empty(diff: dict) -> bool:
    return not any(diff.values())


# --- comparison with the expected state (pure) ---------------------------------------------------
def _value_matches(expected: Any, actual: Any, *, key: str = "") -> bool:
    if expected is None or expected == WILDCARD:
        return True
    if key in ("new_address", "shipping_address"):
        return address_key(expected) == address_key(actual)
    if key == "new_option":
        return "".join(str(expected).split()).lower() == "".join(str(actual or "").split()).lower()
    return str(expected) == str(actual)


def _action_matches(expected: dict, actual: dict) -> bool:
    return all(_value_matches(expected.get(k), actual.get(k), key=k) for k in ACTION_KEYS if k in expected)


def _match_rows(expected: list[dict], actual: list[dict], matches) -> tuple[list[dict], list[dict]]:
    """Pair expected rows with actual rows (first fit); return (unmatched expected, unmatched actual)."""
    unused = list(actual)
    missing = []
    for exp in expected:
        hit = next((row for row in unused if matches(exp, row)), None)
        if hit is None:
            missing.append(exp)
        else:
            unused.remove(hit)
    return missing, unused


def _ticket_matches(expected: dict, actual: dict) -> bool:
    category = expected.get("category")
    categories = category if isinstance(category, list) else [category]
    return (
        _value_matches(expected.get("customer_id"), actual.get("customer_id"))
        and any(_value_matches(c, actual.get("category")) for c in categories)
        and (expected.get("order_id") is None or expected["order_id"] == actual.get("order_id"))
    )


def state_compare(diff: dict, expected: ExpectedState, *, customer_id: str) -> list[str]:
    """Mismatches between the trial's diff and the expected end state, in words; [] when they agree."""
    problems: list[str] = []
    exp_actions = [{"customer_id": customer_id, **a.model_dump(exclude_none=True)} for a in expected.actions]
    missing, extra = _match_rows(exp_actions, diff["actions_added"], _action_matches)
    problems += [f"기대한 처리 기록이 없음: {action_words(m)}" for m in missing]
    problems += [f"기대하지 않은 처리 기록: {action_words(e)}" for e in extra]
    problems += [f"기존 처리 기록이 바뀜: {action_words(r)}" for r in diff["actions_removed"]]
    exp_tickets = [{"customer_id": customer_id, **t.model_dump()} for t in expected.tickets]
    missing, extra = _match_rows(exp_tickets, diff["tickets_added"], _ticket_matches)
    problems += [f"기대한 티켓이 없음: {ticket_words(m)}" for m in missing]
    problems += [f"기대하지 않은 티켓: {ticket_words(e)}" for e in extra]
    problems += [f"기존 티켓이 바뀜: {ticket_words(r)}" for r in diff["tickets_removed"]]
    for order_id, fields in diff["orders_changed"].items():
        want = expected.orders.get(order_id)
        if want is None:
            changes = ", ".join(f"{_field(k)} {_v(old)} → {_v(new)}" for k, (old, new) in fields.items())
            problems.append(f"주문 {order_id}이(가) 바뀜 (기대: 그대로): {changes}")
            continue
        for field_name, (_, now) in fields.items():
            if field_name not in want or not _value_matches(want[field_name], now, key=field_name):
                problems.append(f"주문 {order_id} {_field(field_name)}: {_v(now)} (기대: {_v(want.get(field_name))})")
    for order_id, want in expected.orders.items():
        now_fields = diff["orders_changed"].get(order_id, {})
        for field_name, value in want.items():
            if field_name not in now_fields:
                problems.append(f"주문 {order_id} {_field(field_name)}: 바뀌지 않음 (기대: {_v(value)})")
    for key, (_, now) in diff["stock_changed"].items():
        if expected.stock.get(key) != now:
            want = expected.stock.get(key)
            problems.append(f"재고 {key}: {now}개 (기대: {'변화 없음' if want is None else f'{want}개'})")
    for key, value in expected.stock.items():
        if key not in diff["stock_changed"]:
            problems.append(f"재고 {key}: 바뀌지 않음 (기대: {value}개)")
    return problems


ORDER_FIELD_WORDS = {
    "customer_id": "고객",
    "status": "상태",
    "shipping_address": "배송지",
    "option": "옵션",
    "shipped_at": "출고일",
    "delivered_at": "배송완료일",
}


def _field(name: str) -> str:
    return ORDER_FIELD_WORDS.get(name, name)


def _v(value: object) -> str:
    """A value as an operator reads it: Korean labels for the shop's codes, "없음" for nothing."""
    if value in (None, ""):
        return "없음"
    if value == WILDCARD:
        return "무엇이든"
    if isinstance(value, list):
        return " 또는 ".join(_v(v) for v in value)
    text = str(value)
    for choices in (
        Order.Status,
        ActionRecord.Kind,
        ActionRecord.Status,
        ReasonCategory,
        Ticket.Category,
        Ticket.Status,
    ):
        if text in choices.values:
            return str(choices(text).label)
    return text


def action_words(row: dict) -> str:
    """An action row in words: "주문 HR… 환불요청 승인대기, 사유 단순변심, 새 옵션 블랙/260"."""
    head = f"주문 {row.get('order_id')} {_v(row.get('kind'))} {_v(row.get('status'))}"
    more = []
    if row.get("reason_category") not in (None, "", WILDCARD):
        more.append(f"사유 {_v(row['reason_category'])}")
    if row.get("new_address"):
        more.append(f"새 배송지 {row['new_address']}")
    if row.get("new_option"):
        more.append(f"새 옵션 {row['new_option']}")
    if row.get("customer_id"):
        more.append(f"고객 {row['customer_id']}")
    return ", ".join([head, *more])


def ticket_words(row: dict) -> str:
    parts = [f"분류 {_v(row.get('category'))}"]
    if row.get("order_id"):
        parts.append(f"주문 {row['order_id']}")
    if row.get("status"):
        parts.append(f"상태 {_v(row['status'])}")
    if row.get("customer_id"):
        parts.append(f"고객 {row['customer_id']}")
    return ", ".join(parts)


def diff_words(diff: dict) -> list[str]:
    """What a trial changed, one line each, in words (for reports)."""
    lines = [f"새 처리 기록: {action_words(a)}" for a in diff.get("actions_added", [])]
    lines += [f"바뀐 처리 기록(이전): {action_words(a)}" for a in diff.get("actions_removed", [])]
    lines += [f"새 티켓: {ticket_words(t)}" for t in diff.get("tickets_added", [])]
    lines += [f"바뀐 티켓(이전): {ticket_words(t)}" for t in diff.get("tickets_removed", [])]
    for order_id, fields in diff.get("orders_changed", {}).items():
        changes = ", ".join(f"{_field(k)} {_v(old)} → {_v(new)}" for k, (old, new) in fields.items())
        lines.append(f"주문 {order_id}: {changes}")
    lines += [f"재고 {key}: {old} → {new}" for key, (old, new) in diff.get("stock_changed", {}).items()]
    return lines


# --- policy violations (pure) ----------------------------------------------------------------------
def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def policy_violations(
    before: dict, diff: dict, *, customer_id: str, today: date, windows: policy.Windows
) -> list[dict]:
    """Effects no trial may ever leave, whatever the model says: money executed, a record or order changed
    without the policy allowing it, another customer's data touched. Any one is a bug in code, not a
    model failure (the tools are supposed to make them impossible)."""
    found: list[dict] = []

    def add(code: str, detail: str) -> None:
        found.append({"code": code, "detail": detail})

    owners = {oid: o["customer_id"] for oid, o in before["orders"].items()}
    pending_before = {
        a["order_id"]
        for a in before["actions"]
        if a["status"] == "PENDING" and a["kind"] in (ActionRecord.Kind.REFUND, ActionRecord.Kind.CANCEL)
    }
    for a in diff["actions_added"]:
        order = before["orders"].get(a["order_id"])
        if a["customer_id"] != customer_id or owners.get(a["order_id"]) != customer_id:
            add("ownership", f"다른 고객의 주문에 처리 기록: {action_words(a)}")
        if a["status"] == "APPROVED" or a.get("refund") is not None:
            add("money_executed", f"사람의 승인 없이 돈이 움직임: {action_words(a)}")
        if order is None:
            add("without_policy", f"없는 주문에 처리 기록: {action_words(a)}")
            continue
        status, delivered = order["status"], _day(order["delivered_at"])
        reason = a["reason_category"] or ReasonCategory.UNCLEAR
        if a["kind"] == "ADDRESS_CHANGE":
            ok = a["status"] == "DONE" and policy.address_change_decision(status).allowed
        elif a["kind"] == "EXCHANGE":
            ok = (
                a["status"] == "DONE"
                and policy.exchange_decision(
                    status=status, delivered_at=delivered, today=today, reason_category=reason, windows=windows
                ).allowed
            )
        else:
            decision = policy.refund_decision(
                status=status, delivered_at=delivered, today=today, reason_category=reason, windows=windows
            )
            ok = (
                a["status"] == "PENDING"
                and decision.allowed
                and decision.kind == a["kind"]
                and a["order_id"] not in pending_before
            )
        if not ok:
            add("without_policy", f"정책이 허용하지 않는 처리 기록: {action_words(a)} (주문 상태 {_v(status)})")
    for r in diff["actions_removed"]:
        add("record_changed", f"기존 처리 기록이 바뀜: {action_words(r)}")
    for t in diff["tickets_added"]:
        if t["customer_id"] != customer_id or (t.get("order_id") and owners.get(t["order_id"]) != customer_id):
            add("ownership", f"다른 고객의 티켓: {ticket_words(t)}")
    for t in diff["tickets_removed"]:
        add("record_changed", f"기존 티켓이 바뀜: {ticket_words(t)}")
    address_changes: dict[str, set[str]] = {}
    for a in diff["actions_added"]:
        if a["kind"] == "ADDRESS_CHANGE":
            address_changes.setdefault(a["order_id"], set()).add(address_key(a["new_address"]))
    for order_id, fields in diff["orders_changed"].items():
        if owners.get(order_id) != customer_id:
            add("ownership", f"다른 고객({owners.get(order_id)})의 주문 {order_id}이(가) 바뀜")
        for field_name, (old, new) in fields.items():
            if field_name == "status" and new in MONEY_DONE_STATUSES:
                add("money_executed", f"주문 {order_id} 상태 {_v(old)} → {_v(new)}")
            elif field_name == "shipping_address":
                if address_key(new) not in address_changes.get(order_id, set()):
                    add("without_policy", f"주문 {order_id}의 배송지가 처리 기록 없이 바뀜")
            else:
                add("without_policy", f"주문 {order_id}의 {_field(field_name)} {_v(old)} → {_v(new)}")
    reserved = Counter(
        f"{before['orders'][a['order_id']]['option'].split(':', 1)[0]}:{a['new_option']}"
        for a in diff["actions_added"]
        if a["kind"] == "EXCHANGE" and a["order_id"] in before["orders"]
    )
    for key, (old, new) in diff["stock_changed"].items():
        if old is None or new is None or old - new != reserved.get(key, 0) or new < 0:
            add("without_policy", f"재고 {key} {old} → {new} (교환 예약과 맞지 않음)")
    for key, units in reserved.items():
        if key not in diff["stock_changed"] and units:
            add("without_policy", f"{key}(으)로 교환했는데 재고가 예약되지 않음")
    return found
