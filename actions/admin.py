from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponseRedirect
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import ngettext

from actions.models import ActionEvent, ActionRecord
from actions.policy import days_since
from actions.services import DECIDE_PERMISSION, action_decide
from common.admin import ReadOnlyAdmin
from common.clock import today
from common.errors import DomainError


class ActionEventInline(admin.TabularInline):
    model = ActionEvent
    extra = 0
    can_delete = False
    fields = ("created_at", "actor_type", "actor_label", "from_status", "to_status", "note")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


def _age(delta_seconds: float) -> str:
    minutes = int(delta_seconds // 60)
    if minutes < 60:
        return f"{minutes}분"
    hours = minutes // 60
    if hours < 48:
        return f"{hours}시간"
    return f"{hours // 24}일"


@admin.register(ActionRecord)
class ActionRecordAdmin(ReadOnlyAdmin):
    """The approval queue. Opens on 승인대기; decisions go through `action_decide`, one row at a time."""

    list_display = (
        "number_display",
        "kind",
        "status_badge",
        "customer",
        "order",
        "amount_display",
        "reason_category",
        "days_since_delivery",
        "age",
    )
    list_display_links = ("number_display",)
    list_filter = ("status", "kind", "reason_category")
    search_fields = ("=order__order_id", "=customer__customer_id", "customer__name")
    list_select_related = ("order", "customer")
    show_full_result_count = False
    list_per_page = 50
    ordering = ("id",)
    inlines = [ActionEventInline]
    actions = ["approve_selected", "reject_selected"]
    fields = (
        "kind",
        "status",
        "customer",
        "order",
        "reason_category",
        "summary",
        "detail",
        "refund_amount",
        "reserved_option",
        "decided_by",
        "decided_at",
        "decision_note",
        "created_at",
    )
    readonly_fields = fields

    # --- the queue opens on 승인대기 ---------------------------------------------------------------
    def changelist_view(self, request: HttpRequest, extra_context=None):
        if not request.GET and request.method == "GET":
            return HttpResponseRedirect(f"{request.path}?status__exact={ActionRecord.Status.PENDING}")
        return super().changelist_view(request, extra_context)

    # --- read-only records --------------------------------------------------------------------

    def has_decide_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(DECIDE_PERMISSION)

    # --- columns --------------------------------------------------------------------------------
    @admin.display(description="처리번호", ordering="id")
    def number_display(self, obj: ActionRecord) -> str:
        return obj.number

    @admin.display(description="상태", ordering="status")
    def status_badge(self, obj: ActionRecord) -> str:
        colors = {
            "PENDING": "#b45309",
            "APPROVED": "#047857",
            "REJECTED": "#b91c1c",
            "DONE": "#1d4ed8",
            "EXECUTING": "#6d28d9",
            "FAILED": "#b91c1c",
        }
        return format_html('<b style="color:{}">{}</b>', colors.get(obj.status, "#000"), obj.status_label)

    @admin.display(description="결제금액")
    def amount_display(self, obj: ActionRecord) -> str:
        return f"{obj.order.amount:,}원"

    @admin.display(description="배송완료 후")
    def days_since_delivery(self, obj: ActionRecord) -> str:
        days = days_since(obj.order.delivered_at, today())
        return "-" if days is None else f"{days}일"

    @admin.display(description="경과", ordering="created_at")
    def age(self, obj: ActionRecord) -> str:
        return _age((timezone.now() - obj.created_at).total_seconds())

    # --- decisions ------------------------------------------------------------------------------
    @admin.action(description="선택한 요청 승인", permissions=["decide"])
    def approve_selected(self, request, queryset):
        self._decide(request, queryset, approve=True)

    @admin.action(description="선택한 요청 반려", permissions=["decide"])
    def reject_selected(self, request, queryset):
        self._decide(request, queryset, approve=False)

    def _decide(self, request: HttpRequest, queryset, *, approve: bool) -> None:
        done: list[str] = []
        refused: list[str] = []
        for pk in queryset.order_by("id").values_list("pk", flat=True):
            try:
                record = action_decide(number=pk, approve=approve, actor=request.user)
            except DomainError as exc:
                refused.append(f"A{pk:05d}: {exc.message}")
            else:
                done.append(record.number)
        verb = "승인" if approve else "반려"
        if done:
            self.message_user(
                request,
                ngettext("%(n)d건을 %(verb)s했습니다: %(ids)s", "%(n)d건을 %(verb)s했습니다: %(ids)s", len(done))
                % {"n": len(done), "verb": verb, "ids": ", ".join(done)},
                messages.SUCCESS,
            )
        for line in refused:
            self.message_user(request, f"{verb}하지 못함 — {line}", messages.ERROR)


@admin.register(ActionEvent)
class ActionEventAdmin(ReadOnlyAdmin):
    list_display = ("record", "created_at", "actor_type", "actor_label", "from_status", "to_status")
    list_select_related = ("record",)
    list_filter = ("actor_type", "to_status")
