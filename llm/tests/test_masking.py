"""The choke point before the wire: every message masked, the one exception scoped to user messages."""

import json

import pytest

from llm.masking import KEEP_KEY, mask_messages

ADDRESS = "서울특별시 송파구 올림픽로 300, 101동 1502호"


def test_every_message_kind_is_masked_and_the_callers_list_is_left_alone():
    messages = [
        {"role": "system", "content": "규칙"},
        {"role": "user", "content": f"010-1234-5678 / {ADDRESS}"},
        {
            "role": "assistant",
            "content": "a@b.co",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "change_shipping_address",
                        "arguments": json.dumps({"order_id": "HR20260726002", "new_address": ADDRESS}),
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"note": "카드 4111-1111-1111-1111"}'},
        {"role": "user", "content": [{"type": "text", "text": "주민번호 900101-1234567"}]},
    ]
    before = json.dumps(messages, ensure_ascii=False)
    wire = mask_messages(messages)
    assert json.dumps(messages, ensure_ascii=False) == before
    text = json.dumps(wire, ensure_ascii=False)
    for secret in ("1234-5678", "올림픽로", "a@b.co", "4111", "900101"):
        assert secret not in text
    assert json.loads(wire[2]["tool_calls"][0]["function"]["arguments"]) == {
        "order_id": "HR20260726002",
        "new_address": "[주소]",
    }


def test_the_address_exception_keeps_addresses_only_and_never_reaches_the_wire():
    wire = mask_messages([{"role": "user", "content": f"{ADDRESS} 로, 010-1234-5678", KEEP_KEY: ["address"]}])
    assert wire == [{"role": "user", "content": f"{ADDRESS} 로, [전화번호]"}]


@pytest.mark.parametrize(
    "message",
    [
        {"role": "tool", "tool_call_id": "c1", "content": ADDRESS, KEEP_KEY: ["address"]},
        {"role": "assistant", "content": ADDRESS, KEEP_KEY: ["address"]},
        {"role": "system", "content": ADDRESS, KEEP_KEY: ["address"]},
        {"role": "user", "content": "010-1234-5678", KEEP_KEY: ["phone"]},
    ],
)
def test_the_exception_is_refused_anywhere_else(message):
    with pytest.raises(ValueError):
        mask_messages([message])
