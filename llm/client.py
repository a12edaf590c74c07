"""The model gateway: the only module in the project that imports `openai`.

One attempt on `CS_LLM_MODEL`, then exactly one on `CS_LLM_FALLBACK_MODEL`; the SDK's own retries are
off (`max_retries=0`) so a failing model costs two requests, never six. Every attempt is recorded as an
`LLMCall` row and one log line, without message bodies. With neither `OPENAI_API_KEY` nor
`OPENAI_BASE_URL` set, the same client talks to the built-in deterministic model in `llm.offline`
through an in-process transport, so everything above the wire behaves as with a real model.
Every message is masked (`llm.masking`, the project's one policy) on its way out, whoever built it.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx2
import openai
import pydantic
from django.conf import settings
from openai.types.chat import ChatCompletion

from common.text import strip_control_chars, strip_control_chars_deep
from llm import offline
from llm.errors import LLMError, LLMUnavailable
from llm.masking import mask_messages
from llm.models import LLMCall
from llm.wire import STRUCTURED_NAME_PREFIX

__all__ = [
    "ChatResult",
    "LLMError",
    "LLMUnavailable",
    "chat",
    "EndpointStatus",
    "clear_client_cache",
    "endpoint_check",
    "get_client",
    "is_offline",
    "strict_json_schema",
    "structured",
]

log = logging.getLogger(__name__)

OFFLINE_BASE_URL = "http://offline-model.local/v1"
OFFLINE_API_KEY = "offline"
OFFLINE_MODEL = "builtin-offline"  # what LLMCall rows and logs name when the built-in model answers
# A local OpenAI-compatible server (vLLM, llama.cpp, Ollama) usually needs no key, but the SDK wants one.
PLACEHOLDER_API_KEY = "not-needed"
CONNECT_TIMEOUT_S = 5.0
RETRYABLE_STATUS = frozenset({408, 409, 429})

M = TypeVar("M", bound=pydantic.BaseModel)


# --- client --------------------------------------------------------------------------------------
def is_offline() -> bool:
    return not (getattr(settings, "OPENAI_API_KEY", None) or getattr(settings, "OPENAI_BASE_URL", None))


def get_client() -> openai.OpenAI:
    """The client for the current settings, read at call time (tests override them)."""
    offline_mode = is_offline()
    return _build_client(
        base_url=None if offline_mode else getattr(settings, "OPENAI_BASE_URL", None),
        api_key=None if offline_mode else getattr(settings, "OPENAI_API_KEY", None),
        timeout_s=float(getattr(settings, "CS_LLM_TIMEOUT_S", 30.0)),
        offline_mode=offline_mode,
    )


@functools.lru_cache(maxsize=8)
def _build_client(*, base_url: str | None, api_key: str | None, timeout_s: float, offline_mode: bool) -> openai.OpenAI:
    timeout = httpx2.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s))
    if offline_mode:
        return openai.OpenAI(
            api_key=OFFLINE_API_KEY,
            base_url=OFFLINE_BASE_URL,
            timeout=timeout,
            max_retries=0,
            http_client=httpx2.Client(transport=httpx2.MockTransport(offline.handle_http), timeout=timeout),
        )
    return openai.OpenAI(
        api_key=api_key or PLACEHOLDER_API_KEY,
        base_url=base_url or None,
        timeout=timeout,
        max_retries=0,
    )


def clear_client_cache() -> None:
    _build_client.cache_clear()


# --- endpoint probe (manage.py doctor) -----------------------------------------------------------
@dataclass(frozen=True)
class EndpointStatus:
    ok: bool
    offline: bool
    detail: str  # what was tried and what came back, never a prompt or a key


def endpoint_check(*, timeout_s: float = 5.0) -> EndpointStatus:
    """Does the configured model endpoint answer? `GET /models` first (free); servers without it (404/405)
    get a 1-token chat call on CS_LLM_MODEL. No retries, a short timeout, no LLMCall row: a probe, not
    traffic. The built-in offline model has no endpoint to probe."""
    if is_offline():
        return EndpointStatus(ok=True, offline=True, detail="built-in offline model active, no model endpoint")
    model = str(getattr(settings, "CS_LLM_MODEL", "") or "")
    client = get_client().with_options(
        timeout=httpx2.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s)), max_retries=0
    )
    base_url = str(client.base_url)
    started = time.monotonic()
    method = "models.list"
    try:
        try:
            listed = [item.id for item in client.models.list().data]
            detail = f"{base_url} answered GET /models ({len(listed)} models)"
            if model and model not in listed:
                detail += f"; CS_LLM_MODEL={model} is not among them"
        except openai.APIStatusError as exc:
            if exc.status_code not in (404, 405):
                raise
            method = "chat.1token"
            client.chat.completions.create(
                model=model, messages=[{"role": "user", "content": "ping"}], max_tokens=1, temperature=0
            )
            detail = f"{base_url} answered a 1-token chat call on {model}"
        status = EndpointStatus(ok=True, offline=False, detail=detail)
        error_class = "-"
    except Exception as exc:
        error = _classify(exc, model)
        if error is None:
            raise
        error_class = error.error_class
        status = EndpointStatus(ok=False, offline=False, detail=f"{base_url} ({method}): {error}")
    log.info(
        "llm.endpoint_check ok=%s method=%s latency_ms=%d error_class=%s",
        status.ok,
        method,
        int((time.monotonic() - started) * 1000),
        error_class,
    )
    return status


# --- results -------------------------------------------------------------------------------------
@dataclass
class ChatResult:
    """One successful completion. `message` is a plain dict that can be appended to `messages` as is:
    {"role": "assistant", "content": str | None, "tool_calls": [{"id", "type": "function",
    "function": {"name", "arguments": str}}]} (`tool_calls` is always a list, possibly empty)."""

    message: dict
    model: str
    used_fallback: bool
    finish_reason: str | None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None

    @property
    def content(self) -> str:
        return self.message.get("content") or ""

    @property
    def tool_calls(self) -> list[dict]:
        return self.message.get("tool_calls") or []


# --- public calls --------------------------------------------------------------------------------
def chat(
    *,
    purpose: str,
    messages: list[dict],
    tools: list[dict] | None = None,
    temperature: float = 0,
    model: str | None = None,
) -> ChatResult:
    """`model` names one model to ask instead of CS_LLM_MODEL and its fallback (the eval harness's
    simulated user and judge); the built-in model answers whatever is named when none is configured."""
    request: dict[str, Any] = {"messages": _wire_messages(messages), "temperature": temperature}
    if tools:
        request["tools"] = tools
    _, result = _with_fallback(purpose=purpose, request=request, validate=None, model=model)
    return result


def structured(
    *, purpose: str, messages: list[dict], schema: type[M], name: str, model: str | None = None
) -> tuple[M, ChatResult]:
    """A reply parsed and validated into `schema`. Output that does not validate is a failed attempt
    (outcome INVALID) and goes to the fallback model once, like any other failure."""
    request: dict[str, Any] = {"messages": _wire_messages(messages), "temperature": 0}
    mode = getattr(settings, "CS_LLM_STRUCTURED_MODE", "json_schema")
    if mode == "json_schema":
        request["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": strict_json_schema(schema), "strict": True},
        }
    else:
        # Servers without json_schema support get the schema as an instruction; pydantic still checks.
        instruction = (
            f"{STRUCTURED_NAME_PREFIX}{name}\n"
            "Reply with one JSON object only, no prose, that validates against this JSON Schema:\n"
            + json.dumps(schema.model_json_schema(), ensure_ascii=False)
        )
        request["messages"] = [{"role": "system", "content": instruction}, *request["messages"]]
        request["response_format"] = {"type": "json_object"}

    def validate(result: ChatResult) -> M:
        return schema.model_validate_json(clean_json_text(result.content))

    parsed, result = _with_fallback(purpose=purpose, request=request, validate=validate, model=model)
    return parsed, result


def strict_json_schema(schema: type[pydantic.BaseModel]) -> dict:
    """The pydantic JSON schema in the shape OpenAI strict mode accepts: every object closed
    (`additionalProperties: false`) and listing all its properties as required. Fields with defaults
    thus become required on the wire; pydantic validation is unchanged."""
    return _make_strict(schema.model_json_schema())


def _make_strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_make_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _make_strict(value) for key, value in node.items() if key != "title"}
    if "properties" in node and isinstance(node["properties"], dict):
        # "title" is a legitimate property name here, so rebuild the properties map without filtering it.
        out["properties"] = {key: _make_strict(value) for key, value in node["properties"].items()}
        out["required"] = list(node["properties"])
        out["additionalProperties"] = False
    elif out.get("type") == "object":
        out.setdefault("additionalProperties", False)
    return out


# --- the fallback loop ----------------------------------------------------------------------------
def _with_fallback(
    *, purpose: str, request: dict[str, Any], validate: Callable[[ChatResult], Any] | None, model: str | None = None
) -> tuple[Any, ChatResult]:
    if is_offline():
        # The built-in model is deterministic: a second try would give the same answer.
        plan = [(OFFLINE_MODEL, False)]
    elif model:
        plan = [(model, False)]
    else:
        primary = getattr(settings, "CS_LLM_MODEL", "")
        fallback = getattr(settings, "CS_LLM_FALLBACK_MODEL", "")
        plan = [(primary, False)] + ([(fallback, True)] if fallback else [])
    client = get_client()
    failures: list[LLMError] = []
    for model, is_fallback in plan:
        try:
            return _attempt(
                client, purpose=purpose, model=model, is_fallback=is_fallback, request=request, validate=validate
            )
        except LLMError as exc:
            failures.append(exc)
    raise LLMUnavailable(failures)


def _attempt(
    client: openai.OpenAI,
    *,
    purpose: str,
    model: str,
    is_fallback: bool,
    request: dict[str, Any],
    validate: Callable[[ChatResult], Any] | None,
) -> tuple[Any, ChatResult]:
    started = time.monotonic()
    result: ChatResult | None = None
    try:
        # The request is plain JSON our own code built (masked messages, tool specs): posted as it is, through
        # the same client (its base URL, headers, timeout and error classes), without the SDK's per-call walk
        # over every message and schema (`chat.completions.create` transforms the whole body on each call).
        response = client.post("/chat/completions", body={"model": model, **request}, cast_to=ChatCompletion)
        result = _to_result(response, model=model, is_fallback=is_fallback)
        parsed = validate(result) if validate else None
    except pydantic.ValidationError as exc:
        error = LLMError(
            f"{model}: output failed validation ({exc.error_count()} error(s))",
            error_class="ValidationError",
            retryable=True,
            model=model,
        )
        _record(purpose, model, is_fallback, LLMCall.Outcome.INVALID, started, result, error)
        raise error from exc
    except Exception as exc:
        error = _classify(exc, model)
        if error is None:
            raise  # a bug on our side (bad arguments, etc.), not a model failure
        _record(purpose, model, is_fallback, LLMCall.Outcome.ERROR, started, result, error)
        raise error from exc
    _record(purpose, model, is_fallback, LLMCall.Outcome.OK, started, result, None)
    return parsed, result


class _Malformed(Exception):
    """A 200 response that is not a usable chat completion."""


def _to_result(response: Any, *, model: str, is_fallback: bool) -> ChatResult:
    # The SDK hands back a str, list or a half-empty model when the body is not a completion.
    if not isinstance(response, ChatCompletion) or not response.choices:
        raise _Malformed("response has no choices")
    choice = response.choices[0]
    if choice.message is None:
        raise _Malformed("choice has no message")
    tool_calls = []
    for tc in choice.message.tool_calls or []:
        function = getattr(tc, "function", None)
        if function is None or not function.name:
            raise _Malformed("tool call without a function")
        tool_calls.append(
            {
                "id": tc.id,
                "type": "function",
                "function": {
                    "name": strip_control_chars(function.name),
                    "arguments": clean_json_text(function.arguments or ""),
                },
            }
        )
    usage = response.usage
    return ChatResult(
        message={
            "role": "assistant",
            "content": strip_control_chars(choice.message.content)
            if choice.message.content
            else choice.message.content,
            "tool_calls": tool_calls,
        },
        model=response.model or model,
        used_fallback=is_fallback,
        finish_reason=choice.finish_reason,
        prompt_tokens=getattr(usage, "prompt_tokens", None) if usage else None,
        completion_tokens=getattr(usage, "completion_tokens", None) if usage else None,
    )


def clean_json_text(text: str) -> str:
    """Model output on its way in: NUL and other control characters (except newline and tab) removed, also
    where JSON escapes them (`\\u0000`), so no model can make a later database write fail. Text that is not
    JSON only loses the raw characters; whoever parses it reports it as invalid."""
    text = strip_control_chars(text)
    if "\\u00" not in text:
        return text
    try:
        return json.dumps(strip_control_chars_deep(json.loads(text)), ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


def _classify(exc: Exception, model: str) -> LLMError | None:
    """Map a failure to an LLMError, or None when it is not a model failure at all."""
    if isinstance(exc, openai.APITimeoutError):
        return LLMError(f"{model}: timed out", error_class="APITimeoutError", retryable=True, model=model)
    if isinstance(exc, openai.APIConnectionError):
        return LLMError(f"{model}: connection failed", error_class="APIConnectionError", retryable=True, model=model)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        return LLMError(
            f"{model}: HTTP {status}",
            error_class=type(exc).__name__,
            retryable=status in RETRYABLE_STATUS or status >= 500,
            model=model,
            status_code=status,
        )
    if isinstance(exc, (openai.APIResponseValidationError, _Malformed, ValueError)):
        # ValueError covers json.JSONDecodeError from an undecodable "application/json" body.
        return LLMError(f"{model}: malformed response", error_class="MalformedResponse", retryable=True, model=model)
    if isinstance(exc, openai.OpenAIError):
        return LLMError(f"{model}: {type(exc).__name__}", error_class=type(exc).__name__, retryable=False, model=model)
    return None


def _record(
    purpose: str,
    model: str,
    is_fallback: bool,
    outcome: str,
    started: float,
    result: ChatResult | None,
    error: LLMError | None,
) -> None:
    latency_ms = int((time.monotonic() - started) * 1000)
    error_class = error.error_class if error else ""
    log.log(
        logging.INFO if error is None else logging.WARNING,
        "llm.call purpose=%s model=%s is_fallback=%s outcome=%s latency_ms=%d error_class=%s",
        purpose,
        model,
        is_fallback,
        outcome,
        latency_ms,
        error_class or "-",
    )
    LLMCall.objects.create(
        purpose=purpose[:32],
        model=model[:100],
        is_fallback=is_fallback,
        outcome=outcome,
        error_class=error_class[:64],
        latency_ms=latency_ms,
        prompt_tokens=result.prompt_tokens if result else None,
        completion_tokens=result.completion_tokens if result else None,
    )


def _wire_messages(messages: list[dict]) -> list[dict]:
    """Messages as the API accepts them, masked (`llm.masking`: the one choke point before the wire).
    OpenAI rejects an assistant message with `tool_calls: []`, which is what `ChatResult.message` holds
    for a plain reply."""
    wire = []
    for message in mask_messages(messages):
        if "tool_calls" in message and not message["tool_calls"]:
            message = {key: value for key, value in message.items() if key != "tool_calls"}
        wire.append(message)
    return wire
