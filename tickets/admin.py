"""The operator's desk in the admin: the ticket list and the ticket page (conversation, reply box, what is known
about the customer). Apps above add sections and columns through `tickets.sections` (drafts: the review panel
and its buttons; chat: the customer's requests); nothing here imports them. Every change calls a service."""

from __future__ import annotations

import secrets

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models import F, OuterRef, Subquery
from django.http import Http404, HttpRequest, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.translation import ngettext

from common.admin import AuditEventInline, LiveChangeListMixin, ReadOnlyAdmin, apply_each
from common.business_hours import moment_words
from common.errors import DomainError
from common.numbering import parse_number
from common.redaction import mask_email, mask_phone
from orders.models import Order
from privacy.admin import AccessLoggedAdmin
from privacy.models import AccessRecord
from tickets import policy
from tickets.models import DataSubjectRequest, OperatorStatus, Tag, Ticket, TicketEvent, TicketMessage, TicketRating
from tickets.policy import CSAT_LOW
from tickets.presence import presence_beat, presence_leave, presence_list
from tickets.sections import (
    ANSWER,
    COLUMNS,
    SIDE,
    TicketColumn,
    held_reply_keep,
    held_reply_take,
    last_seen_from,
    ticket_section_urls,
    ticket_sections_for,
)
from tickets.selectors import SlaView, operator_get, sla_snapshot, ticket_sla
from tickets.services import (
    ASSIGN_PERMISSION,
    AUTO_ASSIGN_ROUND_ROBIN,
    BODY_MAX,
    CONVERSATION_AUTHORS,
    REPLY_PERMISSION,
    data_request_run,
    data_request_verify,
    operator_availability_set,
    ticket_assign,
    ticket_edit,
    ticket_priority_change,
    ticket_reply_send,
    ticket_status_change,
)


class TicketMessageInline(admin.TabularInline):
    model = TicketMessage
    extra = 0
    can_delete = False
    fields = ("created_at", "author_type", "author", "body")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


# Why a priority or an assignment was set by the system (TicketEvent payload "rule").
RULE_LABELS = {
    policy.RULE_CATEGORY: "분류 규칙(결제·오류)",
    policy.RULE_REFUSED_MONEY: "환불·취소 거절 뒤 상담 요청",
    AUTO_ASSIGN_ROUND_ROBIN: "순번제 자동 배정",
}


class TicketEventInline(AuditEventInline):
    """이력: who changed what on the ticket, read-only."""

    model = TicketEvent
    verbose_name = "이력"
    verbose_name_plural = "이력"

    # before → after: a status, a priority or an operator's login name
    status_labels = {**dict(Ticket.Status.choices), **dict(Ticket.Priority.choices)}
    value_labels = {
        "source": dict(Ticket.Source.choices),
        "category": dict(Ticket.Category.choices),
        "status": dict(Ticket.Status.choices),
        "priority": dict(Ticket.Priority.choices),
        "rule": RULE_LABELS,
    }


SLA_COLOURS = {policy.OK: "#047857", policy.AT_RISK: "#b45309", policy.BREACHED: "#b91c1c"}
PRIORITY_COLOURS = {"URGENT": "#b91c1c", "HIGH": "#b45309", "NORMAL": "#374151", "LOW": "#6b7280"}


class AssigneeFilter(admin.SimpleListFilter):
    """내 티켓 / 미배정 / 전체."""

    title = "담당"
    parameter_name = "assignee"
    MINE, NONE = "me", "none"

    def lookups(self, request, model_admin):
        return [(self.MINE, "내 티켓"), (self.NONE, "미배정")]

    def queryset(self, request, queryset):
        if self.value() == self.MINE:
            return queryset.filter(assignee=request.user)
        if self.value() == self.NONE:
            return queryset.filter(assignee__isnull=True)
        return queryset

    def choices(self, changelist):
        choices = list(super().choices(changelist))
        choices[0]["display"] = "전체"
        return choices


def waiting_words(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}분"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}시간 {minutes}분" if minutes else f"{hours}시간"
    return f"{hours // 24}일 {hours % 24}시간"


def sla_html(view: SlaView, ticket: Ticket) -> str:
    """The state in colour and in a word (never colour alone); the due time it is about on hover."""
    if view.paused:
        return mark_safe(
            '<span class="cs-sla cs-sla-paused" style="color:#6b7280;white-space:nowrap">⏸ 고객 답변 대기</span>'
        )
    due = ticket.sla_due_at
    title = f"기한 {moment_words(due, sla_snapshot().calendar)}" if due else ""
    return format_html(
        '<span class="cs-sla cs-sla-{}" style="color:{};font-weight:bold;white-space:nowrap" title="{}">● {}</span>',
        view.state,
        SLA_COLOURS[view.state],
        title,
        view.label,
    )


LATEST_SHOWN = 4  # messages shown beside the reply box; the earlier ones fold away


def _conversation(ticket: Ticket, can_read: bool) -> dict:
    messages = list(ticket.messages.select_related("author").order_by("id")) if can_read else []
    return {"older_messages": messages[:-LATEST_SHOWN], "latest_messages": messages[-LATEST_SHOWN:]}


def _customer_side(request: HttpRequest, ticket: Ticket) -> dict:
    """The side panel: who the customer is (contact data masked as common.redaction masks it), their orders
    and earlier tickets, each linked, as far as the user's view permissions go."""
    user = request.user
    customer = ticket.customer
    card = None
    if user.has_perm("orders.view_customer"):
        card = {
            "id": customer.customer_id,
            "name": customer.name,
            "phone": mask_phone(customer.phone),
            "email": mask_email(customer.email),
            "url": reverse("admin:orders_customer_change", args=[customer.pk]),
        }
    can_view_orders = user.has_perm("orders.view_order")
    return {
        "customer_card": card,
        "can_view_orders": can_view_orders,
        "customer_orders": list(
            Order.objects.filter(customer=customer).select_related("product").order_by("-ordered_at", "-order_id")[:10]
        )
        if can_view_orders
        else [],
        "earlier_tickets": list(Ticket.objects.filter(customer=customer).exclude(pk=ticket.pk).order_by("-id")[:10]),
    }


def _column_display(column: TicketColumn):
    """A list_display callable for a registered column (its __name__ names the cell's CSS class)."""

    def show(obj: Ticket):
        return column.value(obj)

    show.__name__ = column.name
    show.short_description = column.description
    return show


@admin.register(Ticket)
class TicketAdmin(AccessLoggedAdmin, LiveChangeListMixin, admin.ModelAdmin):
    access_object_type = AccessRecord.ObjectType.TICKET
    live_topic = "tickets"  # the list shows new inquiries by itself (common.admin.LiveChangeListMixin)
    change_form_template = "admin/tickets/ticket/change_form.html"
    # What an operator picks the next ticket by comes first; at 1280 px beside the admin's menu and filters the
    # row fits without the subject breaking into one character per line.
    list_display = (
        "number_display",
        "subject_display",
        "priority_display",
        "sla_display",
        "waiting_display",
        "assignee_display",
        "status",
        "category",
        "customer",
        "created_at",
    )
    list_display_links = ("number_display",)
    list_filter = (AssigneeFilter, "status", "priority", "category", "source")
    search_fields = ("=id", "=customer__customer_id", "customer__name", "subject")
    list_select_related = ("customer", "assignee")
    # The most pressing first: the nearest due time of a running SLA clock; waiting and closed tickets last.
    ordering = (F("sla_due_at").asc(nulls_last=True), "-id")
    # Tags as plain labelled checkboxes: Django's two-box selector puts an ARIA label on an element whose role
    # does not allow it (axe-core: serious), and a desk has a handful of tags, not hundreds.
    formfield_overrides = {models.ManyToManyField: {"widget": forms.CheckboxSelectMultiple}}
    # The status, priority and assignee change only through services (a reply, a follow-up, the 종료 action,
    # the page's 담당/우선순위 forms): each writes its event.
    fields = ("customer", "order", "category", "subject", "tags", "status", "source", "created_at", "updated_at")
    readonly_fields = ("customer", "status", "source", "order", "created_at", "updated_at")
    inlines = [TicketMessageInline, TicketEventInline]
    actions = ["close_tickets"]

    @admin.display(description="티켓번호", ordering="id")
    def number_display(self, obj):
        return obj.number

    @admin.display(description="우선순위", ordering="priority")
    def priority_display(self, obj: Ticket) -> str:
        return format_html(
            '<span style="color:{}" title="{}">{}</span>',
            PRIORITY_COLOURS.get(obj.priority, "#374151"),
            obj.priority,
            obj.get_priority_display(),
        )

    @admin.display(description="SLA", ordering=F("sla_due_at").asc(nulls_last=True))
    def sla_display(self, obj: Ticket) -> str:
        return sla_html(ticket_sla(obj, sla_snapshot()), obj)

    @admin.display(description="대기 시간")
    def waiting_display(self, obj: Ticket) -> str:
        """How long the customer has waited for the desk since their latest message (답변완료: the desk waits)."""
        since = getattr(obj, "customer_waiting_since", None)
        if obj.status != Ticket.Status.OPEN or since is None:
            return "-"
        return format_html(
            '<span style="white-space:nowrap">{}</span>', waiting_words((sla_snapshot().now - since).total_seconds())
        )

    @admin.display(description="담당자", ordering="assignee__username")
    def assignee_display(self, obj: Ticket) -> str:
        name = obj.assignee.get_username() if obj.assignee_id else "미배정"
        return format_html('<span style="white-space:nowrap">{}</span>', name)

    @admin.display(description="요약", ordering="subject")
    def subject_display(self, obj: Ticket) -> str:
        # A readable width at 1280 px: one line, cut with an ellipsis, the whole subject on hover.
        return format_html(
            '<span class="cs-subject" title="{}" style="display:inline-block;min-width:10em;max-width:18em;'
            'white-space:nowrap;overflow:hidden;text-overflow:ellipsis;vertical-align:bottom">{}</span>',
            obj.subject,
            Truncator(obj.subject).chars(60),
        )

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    # --- the list: columns other apps registered ------------------------------------------------------
    def get_queryset(self, request):
        latest = TicketMessage.objects.filter(ticket=OuterRef("pk"), author_type=TicketMessage.Author.CUSTOMER)
        queryset = (
            super()
            .get_queryset(request)
            .annotate(customer_waiting_since=Subquery(latest.order_by("-id").values("created_at")[:1]))
        )
        for column in COLUMNS.values():
            queryset = column.queryset(queryset)
        return queryset

    def get_list_display(self, request):
        extra = [
            _column_display(c) for c in COLUMNS.values() if c.permission is None or request.user.has_perm(c.permission)
        ]
        return (*super().get_list_display(request), *extra)

    # --- the page ---------------------------------------------------------------------------------------
    def get_urls(self):
        view = self.admin_site.admin_view
        urls = [
            path("<int:ticket_id>/reply/", view(self.reply_view), name="tickets_ticket_reply"),
            path("<int:ticket_id>/assign/", view(self.assign_view), name="tickets_ticket_assign"),
            path("<int:ticket_id>/priority/", view(self.priority_view), name="tickets_ticket_priority"),
            path("availability/", view(self.availability_view), name="tickets_ticket_availability"),
        ]
        return urls + ticket_section_urls(self.admin_site) + super().get_urls()

    def has_reply_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(REPLY_PERMISSION)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if not self.has_view_or_change_permission(request):
            return super().change_view(request, object_id, form_url, extra_context)  # the admin's own 403
        # The admin URL takes any text as the id: only ASCII digits reach the query ('abc' was a 500).
        if parse_number("", str(object_id)) is None:
            raise Http404("문의 티켓을 찾을 수 없습니다.")
        ticket = get_object_or_404(Ticket, pk=object_id)
        page = secrets.token_hex(8)  # this page load: its leaving cannot take a newer page's presence away
        presence_beat(ticket_id=ticket.pk, user=request.user, typing=False, page=page)  # others see it at once
        # The page follows the model permissions, as the admin's own inlines do: messages need
        # view_ticketmessage; each section decides what its user may see.
        user = request.user
        can_read_messages = user.has_perm("tickets.view_ticketmessage")
        answer = ticket_sections_for(request, ticket, ANSWER)
        applied = set(ticket.tags.values_list("name", flat=True))
        sla = ticket_sla(ticket, sla_snapshot())
        extra = {
            **(extra_context or {}),
            "sla": sla,
            "sla_html": sla_html(sla, ticket),
            "due_words": {
                "first": moment_words(ticket.first_response_due_at, sla_snapshot().calendar)
                if ticket.first_response_due_at and not ticket.first_responded_at
                else "",
                "next": moment_words(sla.next_response_due_at, sla_snapshot().calendar)
                if sla.next_response_due_at
                else "",
                "resolution": moment_words(sla.resolution_due_at, sla_snapshot().calendar)
                if sla.resolution_due_at
                else "",
            },
            "priority_choices": Ticket.Priority.choices,
            "can_handle": self.has_reply_permission(request),
            "can_assign_others": user.has_perm(ASSIGN_PERMISSION),
            "operators": self._operators() if user.has_perm(ASSIGN_PERMISSION) else [],
            **_conversation(ticket, can_read_messages),
            **_customer_side(request, ticket),
            "can_view_conversation": can_read_messages,
            "answer_sections": answer,
            "side_sections": ticket_sections_for(request, ticket, SIDE),
            "tag_choices": [{"name": t.name, "applied": t.name in applied} for t in Tag.objects.filter(is_active=True)],
            # The own-reply box: whenever no section's text box is the reply box (a live draft) and the ticket
            # is not closed.
            "can_reply": self.has_reply_permission(request)
            and user.has_perm("tickets.view_ticket")
            and ticket.status != Ticket.Status.CLOSED
            and not any(shown.section.takes_reply(shown.context) for shown in answer),
            "reply_initial": held_reply_take(request, ticket.pk),
            "body_max": BODY_MAX,
            # The newest customer message or answer on this screen: a reply sent from it is refused if the
            # conversation moved on meanwhile (409 ticket_changed), with the text kept.
            "last_seen_message_id": ticket.messages.filter(author_type__in=CONVERSATION_AUTHORS)
            .order_by("-id")
            .values_list("id", flat=True)
            .first(),
            "present": presence_list(ticket_id=ticket.pk, exclude_user_id=user.pk),
            "presence_url": reverse("api-ops-ticket-presence", args=[ticket.number]),
            "presence_page": page,
            "presence_every_s": max(3, int(settings.CS_PRESENCE_TTL_S) // 3),
        }
        return super().change_view(request, object_id, form_url, extra)

    def save_model(self, request, obj, form, change):
        """Nothing here: `save_related` hands the form's values to `ticket_edit`, which saves the row and the
        tags under a lock and records what changed."""

    def save_related(self, request, form, formsets, change):
        data = form.cleaned_data
        ticket_edit(
            ticket=form.instance,
            category=data.get("category", form.instance.category),
            subject=data.get("subject", form.instance.subject),
            tags=list(data["tags"]) if "tags" in data else list(form.instance.tags.all()),
            actor=request.user,
        )
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def _back(self, ticket_id: int) -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:tickets_ticket_change", args=[ticket_id]))

    def _operators(self) -> list:
        """Who a ticket can be given to: active staff who may answer tickets."""
        users = get_user_model().objects.filter(is_active=True, is_staff=True).order_by("username")
        return [u for u in users if u.has_perm(REPLY_PERMISSION)]

    def assign_view(self, request: HttpRequest, ticket_id: int):
        """내가 맡기 / 담당 해제 / 배정 (tickets.services.ticket_assign checks who may do which)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        wanted = request.POST.get("assignee", "")
        if wanted == "me":
            assignee = request.user
        elif wanted == "":
            assignee = None
        else:
            assignee = operator_get(username=wanted)
            if assignee is None:
                self.message_user(request, "상담원을 찾을 수 없습니다.", messages.ERROR)
                return self._back(ticket_id)
        try:
            ticket_assign(ticket_id=ticket_id, assignee=assignee, actor=request.user)
        except DomainError as exc:
            self.message_user(request, exc.message, messages.ERROR)
        else:
            who = (
                "미배정으로 바꿨습니다."
                if assignee is None
                else f"담당자를 {assignee.get_username()}님으로 정했습니다."
            )
            self.message_user(request, who, messages.SUCCESS)
        return self._back(ticket_id)

    def priority_view(self, request: HttpRequest, ticket_id: int):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        try:
            changed = ticket_priority_change(
                ticket_id=ticket_id, priority=request.POST.get("priority", ""), actor=request.user
            )
        except DomainError as exc:
            self.message_user(request, exc.message, messages.ERROR)
        else:
            if changed:
                self.message_user(request, "우선순위를 바꾸고 기한을 다시 계산했습니다.", messages.SUCCESS)
        return self._back(ticket_id)

    def availability_view(self, request: HttpRequest):
        """The header toggle: 상담 가능 / 자리 비움 (round-robin auto-assignment picks available operators)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        try:
            operator_availability_set(available=request.POST.get("available") == "1", actor=request.user)
        except DomainError as exc:
            self.message_user(request, exc.message, messages.ERROR)
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
            back = reverse("admin:index")
        return HttpResponseRedirect(back)

    def reply_view(self, request: HttpRequest, ticket_id: int):
        """The operator's own reply (tickets.services.ticket_reply_send checks the permission and the text)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not request.user.has_perm("tickets.view_ticket"):
            self.message_user(request, "문의를 볼 권한이 없습니다.", messages.ERROR)
            return self._back(ticket_id)
        body = request.POST.get("body", "")
        close = request.POST.get("close") == "1"
        try:
            ticket_reply_send(
                ticket_id=ticket_id,
                body=body,
                tags=request.POST.getlist("tags"),
                close=close,
                override_reason=request.POST.get("override_reason", ""),
                last_seen_message_id=last_seen_from(request.POST),
                actor=request.user,
            )
        except DomainError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            held_reply_keep(request, ticket_id, body)  # not sent, not lost
            return self._back(ticket_id)
        presence_leave(ticket_id=ticket_id, user=request.user)
        self.message_user(
            request, "답변을 보내고 문의를 종료했습니다." if close else "답변을 보냈습니다.", messages.SUCCESS
        )
        return self._back(ticket_id)

    @admin.action(description="선택한 티켓 종료", permissions=["change"])
    def close_tickets(self, request, queryset):
        apply_each(
            self,
            request,
            queryset,
            lambda ticket: ticket_status_change(ticket=ticket, status=Ticket.Status.CLOSED, actor=request.user),
            name=lambda ticket: ticket.number,
            done=lambda n: ngettext("티켓 %d건을 종료했습니다.", "티켓 %d건을 종료했습니다.", n) % n,
        )


@admin.register(OperatorStatus)
class OperatorStatusAdmin(ReadOnlyAdmin):
    """Who takes new tickets now (each operator's own header toggle) and when round robin last gave them one."""

    list_display = ("user", "available", "last_assigned_at", "updated_at")
    list_filter = ("available",)
    list_select_related = ("user",)

    def get_object(self, request, object_id, from_field=None):
        # The key is a user's (a one-to-one primary key, which Django's integer lookups do not bound): an id that
        # is not a number the column can hold finds nothing, where SQLite would raise OverflowError.
        if not (str(object_id).isascii() and str(object_id).isdigit()) or int(object_id) > 2**63 - 1:
            return None
        return super().get_object(request, object_id, from_field)


class LowScoreFilter(admin.SimpleListFilter):
    title = "점수"
    parameter_name = "low"

    def lookups(self, request, model_admin):
        return [("1", f"낮은 평가 ({CSAT_LOW}점 이하)")]

    def queryset(self, request, queryset):
        return queryset.filter(score__lte=CSAT_LOW) if self.value() == "1" else queryset


@admin.register(TicketRating)
class TicketRatingAdmin(ReadOnlyAdmin):
    """The customers' ratings (CSAT). A low score reopens nothing by itself: the team reads them here (filter
    낮은 평가) and on the metrics dashboard, and follows up on the ticket."""

    list_display = ("ticket", "score", "category", "comment", "created_at")
    list_filter = (LowScoreFilter, "score", "category")
    list_select_related = ("ticket",)
    search_fields = ("comment",)
    date_hierarchy = "created_at"


@admin.register(DataSubjectRequest)
class DataSubjectRequestAdmin(ReadOnlyAdmin):
    """Customers' requests about their own data, nearest due first: a person verifies who asked, then runs it (the
    export or the erasure, tickets.hooks) from here; the result stays on the request."""

    list_display = ("number", "customer", "kind", "status", "due_at", "identity_verified", "source", "created_at")
    list_filter = ("status", "kind", "identity_verified")
    list_select_related = ("customer",)
    search_fields = ("customer__customer_id",)
    readonly_fields = ("result",)
    actions = ["verify_selected", "run_selected"]

    @admin.display(description="접수번호", ordering="id")
    def number(self, obj: DataSubjectRequest) -> str:
        return obj.number

    def has_handle_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("tickets.handle_data_request")

    @admin.action(description="선택한 요청: 본인 확인 완료", permissions=["handle"])
    def verify_selected(self, request, queryset):
        verified = sum(data_request_verify(request=item, actor=request.user) for item in queryset)
        self.message_user(
            request, ngettext("%d건을 본인 확인했습니다.", "%d건을 본인 확인했습니다.", verified) % verified
        )

    @admin.action(description="선택한 요청 처리(열람 자료 생성·삭제 실행)", permissions=["handle"])
    def run_selected(self, request, queryset):
        def run(item: DataSubjectRequest) -> bool:
            data_request_run(request=item, actor=request.user)
            return True

        apply_each(
            self,
            request,
            queryset,
            run,
            name=lambda item: item.number,
            done=lambda n: ngettext("%d건을 처리했습니다.", "%d건을 처리했습니다.", n) % n,
        )
