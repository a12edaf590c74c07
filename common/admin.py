from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """A record of what happened (audit rows, orders, model calls, drafts): viewed in the admin, never
    added, edited or deleted there. State changes go through services."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
