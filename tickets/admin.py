from django.contrib import admin, messages
from django.utils.translation import ngettext

from common.admin import AuditEventInline
from common.display import payload_line
from common.errors import DomainError
from tickets.models import Ticket, TicketEvent, TicketMessage
from tickets.services import ticket_edit, ticket_status_change


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


@admin.register(Ticket)
class TicketAdmin(admin.ModelAdmin):
    list_display = ("number_display", "category", "status", "source", "customer", "subject", "created_at")
    list_filter = ("status", "category", "source")
    search_fields = ("=id", "=customer__customer_id", "customer__name", "subject")
    list_select_related = ("customer",)
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
