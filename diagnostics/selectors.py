"""Read-only: gather the service events around an inquiry for the operator-only error diagnosis.

The pipeline gathers the context in code for the inquiry's own customer and time and places it in the prompt
(`diagnostics.prompts`): the model cannot ask for another customer or another time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from common.numbering import parse_number
from common.redaction import redact, redact_obj
from diagnostics.models import ServiceEvent
from diagnostics.policy import EVENT_PREFIX

# A diagnosis is built from service events (request logs, traces): who may read those may read the diagnosis.
DIAGNOSIS_VIEW_PERMISSION = "diagnostics.view_serviceevent"

_KIND_KEYS = {
    ServiceEvent.Kind.REQUEST_LOG: "request_logs",
    ServiceEvent.Kind.TRACE: "traces",
    ServiceEvent.Kind.USAGE_EVENT: "usage_events",
}

_GUIDANCE = [
    "이용 이벤트는 고객의 행동 순서를 보여주는 보조 자료이며, 요청 처리 로그 없이 원인을 확정할 수 없다.",
    "이 목록은 문의 시간대의 이벤트만 담는다. 과거의 비슷한 오류는 이번 문의의 근거가 아니다.",
]


@dataclass(frozen=True)
class DiagnosticContext:
    customer_id: str
    inquiry_at: datetime
    window_start: datetime
    window_end: datetime
    request_logs: list[dict] = field(default_factory=list)
    traces: list[dict] = field(default_factory=list)
    usage_events: list[dict] = field(default_factory=list)
    truncated: bool = False

    @property
    def events(self) -> list[dict]:
        """All kinds together, in time order."""
        everything = self.request_logs + self.traces + self.usage_events
        return sorted(everything, key=lambda e: (e["occurred_at"], e["event_id"]))

    @property
    def counts(self) -> dict[str, int]:
        return {
            ServiceEvent.Kind.REQUEST_LOG.value: len(self.request_logs),
            ServiceEvent.Kind.TRACE.value: len(self.traces),
            ServiceEvent.Kind.USAGE_EVENT.value: len(self.usage_events),
        }

    def event_ids_by_kind(self) -> dict[str, set[str]]:
        """The `context_event_ids_by_kind` argument of `policy.enforce`."""
        return {
            ServiceEvent.Kind.REQUEST_LOG.value: {e["event_id"] for e in self.request_logs},
            ServiceEvent.Kind.TRACE.value: {e["event_id"] for e in self.traces},
            ServiceEvent.Kind.USAGE_EVENT.value: {e["event_id"] for e in self.usage_events},
        }

    def error_event_ids(self) -> set[str]:
        """The `error_event_ids` argument of `policy.enforce`."""
        return {e["event_id"] for e in self.request_logs + self.traces if e["is_error"]}

    def as_prompt_context(self) -> dict:
        return {
            "customer_id": self.customer_id,
            "inquiry_at": _iso(self.inquiry_at),
            "window": {"start": _iso(self.window_start), "end": _iso(self.window_end)},
            "counts": self.counts,
            "truncated": self.truncated,
            "request_logs": self.request_logs,
            "traces": self.traces,
            "usage_events": self.usage_events,
            "guidance": list(_GUIDANCE),
        }


def _zone() -> ZoneInfo:
    return ZoneInfo(settings.TIME_ZONE)


def _iso(moment: datetime) -> str:
    return moment.astimezone(_zone()).isoformat(timespec="seconds")


def _event_dict(event: ServiceEvent) -> dict:
    return {
        "event_id": event.event_id,
        "kind": event.kind,
        "occurred_at": event.occurred_at.astimezone(_zone()).isoformat(timespec="milliseconds"),
        "name": redact(event.name),
        "http_method": event.http_method,
        "status_code": event.status_code,
        "latency_ms": event.latency_ms,
        "trace_id": event.trace_id,
        "span_name": redact(event.span_name),
        "error_code": event.error_code,
        "is_error": event.is_error,
        "message": redact(event.message),
        "attributes": redact_obj(event.attributes),
    }


def diagnostic_context_gather(
    *,
    customer_id: str,
    inquiry_at: datetime,
    before: timedelta = timedelta(hours=2),
    after: timedelta = timedelta(minutes=10),
    limit: int = 50,
) -> DiagnosticContext:
    """The customer's events in [inquiry_at - before, inquiry_at + after], redacted, oldest first.

    Over `limit`, the most recent events are kept: those nearest the inquiry say the most about it.
    One query.
    """
    if timezone.is_naive(inquiry_at):
        raise ValueError("inquiry_at must be timezone-aware")
    if limit < 1:
        raise ValueError("limit must be positive")
    start, end = inquiry_at - before, inquiry_at + after
    rows = list(
        ServiceEvent.objects.filter(customer_id=customer_id, occurred_at__gte=start, occurred_at__lte=end).order_by(
            "-occurred_at", "-id"
        )[: limit + 1]
    )
    truncated = len(rows) > limit
    by_kind: dict[str, list[dict]] = {key: [] for key in _KIND_KEYS.values()}
    for event in reversed(rows[:limit]):
        by_kind[_KIND_KEYS[event.kind]].append(_event_dict(event))
    return DiagnosticContext(
        customer_id=customer_id,
        inquiry_at=inquiry_at,
        window_start=start,
        window_end=end,
        truncated=truncated,
        **by_kind,
    )


def service_events_by_event_id(event_ids: Iterable[str]) -> dict[str, ServiceEvent]:
    """The events named by ids such as 'E00012' (a diagnosis' citations), keyed by their normalised id. One
    query; ids that are not event ids or name no row are left out."""
    pks = {n for n in (parse_number(EVENT_PREFIX, str(e)) for e in event_ids) if n}
    if not pks:
        return {}
    return {event.event_id: event for event in ServiceEvent.objects.filter(pk__in=pks)}
