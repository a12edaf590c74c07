"""`{% draft_rate_form draft %}`: the 👍/👎 buttons under a draft on the ticket review page, for staff who may
rate (evals.add_draftrating); nothing for anyone else."""

from __future__ import annotations

from django import template

from evals.models import DraftRating
from evals.ratings import RATE_PERMISSION

register = template.Library()


@register.inclusion_tag("admin/evals/rate_draft.html", takes_context=True)
def draft_rate_form(context: template.Context, draft) -> dict:
    request = context.get("request")
    user = getattr(request, "user", None)
    allowed = bool(draft and user is not None and user.has_perm(RATE_PERMISSION))
    return {
        "allowed": allowed,
        "draft": draft,
        "request": request,
        "csrf_token": context.get("csrf_token"),
        "rating_reasons": DraftRating.Reason.choices,
    }
