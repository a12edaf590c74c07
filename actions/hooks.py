"""What apps above actions plug into a money request's outcome.

`action_decide` (승인/반려) and `action_result_record` (환불완료/처리실패) call every registered outcome hook
`(*, record, actor) -> None` in their own transaction, after the record's new status and its audit row are
written: chat appends a line built from the record to the conversation that made the request. actions never
imports chat (chat sits a floor up); chat registers in `ChatConfig.ready()`. A hook that raises undoes the
decision, so the customer's conversation and the record cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from actions.models import ActionRecord
    from common.actors import Actor


class OutcomeHook(Protocol):
    def __call__(self, *, record: ActionRecord, actor: Actor) -> None: ...


# Keyed by name so that registering again (a re-imported module) replaces instead of adding a second call.
_outcome: dict[str, OutcomeHook] = {}


def outcome_register(name: str, hook: OutcomeHook) -> None:
    _outcome[name] = hook


def outcome_hooks() -> list[Callable[..., None]]:
    return list(_outcome.values())
