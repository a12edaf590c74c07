from __future__ import annotations

from decimal import Decimal

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import ngettext

from actions import policy
from actions.execution import ShopExecutor, order_executor
from actions.models import ActionEvent, ActionRecord, ReasonCategory
from actions.policy import days_since
from actions.selectors import RefundDeadline, action_refund_deadline, with_settled_at
from actions.services import DECIDE_PERMISSION, action_decide
from common.admin import AuditEventInline, LiveChangeListMixin, ReadOnlyAdmin
from common.business_hours import business_calendar
from common.clock import today
from common.display import fields_html, value_words, won
from common.errors import DomainError
from common.numbering import parse_number
from privacy.admin import AccessLoggedAdmin
from privacy.models import AccessRecord


class ActionEventInline(AuditEventInline):
    """처리 이력: the statuses are the row's own columns, so they are shown as they are."""

    model = ActionEvent
    fields = ("created_at", "actor_type", "actor_label", "from_status", "to_status", "note")
    readonly_fields = fields
    ordering = ("created_at", "id")  # oldest first, as the record page has always shown them


# ActionRecord.detail, in words: what the customer (or the shop) said, never the JSON.
DETAIL_LABELS = {
    "reason_category": "사유 구분",
    "reason": "사유",
    "note": "메모",
    "old_address": "기존 배송지",
    "new_address": "새 배송지",
    "old_option": "기존 옵션",
    "new_option": "새 옵션",
    "shop_message": "쇼핑몰 메시지",
    "external_ref": "쇼핑몰 처리번호",
}


def shop_paused_notice(record: ActionRecord, shop: ShopExecutor | None) -> str:
    """What the operator must know before and after approving a refund whose shop's connection is paused:
    nothing reaches the shop until it is switched on again ("" when that does not apply)."""
    if shop is None or not shop.paused or record.kind not in ActionRecord.MONEY_KINDS:
        return ""
    if record.status == ActionRecord.Status.PENDING:
        return (
            f"이 주문은 쇼핑몰 '{shop.name}'이(가) 처리하는데, 지금 연동이 중지되어 있습니다. 승인하면 처리중으로 "
            "기록되지만 연동이 다시 켜질 때까지 쇼핑몰에 전달되지 않아 환불이 진행되지 않습니다."
        )
    if record.status == ActionRecord.Status.EXECUTING:
        return (
            f"쇼핑몰 '{shop.name}' 연동이 중지되어 있어 이 요청은 아직 쇼핑몰에 전달되지 않았습니다. 환불은 "
            "연동이 다시 켜지면 자동으로 전달되어 진행됩니다(다시 승인할 필요 없음)."
        )
    return ""


DEADLINE_COLOURS = {
    policy.DEADLINE_OK: "#047857",
    policy.DEADLINE_AT_RISK: "#b45309",
    policy.DEADLINE_OVERDUE: "#b91c1c",
    policy.DEADLINE_MET: "#047857",
    policy.DEADLINE_LATE: "#b91c1c",
}


def _deadline(record: ActionRecord) -> RefundDeadline | None:
    return action_refund_deadline(record, today=today(), calendar=business_calendar())


def deadline_html(view: RefundDeadline | None) -> str:
    """The statutory refund deadline with its state in colour and in a word (never colour alone)."""
    if view is None:
        return "-"
    weekday = "월화수목금토일"[view.deadline.weekday()]
    return format_html(
        '<span class="cs-deadline cs-deadline-{}" style="color:{};font-weight:{}" '
        'title="전자상거래법 제18조: 승인 후 3영업일 안에 환불 (늦으면 지연배상금)">{}월 {}일({})까지 · {}</span>',
        view.state,
        DEADLINE_COLOURS[view.state],
        "bold" if view.state in (policy.DEADLINE_AT_RISK, policy.DEADLINE_OVERDUE, policy.DEADLINE_LATE) else "normal",
        view.deadline.month,
        view.deadline.day,
        weekday,
        view.label,
    )


# A bulk decision lists every record before it is made; beyond this many the list is not read, so narrow it.
BULK_DECIDE_MAX = 100


def _age(delta_seconds: float) -> str:
    minutes = int(delta_seconds // 60)
    if minutes < 60:
        return f"{minutes}분"
    hours = minutes // 60
    if hours < 48:
        return f"{hours}시간"
    return f"{hours // 24}일"


@admin.register(ActionRecord)
class ActionRecordAdmin(AccessLoggedAdmin, LiveChangeListMixin, ReadOnlyAdmin):
    access_object_type = AccessRecord.ObjectType.ACTION_RECORD
    """The approval queue. Opens on 승인대기; decisions go through `action_decide`, one row at a time."""

    live_topic = "actions"  # new requests appear by themselves (common.admin.LiveChangeListMixin)

    # 경과 second: the elapsed time is what the queue is about, and it stays on screen at 1280 px.
    list_display = (
        "number_display",
        "age",
        "kind",
        "status_badge",
        "customer",
        "order",
        "amount_display",
        "reason_category",
        "days_since_delivery",
        "refund_deadline_display",
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
        "detail_display",
        "refund_amount",
        "reserved_option",
        "decided_by",
        "decided_at",
        "decision_note",
        "created_at",
    )
    readonly_fields = fields

    change_form_template = "admin/actions/actionrecord/change_form.html"

    def get_urls(self):
        urls = [
            path(
                "<int:record_id>/decide/",
                self.admin_site.admin_view(self.decide_view),
                name="actions_actionrecord_decide",
            )
        ]
        return urls + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        record = (
            ActionRecord.objects.select_related("order", "customer")
            .filter(pk=parse_number("", str(object_id)) or 0)
            .first()
        )
        extra = dict(extra_context or {})
        if record is not None:
            extra.update(
                refund_deadline=deadline_html(
                    action_refund_deadline(
                        with_settled_at(ActionRecord.objects.filter(pk=record.pk)).first(),
                        today=today(),
                        calendar=business_calendar(),
                    )
                ),
                can_decide=self.has_decide_permission(request) and record.status == ActionRecord.Status.PENDING,
                shop_paused_notice=shop_paused_notice(record, order_executor(record.order_id)),
                amount_text=won(record.refund_amount if record.refund_amount is not None else record.order.amount),
                # The customer's earlier refused requests on the same order, beside the one to decide
                # (e.g. refused as 단순변심, then asked again as 상품하자).
                earlier=list(
                    ActionRecord.objects.filter(order_id=record.order_id, customer_id=record.customer_id)
                    .exclude(pk=record.pk)
                    .filter(status=ActionRecord.Status.REJECTED)
                    .order_by("-id")[:10]
                ),
            )
        return super().change_view(request, object_id, form_url, extra)

    def decide_view(self, request: HttpRequest, record_id: int):
        """GET: a confirmation stating the amount and the order. POST: the decision, through action_decide."""
        record = get_object_or_404(ActionRecord.objects.select_related("order", "customer"), pk=record_id)
        approve = request.GET.get("approve", request.POST.get("approve")) == "1"
        back = HttpResponseRedirect(reverse("admin:actions_actionrecord_change", args=[record.pk]))
        if not self.has_decide_permission(request):
            self.message_user(request, "환불·취소 요청을 결정할 권한이 없습니다.", messages.ERROR)
            return back
        if request.method == "POST":
            try:
                action_decide(number=record.pk, approve=approve, actor=request.user, note=request.POST.get("note", ""))
            except DomainError as exc:
                self.message_user(request, exc.message, messages.ERROR)
            else:
                verb = "승인" if approve else "반려"
                self.message_user(request, f"{record.number}을(를) {verb}했습니다.", messages.SUCCESS)
            return back
        shop = order_executor(record.order_id)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"{record.number} {'승인' if approve else '반려'} 확인",
            "record": record,
            "approve": approve,
            "shop": shop,
            "shop_paused_notice": shop_paused_notice(record, shop),
            "amount_text": won(record.refund_amount if record.refund_amount is not None else record.order.amount),
        }
        return TemplateResponse(request, "admin/actions/actionrecord/decide_confirm.html", context)

    # --- the queue opens on 승인대기 ---------------------------------------------------------------
    def changelist_view(self, request: HttpRequest, extra_context=None):
        if not request.GET and request.method == "GET":
            return HttpResponseRedirect(f"{request.path}?status__exact={ActionRecord.Status.PENDING}")
        pending = request.GET.get("status__exact") == ActionRecord.Status.PENDING
        extra = {"title": "승인 대기열" if pending else "처리 기록", **(extra_context or {})}
        return super().changelist_view(request, extra)

    @admin.display(description="요청 내용")
    def detail_display(self, obj: ActionRecord) -> str:
        values = {"reason_category": dict(ReasonCategory.choices)}
        rows = [
            (DETAIL_LABELS.get(key, "기타"), value_words(value, values.get(key)))
            for key, value in (obj.detail or {}).items()
            if value not in (None, "", [], {})
        ]
        return fields_html(rows)

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
        return won(obj.order.amount)

    @admin.display(description="배송완료 후")
    def days_since_delivery(self, obj: ActionRecord) -> str:
        days = days_since(obj.order.delivered_at, today())
        return "-" if days is None else f"{days}일"

    @admin.display(description="환불 기한")
    def refund_deadline_display(self, obj: ActionRecord) -> str:
        return deadline_html(_deadline(obj))

    def get_queryset(self, request):
        return with_settled_at(super().get_queryset(request))

    @admin.display(description="경과", ordering="created_at")
    def age(self, obj: ActionRecord) -> str:
        return _age((timezone.now() - obj.created_at).total_seconds())

    # --- decisions ------------------------------------------------------------------------------
    # Like Django's delete confirmation: the action first answers a page that lists what would be decided;
    # only its POST with post=yes calls the service, one record at a time.
    @admin.action(description="선택한 요청 승인", permissions=["decide"])
    def approve_selected(self, request, queryset):
        return self._decide(request, queryset, approve=True)

    @admin.action(description="선택한 요청 반려", permissions=["decide"])
    def reject_selected(self, request, queryset):
        return self._decide(request, queryset, approve=False)

    def _decide(self, request: HttpRequest, queryset, *, approve: bool):
        verb = "승인" if approve else "반려"
        if request.POST.get("post") != "yes":
            if queryset.count() > BULK_DECIDE_MAX:
                self.message_user(
                    request,
                    f"한 번에 {BULK_DECIDE_MAX}건까지 {verb}할 수 있습니다. 목록을 좁혀 다시 선택해 주세요.",
                    messages.ERROR,
                )
                return None
            return self._decide_confirmation(request, queryset, approve=approve)
        # Exactly the records the confirmation listed, whatever the list's filters say now: one that was decided
        # meanwhile is reported by action_decide, not dropped from the count without a word.
        confirmed = [pk for pk in request.POST.getlist(helpers.ACTION_CHECKBOX_NAME) if pk.isascii() and pk.isdigit()]
        note = request.POST.get("note", "")
        done: list[str] = []
        refused: list[str] = []
        for pk in self.get_queryset(request).filter(pk__in=confirmed).order_by("id").values_list("pk", flat=True):
            try:
                record = action_decide(number=pk, approve=approve, actor=request.user, note=note)
            except DomainError as exc:
                refused.append(f"A{pk:05d}: {exc.message}")
            else:
                done.append(record.number)
        if done:
            self.message_user(
                request,
                ngettext("%(n)d건을 %(verb)s했습니다: %(ids)s", "%(n)d건을 %(verb)s했습니다: %(ids)s", len(done))
                % {"n": len(done), "verb": verb, "ids": ", ".join(done)},
                messages.SUCCESS,
            )
        for line in refused:
            self.message_user(request, f"{verb}하지 못함 — {line}", messages.ERROR)
        return None

    def _decide_confirmation(self, request: HttpRequest, queryset, *, approve: bool) -> TemplateResponse:
        """Each selected record with its order, amount and reason, as the record page states them, and the
        total of those that will be decided; records no longer waiting are listed apart and left alone."""
        records = list(queryset.select_related("order__product", "customer").order_by("id"))
        rows = []
        for r in records:
            shop = order_executor(r.order_id)
            amount = r.refund_amount if r.refund_amount is not None else r.order.amount
            rows.append(
                {
                    "record": r,
                    "amount": amount,
                    "amount_text": won(amount),
                    "reason": (r.detail or {}).get("reason", ""),
                    "shop": shop,
                    # As on the record page: a paused shop gets nothing until it is switched on again.
                    "shop_paused_notice": shop_paused_notice(r, shop),
                }
            )
        waiting = [row for row in rows if row["record"].status == ActionRecord.Status.PENDING]
        verb = "승인" if approve else "반려"
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"선택한 요청 {verb} 확인",
            "approve": approve,
            "verb": verb,
            "action_name": "approve_selected" if approve else "reject_selected",
            "waiting": waiting,
            "shop_orders": any(row["shop"] for row in waiting),
            "skipped": [row for row in rows if row["record"].status != ActionRecord.Status.PENDING],
            "total_text": won(sum((row["amount"] for row in waiting), Decimal(0))),
            "selected": [r.pk for r in records],
            "cancel_url": request.get_full_path(),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/actions/actionrecord/bulk_decide_confirm.html", context)


@admin.register(ActionEvent)
class ActionEventAdmin(ReadOnlyAdmin):
    list_display = ("record", "created_at", "actor_type", "actor_label", "from_status", "to_status")
    list_select_related = ("record",)
    list_filter = ("actor_type", "to_status")
