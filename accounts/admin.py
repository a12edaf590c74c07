from django.contrib import admin

from accounts.models import AuthToken
from common.admin import ReadOnlyAdmin


@admin.register(AuthToken)
class AuthTokenAdmin(ReadOnlyAdmin):
    """Who is signed in where. Deleting a row signs that device out (the key itself is never stored)."""

    list_display = ("__str__", "user", "issuer", "created_at")
    list_select_related = ("user",)
    search_fields = ("user__username",)
    fields = ("user", "issuer", "created_at")
    readonly_fields = fields

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("accounts.delete_authtoken")
