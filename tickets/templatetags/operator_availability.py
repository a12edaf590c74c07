"""`{% operator_availability %}`: the admin header's 상담 가능 / 자리 비움 toggle for operators who answer tickets
(round-robin auto-assignment, CS_AUTO_ASSIGN, gives new tickets to available operators)."""

from __future__ import annotations

from django import template

from tickets.models import OperatorStatus
from tickets.services import REPLY_PERMISSION

register = template.Library()


@register.inclusion_tag("admin/tickets/availability_toggle.html", takes_context=True)
def operator_availability(context) -> dict:
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not user.has_perm(REPLY_PERMISSION):
        return {"shown": False}
    available = OperatorStatus.objects.filter(user=user, available=True).exists()
    return {
        "shown": True,
        "available": available,
        "next": request.get_full_path(),
        "csrf_token": context.get("csrf_token"),
    }
