from django.contrib import admin

from tickets.models import Ticket, TicketMessage


class TicketMessageInline(admin.TabularInline):
    model = TicketMessage
    extra = 0
    can_delete = False
    fields = ("created_at", "author_type", "author", "body")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Ticket)
class TicketAdmin(admin.ModelAdmin):
    list_display = ("number_display", "category", "status", "source", "customer", "subject", "created_at")
    list_filter = ("status", "category", "source")
    search_fields = ("=id", "=customer__customer_id", "customer__name", "subject")
    list_select_related = ("customer",)
    readonly_fields = ("customer", "source", "order", "created_at", "updated_at")
    inlines = [TicketMessageInline]

    @admin.display(description="티켓번호", ordering="id")
    def number_display(self, obj):
        return obj.number

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
