from django.contrib import admin

from common.admin import ReadOnlyAdmin
from retention.models import RetentionMark, RetentionRun


@admin.register(RetentionRun)
class RetentionRunAdmin(ReadOnlyAdmin):
    list_display = ("ran_at", "dry_run", "destroyed", "pseudonymised", "complete")
    list_filter = ("dry_run",)


@admin.register(RetentionMark)
class RetentionMarkAdmin(ReadOnlyAdmin):
    list_display = ("model", "object_pk", "customer_id", "rule", "keep_until")
    list_filter = ("rule", "model")
    search_fields = ("customer_id",)
