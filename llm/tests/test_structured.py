from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from llm.client import LLMUnavailable, strict_json_schema, structured
from llm.models import LLMCall
from llm.testing import text_message

pytestmark = pytest.mark.django_db


class Tag(BaseModel):
    name: str
    score: float = 0.0


class Draft(BaseModel):
    title: str
    body: str = Field(min_length=1)
    tags: list[Tag] = []


GOOD = {"title": "배송 안내", "body": "내일 도착합니다.", "tags": [{"name": "배송", "score": 0.9}]}
MESSAGES = [{"role": "user", "content": "초안을 써 주세요"}]


def test_valid_output_is_parsed_and_json_schema_sent(scripted_model):
    scripted_model.push(text_message(json.dumps(GOOD, ensure_ascii=False)))

    draft, result = structured(purpose="draft", messages=MESSAGES, schema=Draft, name="draft_reply")

    assert draft == Draft.model_validate(GOOD)
    assert result.used_fallback is False
    response_format = scripted_model.requests[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "draft_reply"
    assert response_format["json_schema"]["strict"] is True
    assert response_format["json_schema"]["schema"] == strict_json_schema(Draft)
    assert LLMCall.objects.get().outcome == LLMCall.Outcome.OK


def test_invalid_output_counts_as_failed_attempt_and_goes_to_fallback(scripted_model):
    scripted_model.push(text_message('{"title": "x", "body": ""}'), text_message(json.dumps(GOOD)))

    draft, result = structured(purpose="draft", messages=MESSAGES, schema=Draft, name="draft_reply")

    assert draft.title == "배송 안내"
    assert result.model == "strong-model"
    assert scripted_model.models_seen == ["fast-model", "strong-model"]
    rows = [(c.is_fallback, c.outcome, c.error_class) for c in LLMCall.objects.order_by("id")]
    assert rows == [(False, LLMCall.Outcome.INVALID, "ValidationError"), (True, LLMCall.Outcome.OK, "")]
    assert LLMCall.objects.get(outcome=LLMCall.Outcome.INVALID).completion_tokens is not None


def test_non_json_output_twice_raises_unavailable(scripted_model):
    scripted_model.push(text_message("죄송하지만 JSON은 못 써요"), text_message(""))

    with pytest.raises(LLMUnavailable) as info:
        structured(purpose="qa", messages=MESSAGES, schema=Draft, name="draft_reply")

    assert [a.error_class for a in info.value.attempts] == ["ValidationError", "ValidationError"]
    assert LLMCall.objects.filter(outcome=LLMCall.Outcome.INVALID).count() == 2


def test_json_object_mode_describes_schema_in_a_system_message(scripted_model, settings):
    settings.CS_LLM_STRUCTURED_MODE = "json_object"
    scripted_model.push(text_message(json.dumps(GOOD)))

    draft, _ = structured(purpose="draft", messages=MESSAGES, schema=Draft, name="draft_reply")

    assert draft.body == "내일 도착합니다."
    sent = scripted_model.requests[0]
    assert sent["response_format"] == {"type": "json_object"}
    system = sent["messages"][0]
    assert system["role"] == "system"
    assert "JSON schema name: draft_reply" in system["content"]
    assert '"title"' in system["content"] and "JSON" in system["content"]
    assert sent["messages"][1:] == MESSAGES


def test_strict_schema_closes_every_object_and_requires_all_properties():
    schema = strict_json_schema(Draft)

    assert schema["additionalProperties"] is False
    assert schema["required"] == ["title", "body", "tags"]
    tag = schema["$defs"]["Tag"]
    assert tag["additionalProperties"] is False
    assert tag["required"] == ["name", "score"]
    assert "title" not in schema and "title" not in schema["properties"]["body"]


def test_strict_schema_keeps_a_property_named_title():
    class Titled(BaseModel):
        title: str

    assert list(strict_json_schema(Titled)["properties"]) == ["title"]
