"""What the chat tests share: a turn through the chat API, and the tools the seed registers."""

# The agent's tools as chat/tools.py registers them, in the order the model is offered them.
SEED_TOOLS = [
    "get_my_orders",
    "change_shipping_address",
    "request_exchange",
    "request_refund",
    "create_ticket",
    "get_my_requests",
    "request_my_data",
    "request_human_review",
]


def say(api, text, conversation_id=None):
    """One chat turn through POST /api/chat/; the answer's JSON."""
    payload = {"message": text}
    if conversation_id:
        payload["conversation_id"] = conversation_id
    response = api.post("/api/chat/", payload, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def acted(body):
    """The results of a turn that did something or were refused: a request or ticket number, or ok False."""
    return [r for r in body["tool_results"] if r.get("action_id") or r.get("ticket_id") or r["ok"] is False]
