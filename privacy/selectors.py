from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Count, Q

from common.clock import SEOUL
from privacy import policy
from privacy.models import AccessRecord


@dataclass(frozen=True)
class OperatorMonth:
    operator: str
    view: int
    list: int
    export: int
    change: int
    total: int
    customers: int
    unusual: bool


def access_month_summary(*, month: date) -> list[OperatorMonth]:
    """Counts per operator for one month (Asia/Seoul), busiest first, with the unusual ones flagged."""
    start, end = policy.month_bounds(month, SEOUL)
    rows = (
        AccessRecord.objects.filter(at__gte=start, at__lt=end)
        .values("operator")
        .annotate(
            total=Count("id"),
            customers=Count("customer_id", distinct=True, filter=~Q(customer_id="")),
            **{action.lower(): Count("id", filter=Q(action=action)) for action in AccessRecord.Action.values},
        )
        .order_by("-total", "operator")
    )
    rows = list(rows)
    unusual = policy.unusual_operators({r["operator"]: r["total"] for r in rows})
    # The values() row has OperatorMonth's fields but `unusual`: the operator, a count per action, total, customers.
    return [OperatorMonth(**r, unusual=r["operator"] in unusual) for r in rows]
