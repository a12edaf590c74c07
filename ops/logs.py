"""Key/value log lines for the web process, the Celery worker and model calls.

Every stdlib record goes through structlog's `ProcessorFormatter` (wired in `settings.LOGGING`) and comes out
as one logfmt line: `timestamp=... level=info logger=tickets.services event=ticket.created ticket_id=T00001`.
The project logs events as `"name key=value ..."` strings (`log.info("ticket.created ticket_id=%s", ...)`);
`split_event_message` turns such a message into the event name plus fields. Anything else (Django's
"Not Found: /x", Celery's "Task ... received") stays whole as `event="..."`.

`redact` is defence in depth, not the policy: code must not log phone numbers, e-mail addresses, addresses,
tokens or message bodies in the first place. It masks what slips through anyway, including tracebacks.

Imported by `logging.config.dictConfig` while Django sets up, before apps load: no models here.
"""

from __future__ import annotations

import logging
import re
from collections.abc import MutableMapping
from typing import Any

import structlog

from common.redaction import redact_personal

__all__ = [
    "REDACTED",
    "kv_formatter",
    "redact",
    "redact_text",
    "split_event_message",
    "structlog_configure",
    "use_django_logging_in_celery",
]

REDACTED = "[redacted]"
KEY_ORDER = ["timestamp", "level", "logger", "event"]

# "name key=value key=value": a dotted lowercase event name, then only key=value pairs without spaces.
_EVENT_MESSAGE = re.compile(r"^(?P<event>[a-z][a-z0-9_]*(?:[.:][a-z0-9_]+)+)(?P<rest>(?:\s+[A-Za-z_]\w*=\S*)*)\s*$")
_PAIR = re.compile(r"([A-Za-z_]\w*)=(\S*)")
# Keys whose value is never worth printing, whatever it looks like.
SENSITIVE_KEYS = frozenset(
    {
        "address",
        "api_key",
        "authorization",
        "body",
        "content",
        "cookie",
        "email",
        "message_body",
        "new_address",
        "old_address",
        "password",
        "phone",
        "secret",
        "shipping_address",
        "token",
    }
)


def redact_text(text: str) -> str:
    """Credentials and personal data, with the same patterns the diagnosis uses (`common.redaction`);
    tracebacks and hosts stay: they are what an engineer reads a log for."""
    return redact_personal(text)


def redact(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog processor: mask sensitive keys and sensitive-looking text in every string value."""
    for key, value in list(event_dict.items()):
        if key.startswith("_"):
            continue  # structlog's own bookkeeping (the LogRecord)
        if key.lower() in SENSITIVE_KEYS and value not in (None, "", "-"):
            event_dict[key] = REDACTED
        elif isinstance(value, str):
            event_dict[key] = redact_text(value)
    return event_dict


def split_event_message(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog processor: `"ticket.created ticket_id=T1"` → event="ticket.created", ticket_id="T1"."""
    event = event_dict.get("event")
    if not isinstance(event, str):
        return event_dict
    match = _EVENT_MESSAGE.match(event)
    if match is None:
        return event_dict
    event_dict["event"] = match["event"]
    for key, value in _PAIR.findall(match["rest"]):
        if key not in KEY_ORDER:
            event_dict.setdefault(key, value)
    return event_dict


def _shared_processors() -> list:
    return [
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


def kv_formatter(**_kwargs: Any) -> logging.Formatter:
    """The `()` factory for the "kv" formatter in settings.LOGGING."""
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=_shared_processors(),
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            split_event_message,
            structlog.processors.format_exc_info,
            redact,  # after format_exc_info: tracebacks are text by now and get masked too
            structlog.processors.LogfmtRenderer(key_order=KEY_ORDER, drop_missing=True),
        ],
    )


def structlog_configure() -> None:
    """Route `structlog.get_logger()` through stdlib logging, so both kinds share one handler and format."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.filter_by_level,
            *_shared_processors(),
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def _keep_django_logging(**_kwargs: Any) -> None:
    """Celery `setup_logging` receiver: its presence alone stops the worker from replacing the root
    logger's handlers, so the worker logs through settings.LOGGING like the web process."""


def use_django_logging_in_celery() -> None:
    from celery.signals import setup_logging

    setup_logging.connect(_keep_django_logging, weak=False, dispatch_uid="ops.logs.keep_django_logging")
