"""The money a shop moves itself: who executes an approved refund or cancel (the actions hook), and the shop's
report of the result."""

from __future__ import annotations

from actions.execution import ShopExecutor
from actions.models import ActionRecord
from actions.services import action_result_record
from common.actors import Actor
from common.errors import NotFound
from common.numbering import parse_canonical_number
from integration.models import Integration
from integration.services.access import integration_require_scope
from integration.services.sync import order_owner, owned_record


def order_executor(order_id: str) -> ShopExecutor | None:
    """The actions executor hook: the shop that owns the order moves its money, also while its connection is
    paused (then the request waits for it: its event is held, see `webhook_attempt`)."""
    owner = order_owner(order_id)
    return ShopExecutor(name=owner.name, paused=not owner.active) if owner is not None else None


def action_result_report(
    *, integration: Integration, action_id: str, ok: bool, external_ref: str, amount=None, message: str = ""
) -> tuple[ActionRecord, bool]:
    """The shop's report on a refund/cancel it carried out. Only for orders this integration owns."""
    integration_require_scope(integration, Integration.Scope.ACTIONS_REPORT)
    pk = parse_canonical_number("A", action_id)  # A00012 only: not A12, 12 or a00012
    order_id = ActionRecord.objects.filter(pk=pk).values_list("order_id", flat=True).first() if pk else None
    if order_id is None or owned_record(integration, "order", order_id) is None:
        raise NotFound(f"처리번호 '{action_id}'을(를) 찾을 수 없습니다.")
    return action_result_record(
        number=action_id,
        ok=ok,
        external_ref=external_ref,
        amount=amount,
        message=message,
        actor=Actor.system(f"shop:{integration.name}"),
    )
