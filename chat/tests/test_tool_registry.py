"""Adding an agent tool (docs/ARCHITECTURE.md, "Adding an agent tool"): one function, its arguments' schema and
one registration in chat/tools.py. This test registers the worked example — a read-only order-status tool —
the way chat/tools.py would, and drives it through the real chat API and the real openai client."""

import pytest
from pydantic import Field

from chat.apis import ToolResultSerializer
from chat.models import ChatMessage, ToolCall
from chat.tests.support import SEED_TOOLS
from chat.tools import (
    CLARIFY_CHOICES,
    TOOLS,
    ToolContext,
    ToolResult,
    _Args,
    agent_tool,
    agent_tool_unregister,
    make_action_tools,
    tool_error_label,
    tool_label,
)
from llm.testing import text_message, tool_calls_message
from orders.models import Order
from orders.selectors import customer_order_get
from orders.tests.factories import OrderFactory

pytestmark = pytest.mark.django_db


# --- the worked example, as it would read in chat/tools.py -----------------------------------------------------
class OrderStatusArgs(_Args):
    order_id: str = Field(description="주문번호 (예: HR20260721001)", min_length=1, max_length=32)


def get_order_status(ctx: ToolContext, args: OrderStatusArgs) -> dict:
    order = customer_order_get(customer=ctx.customer, order_id=args.order_id)  # NotFound → ok=False for the model
    return {"ok": True, "order_id": order.order_id, "status": order.get_status_display()}


@pytest.fixture
def order_status_tool():
    agent_tool("고객 본인의 주문 하나의 현재 상태를 조회한다.", label="주문 상태 조회")(get_order_status)
    yield
    agent_tool_unregister("get_order_status")


# ----------------------------------------------------------------------------------------------------------------
def test_the_agents_tools_are_the_seeds_six(db):
    assert list(TOOLS) == SEED_TOOLS


def test_every_tool_has_the_korean_label_operators_read(db):
    assert {name: tool_label(name) for name in TOOLS} == {
        "get_my_orders": "주문 조회",
        "change_shipping_address": "배송지 변경",
        "request_exchange": "교환 접수",
        "request_refund": "환불 요청",
        "create_ticket": "상담 요청 접수",
        "get_my_requests": "처리 내역 조회",
        "request_my_data": "개인정보 요청 접수",
        "request_human_review": "자동 처리 재검토 요청",
    }
    assert tool_label("refund_now") == "알 수 없는 도구"  # a name the model made up
    assert tool_error_label("unknown_tool") == "없는 도구 호출" and tool_error_label("") == ""


def test_a_tool_without_a_label_is_not_registered(db):
    with pytest.raises(ValueError, match="Korean label"):
        agent_tool("설명", label=" ")(get_order_status)
    assert "get_order_status" not in TOOLS


def test_a_registered_tool_is_offered_to_the_model_with_its_schema(customer, order_status_tool):
    registry = make_action_tools(customer)
    assert registry.names == [*SEED_TOOLS, "get_order_status"]
    spec = registry.specs()[-1]["function"]
    assert spec["name"] == "get_order_status"
    assert spec["parameters"]["required"] == ["order_id"]
    assert "title" not in spec["parameters"]["properties"]["order_id"]


def test_a_registered_tool_runs_in_a_chat_turn_for_the_bound_customer_only(
    customer, customer_api, scripted_model, order_status_tool
):
    mine = OrderFactory(customer=customer, status=Order.Status.PREPARING)
    foreign = OrderFactory()
    scripted_model.push(
        tool_calls_message(
            [
                ("get_order_status", {"order_id": mine.pk}),
                ("get_order_status", {"order_id": foreign.pk, "customer_id": foreign.customer_id}),
                ("get_order_status", {}),
            ]
        ),
        text_message("주문 상태를 안내드립니다."),
    )
    response = customer_api.post("/api/chat/", {"message": "주문 상태 알려 주세요"}, format="json")
    assert response.status_code == 200, response.content
    results = response.json()["tool_results"]
    assert [(r["tool"], r["tool_label"], r["ok"]) for r in results] == [
        ("get_order_status", "주문 상태 조회", True),
        ("get_order_status", "주문 상태 조회", False),  # another customer's order reads as a missing one
        ("get_order_status", "주문 상태 조회", False),  # the schema requires an order id
    ]
    # The tool returned its status as a label only: the code field stays empty rather than carry the label.
    assert (results[0].get("status"), results[0]["status_display"]) == (None, "배송준비")
    assert [(r["tool"], r["ok"]) for r in results] == [
        ("get_order_status", True),
        ("get_order_status", False),  # another customer's order reads as a missing one
        ("get_order_status", False),  # the schema requires an order id
    ]
    assert list(ToolCall.objects.filter(tool="get_order_status").values_list("ok", flat=True).order_by("id")) == [
        True,
        False,
        False,
    ]
    tool_messages = [m for m in scripted_model.requests[1]["messages"] if m["role"] == "tool"]
    assert Order.objects.get(pk=mine.pk).get_status_display() in tool_messages[0]["content"]
    assert "invalid_arguments" in tool_messages[2]["content"]


def test_a_tool_is_named_by_its_function_and_its_schema_is_its_args_annotation(order_status_tool):
    tool = TOOLS["get_order_status"]
    assert (tool.name, tool.args_model, tool.handler, tool.label) == (
        "get_order_status",
        OrderStatusArgs,
        get_order_status,
        "주문 상태 조회",
    )


def test_a_tool_whose_args_are_not_a_schema_is_not_registered(db):
    def get_order_note(ctx: ToolContext, args: dict) -> dict:
        return {"ok": True}

    with pytest.raises(TypeError, match="_Args schema"):
        agent_tool("설명", label="주문 메모")(get_order_note)
    assert "get_order_note" not in TOOLS


def test_a_name_is_registered_once(order_status_tool):
    with pytest.raises(ValueError, match="registered twice"):
        agent_tool("다른 설명", label="다른 이름")(get_order_status)


# --- what the customer is shown of a call: one typed result ---------------------------------------------------
def test_a_tool_result_carries_the_code_and_the_label_of_the_tool_and_of_the_status():
    result = ToolResult.from_call(
        "request_refund",
        {"ok": True, "action_id": "A00001", "status": "승인대기", "status_code": "PENDING", "message": "등록"},
    )
    assert result.as_dict() == {
        "tool": "request_refund",
        "tool_label": "환불 요청",
        "ok": True,
        "action_id": "A00001",
        "status": "PENDING",
        "status_display": "승인대기",
    }
    refused = ToolResult.from_call(
        "request_exchange", {"ok": False, "reason": "사유?", "needs_clarification": True, "choices": CLARIFY_CHOICES}
    )
    assert (refused.tool_label, refused.needs_clarification, refused.choices) == ("교환 접수", True, CLARIFY_CHOICES)
    assert ToolResult.from_call("refund_now", {"ok": False, "error": "unknown_tool"}).tool_label == "알 수 없는 도구"


def test_the_api_fields_of_a_tool_result_are_the_typed_results_fields():
    assert list(ToolResultSerializer().fields) == [f for f in ToolResult.__dataclass_fields__]
    required = {name for name, f in ToolResultSerializer().fields.items() if f.required}
    assert required == {"tool", "tool_label", "ok"}


def test_a_result_stored_before_results_had_labels_is_shown_with_them(customer_api, scripted_model):
    scripted_model.push(text_message("네"))
    conversation_id = customer_api.post("/api/chat/", {"message": "안녕하세요"}, format="json").json()[
        "conversation_id"
    ]
    ChatMessage.objects.filter(role="assistant").update(
        tool_results=[
            {"tool": "request_exchange", "ok": False, "reason": "사유를 골라 주세요", "needs_clarification": True},
            {"tool": "create_ticket", "ok": True, "ticket_id": "T00001", "status": "OPEN", "status_display": "접수"},
        ]
    )
    shown = customer_api.get(f"/api/chat/{conversation_id}/").json()["messages"][-1]["tool_results"]
    assert [(r["tool_label"], r.get("choices")) for r in shown] == [
        ("교환 접수", CLARIFY_CHOICES),
        ("상담 요청 접수", None),
    ]
