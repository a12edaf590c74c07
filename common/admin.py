from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from django import forms
from django.contrib import admin, messages
from django.db import models
from django.urls import reverse
from django.utils.http import urlencode

from common.display import payload_line
from common.errors import DomainError
from common.live import live_staff_allowed, live_staff_cursor
from common.models import OutboxMessage

Row = TypeVar("Row")


class AsciiIntegerField(forms.IntegerField):
    """A count typed by a person: ASCII digits only. Python's int() also reads '١٢' or '１２' (other scripts'
    digits), which would store 12 from text nobody at the desk can read back."""

    def to_python(self, value):
        if isinstance(value, str) and not value.strip().isascii():
            raise forms.ValidationError("숫자는 0-9로 입력해 주세요.", code="invalid")
        return super().to_python(value)


# formfield_overrides for admins where people type counts (stock).
ASCII_NUMBERS = {
    models.IntegerField: {"form_class": AsciiIntegerField},
    models.PositiveIntegerField: {"form_class": AsciiIntegerField},
    models.PositiveSmallIntegerField: {"form_class": AsciiIntegerField},
}


class CodeLabelFilter(admin.SimpleListFilter):
    """Filter on a code column by the codes present, each by its Korean label; codes the table does not know
    read `unknown` numbered (two new codes stay two choices). The query string carries the raw code.
    One per column, made by `CodeLabelFilter.on(...)` where the admin lists its filters."""

    labels: Mapping[str, str] = {}
    unknown = "기타"

    @classmethod
    def on(cls, column: str, title: str, labels: Mapping[str, str], unknown: str) -> type["CodeLabelFilter"]:
        """The filter for one code column, titled `title`, its codes read through `labels`."""
        attrs = {"title": title, "parameter_name": column, "labels": labels, "unknown": unknown}
        return type(f"{cls.__name__}_{column}", (cls,), attrs)

    def lookups(self, request, model_admin):
        column = self.parameter_name
        codes = (
            model_admin.get_queryset(request)
            .exclude(**{column: ""})
            .order_by(column)
            .values_list(column, flat=True)
            .distinct()
        )
        choices, unknown = [], 0
        for code in codes:
            label = self.labels.get(code)
            if label is None:
                unknown += 1
                label = f"{self.unknown} {unknown}"
            choices.append((code, label))
        return choices

    def queryset(self, request, queryset):
        return queryset.filter(**{self.parameter_name: self.value()}) if self.value() else queryset


def live_script(user, topics: Sequence[str]) -> forms.Script | None:
    """The script that keeps a page's lists and counts current (common/static/common/live.js), carrying the
    change endpoint's URL for `topics` and the token the page was rendered at (a change between the render and
    the first question is not lost). None for a user who may not read every topic."""
    if not live_staff_allowed(user, topics):
        return None
    return forms.Script(
        "common/live.js",
        **{
            "data-live-url": f"{reverse('live-staff')}?{urlencode({'topics': ','.join(topics)})}",
            "data-live-etag": f'"{live_staff_cursor(user=user, topics=topics)}"',
        },
    )


class LiveChangeListMixin:
    """A changelist that shows new and changed rows without a reload. Set `live_topic` (a common.live topic
    whose permission is the list's view permission). The page asks the change endpoint every few seconds with
    If-None-Match (304 while nothing moved); when the token moves it fetches its own URL again — the same
    filters, search, ordering and page — and puts the new rows in, keeping the selected rows and the chosen
    action. It does so at once while the operator is not working in the list; while rows are selected, an
    action is chosen, the pointer is on the list or the focus is in the list, search or filters, it shows
    "새 항목 N건 — 새로고침" instead, so no row moves under the operator's hand."""

    live_topic = ""

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context)
        context = getattr(response, "context_data", None)
        if self.live_topic and context is not None and "media" in context:
            script = live_script(request.user, (self.live_topic,))
            if script is not None:
                context["media"] = context["media"] + forms.Media(js=[script], css={"all": ["common/live.css"]})
        return response


def apply_each(
    modeladmin: admin.ModelAdmin,
    request,
    rows: Iterable[Row],
    apply: Callable[[Row], bool],
    *,
    name: Callable[[Row], str],
    done: Callable[[int], str],
) -> None:
    """A bulk admin action, one row at a time: a row the service refuses (DomainError) is reported under its name
    and does not stop the others. apply(row) says whether it changed the row; done(count) is the success message,
    shown when at least one did."""
    count, errors = 0, []
    for row in rows:
        try:
            count += apply(row)
        except DomainError as exc:
            errors.append(f"{name(row)}: {exc.message}")
    if count:
        modeladmin.message_user(request, done(count), messages.SUCCESS)
    for error in errors:
        modeladmin.message_user(request, error, messages.ERROR)


class ReadOnlyAdmin(admin.ModelAdmin):
    """A record of what happened (audit rows, orders, model calls, drafts): viewed in the admin, never
    added, edited or deleted there. State changes go through services."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class AuditEventInline(admin.TabularInline):
    """An object's audit rows (common.audit.AuditEvent) under it: when, what, who, and the change in words
    (`common.display.payload_line`). Read-only; subclasses name the model, the title and the labels of the
    codes their payloads hold."""

    extra = 0
    can_delete = False
    fields = ("created_at", "type", "actor_label", "change")
    readonly_fields = fields
    ordering = ("-id",)
    # before → after of the row's own statuses, and the labels of other payload values by key.
    status_labels: Mapping[str, str] = {}
    value_labels: Mapping[str, Mapping[str, str]] = {}

    @admin.display(description="변경 내용")
    def change(self, obj: models.Model) -> str:
        return payload_line(obj.payload or {}, status_labels=self.status_labels, values=self.value_labels)

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(OutboxMessage)
class OutboxMessageAdmin(ReadOnlyAdmin):
    """Requests written after a change (drafts, later webhooks): what was handed over, what is waiting."""

    list_display = ("id", "topic", "dedupe_key", "status", "attempts", "next_attempt_at", "last_error", "created_at")
    list_filter = ("topic", "status")
    search_fields = ("=dedupe_key",)
    show_full_result_count = False
