"""The operator's desk in the admin: the ticket list and the ticket page (conversation, reply box, what is known
about the customer). Apps above add sections and columns through `tickets.sections` (drafts: the review panel
and its buttons; chat: the customer's requests); nothing here imports them. Every change calls a service."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import Http404, HttpRequest, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.translation import ngettext

from common.admin import AuditEventInline
from common.display import payload_line
from common.errors import DomainError
from common.numbering import parse_number
from tickets.models import Tag, Ticket, TicketEvent, TicketMessage
from tickets.sections import (
    ANSWER,
    COLUMNS,
    SIDE,
    TicketColumn,
    ticket_section_urls,
    ticket_sections_for,
)
from tickets.services import REPLY_PERMISSION, ticket_edit, ticket_reply_send, ticket_status_change

_REPLY_KEY = "tickets.held_reply.{}"


class TicketMessageInline(admin.TabularInline):
    model = TicketMessage
    extra = 0
    can_delete = False
    fields = ("created_at", "author_type", "author", "body")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


class TicketEventInline(AuditEventInline):
    """이력: who changed what on the ticket, read-only."""

    model = TicketEvent
    verbose_name = "이력"
    verbose_name_plural = "이력"

    @admin.display(description="변경 내용")
    def change(self, obj: TicketEvent) -> str:
        return payload_line(
            obj.payload or {},
            status_labels=dict(Ticket.Status.choices),
            values={
                "source": dict(Ticket.Source.choices),
                "category": dict(Ticket.Category.choices),
                "status": dict(Ticket.Status.choices),
            },
        )


def _column_display(column: TicketColumn):
    """A list_display callable for a registered column (its __name__ names the cell's CSS class)."""

    def show(obj: Ticket):
        return column.value(obj)

    show.__name__ = column.name
    show.short_description = column.description
    return show


@admin.register(Ticket)
class TicketAdmin(admin.ModelAdmin):
    change_form_template = "admin/tickets/ticket/change_form.html"
    list_display = ("number_display", "category", "status", "source", "customer", "subject", "created_at")
    list_filter = ("status", "category", "source")
    search_fields = ("=id", "=customer__customer_id", "customer__name", "subject")
    list_select_related = ("customer",)
    filter_horizontal = ("tags",)
    # The status changes only through services (a reply, a follow-up, the 종료 action): each writes its event.
    readonly_fields = ("customer", "status", "source", "order", "created_at", "updated_at")
    inlines = [TicketMessageInline, TicketEventInline]
    actions = ["close_tickets"]

    @admin.display(description="티켓번호", ordering="id")
    def number_display(self, obj):
        return obj.number

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    # --- the list: columns other apps registered ------------------------------------------------------
    def get_queryset(self, request):
        queryset = super().get_queryset(request)
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
        urls = [
            path(
                "<int:ticket_id>/reply/",
                self.admin_site.admin_view(self.reply_view),
                name="tickets_ticket_reply",
            ),
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
        # The page follows the model permissions, as the admin's own inlines do: messages need
        # view_ticketmessage; each section decides what its user may see.
        user = request.user
        can_read_messages = user.has_perm("tickets.view_ticketmessage")
        answer = ticket_sections_for(request, ticket, ANSWER)
        applied = set(ticket.tags.values_list("name", flat=True))
        extra = {
            **(extra_context or {}),
            "conversation": ticket.messages.select_related("author").order_by("id") if can_read_messages else [],
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
            "reply_initial": request.session.pop(_REPLY_KEY.format(ticket.pk), None) or "",
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
                actor=request.user,
            )
        except DomainError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            request.session[_REPLY_KEY.format(ticket_id)] = body  # not sent, not lost
            return self._back(ticket_id)
        self.message_user(
            request, "답변을 보내고 문의를 종료했습니다." if close else "답변을 보냈습니다.", messages.SUCCESS
        )
        return self._back(ticket_id)

    @admin.action(description="선택한 티켓 종료", permissions=["change"])
    def close_tickets(self, request, queryset):
        closed, errors = 0, []
        for ticket in queryset:
            try:
                closed += ticket_status_change(ticket=ticket, status=Ticket.Status.CLOSED, actor=request.user)
            except DomainError as exc:
                errors.append(f"{ticket.number}: {exc.message}")
        if closed:
            self.message_user(
                request,
                ngettext("티켓 %d건을 종료했습니다.", "티켓 %d건을 종료했습니다.", closed) % closed,
                messages.SUCCESS,
            )
        for error in errors:
            self.message_user(request, error, messages.ERROR)
