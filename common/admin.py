from django import forms
from django.contrib import admin
from django.db import models

from common.models import OutboxMessage


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
    """An object's audit rows (common.audit.AuditEvent) under it: when, what, who, and the change in words.
    Read-only; subclasses name the model, the title and `change`."""

    extra = 0
    can_delete = False
    fields = ("created_at", "type", "actor_label", "change")
    readonly_fields = fields
    ordering = ("-id",)

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
