"""The access log in the admin: read-only for everyone (no add, change or delete, superusers included), a
monthly review page, and `AccessLoggedAdmin`, the mixin every admin that shows a customer's data uses."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import path, reverse

from common.admin import ReadOnlyAdmin
from common.clock import today
from privacy import policy
from privacy.access import Action, Surface, access_note
from privacy.models import AccessRecord
from privacy.selectors import access_month_summary

_OBJECT_ATTR = "_privacy_admin_object"


class AccessLoggedAdmin:
    """Each page view of a customer's data (a list, an object page, a saved change) notes one access record;
    the request writes it after the response (`privacy.middleware`). Subclasses set `access_object_type` and,
    when the customer is not `obj.customer_id`, override `access_customer_id`."""

    access_object_type: str = ""

    def access_customer_id(self, obj) -> str:
        return getattr(obj, "customer_id", "") or ""

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is not None:
            setattr(request, _OBJECT_ATTR, obj)
        return obj

    def change_view(self, request, object_id, form_url="", extra_context=None):
        response = super().change_view(request, object_id, form_url, extra_context)
        obj = request.__dict__.pop(_OBJECT_ATTR, None)
        # Only a page the operator was allowed to see: a refusal raises before this line, a missing object has none.
        if obj is not None and response.status_code < 400:
            access_note(
                request,
                surface=Surface.ADMIN,
                action=Action.CHANGE if request.method == "POST" else Action.VIEW,
                object_type=self.access_object_type,
                customer_id=self.access_customer_id(obj),
                object_id=obj.pk,
            )
        return response

    def changelist_view(self, request, extra_context=None):
        response = super().changelist_view(request, extra_context)
        if response.status_code == 200:
            access_note(request, surface=Surface.ADMIN, action=Action.LIST, object_type=self.access_object_type)
        return response


@admin.register(AccessRecord)
class AccessRecordAdmin(ReadOnlyAdmin):
    """Read-only for every user: the admin offers no add, change or delete, and no action (the model, the
    queryset and on PostgreSQL a trigger refuse them as well)."""

    list_display = ("at", "operator", "ip_address", "surface", "action", "object_type", "object_id", "customer_id")
    list_filter = ("action", "object_type", "surface")
    search_fields = ("=operator", "=customer_id", "=object_id")
    date_hierarchy = "at"
    show_full_result_count = False
    actions = None
    readonly_fields = [f.name for f in AccessRecord._meta.fields]

    def get_urls(self):
        review = path("review/", self.admin_site.admin_view(self.review_view), name="privacy_accessrecord_review")
        return [review, *super().get_urls()]

    def changelist_view(self, request, extra_context=None):
        extra = {**(extra_context or {}), "review_url": reverse("admin:privacy_accessrecord_review")}
        return super().changelist_view(request, extra)

    def review_view(self, request: HttpRequest):
        """월간 점검: counts per operator for a month, unusual volumes marked."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        current = today().replace(day=1)
        try:
            month = policy.parse_month(request.GET.get("month") or current.strftime("%Y-%m"))
            error = ""
        except ValueError as exc:
            month, error = current, str(exc)
        rows = access_month_summary(month=month)
        context = {
            **self.admin_site.each_context(request),
            "title": f"개인정보 접속기록 월간 점검 ({month:%Y-%m})",
            "opts": self.model._meta,
            "month": f"{month:%Y-%m}",
            "error": error,
            "rows": rows,
            "total": sum(r.total for r in rows),
            "unusual_factor": policy.UNUSUAL_FACTOR,
            "unusual_min": policy.UNUSUAL_MIN_RECORDS,
        }
        return TemplateResponse(request, "admin/privacy/accessrecord/review.html", context)
