"""One shape for audit rows: who acted (the `Actor` kinds), what changed (payload: ids and before/after
values, never personal data) and when. Each owning app has its own concrete event table on this base
(`actions.ActionEvent`, `orders.OrderEvent`, `tickets.TicketEvent`, `drafts.DraftEvent`); the payload of each
kind of event is built by a classmethod on that table, so its keys are written down once, beside the model.

The foreign keys to staff users that such records hold come in two kinds, each built in one place here: who acted
(`actor_key`: the row outlives the account) and who decided (`decider_key`: the account outlives the decision)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Self

from django.conf import settings
from django.db import models

from common.actors import Actor


class ActorType(models.TextChoices):
    """The one actor vocabulary (`Actor.type`)."""

    CUSTOMER = "CUSTOMER", "고객(에이전트)"
    STAFF = "STAFF", "상담원 대리"
    OPERATOR = "OPERATOR", "상담원"
    SYSTEM = "SYSTEM", "시스템"


def subject_key(to: type[models.Model] | str, verbose_name: str) -> models.ForeignKey:
    """An event table's foreign key to its subject: the rows go with it, and it lists them as `events`."""
    return models.ForeignKey(to, on_delete=models.CASCADE, related_name="events", verbose_name=verbose_name)


def event_type(choices: type[models.TextChoices], *, max_length: int) -> models.CharField:
    """An event table's `type` column: which of its kinds of row (its nested `Type`) this one is."""
    return models.CharField("구분", max_length=max_length, choices=choices.choices)


def actor_key(verbose_name: str) -> models.ForeignKey:
    """The staff user who did what a row records (an event's actor, a request's identity check): the row holds no
    claim on the account, and deleting the account empties the column (an event keeps the name in `actor_label`)."""
    return _staff_key(verbose_name, on_delete=models.SET_NULL)


def decider_key(verbose_name: str) -> models.ForeignKey:
    """The staff user who made a decision on a record (approved, rejected, sent, overrode): empty until someone
    decides, and kept while their decisions are (the account cannot be deleted from under them)."""
    return _staff_key(verbose_name, on_delete=models.PROTECT)


def _staff_key(verbose_name: str, *, on_delete) -> models.ForeignKey:
    return models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=on_delete,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=verbose_name,
    )


class AuditEvent(models.Model):
    """Abstract base: a subclass adds the foreign key to what its rows are about (`subject_key`), names it in
    `subject_field`, and gives its kinds of row as a nested `Type(TextChoices)` in a `type` column (`event_type`),
    or overrides `__str__` when it has none."""

    # The subclass's foreign key to its subject ("order"), and what comes before the subject's id in a row's
    # title ("D" for drafts, as a draft's own title has it).
    subject_field: ClassVar[str]
    subject_prefix: ClassVar[str] = ""

    actor_type = models.CharField("행위자 구분", max_length=10, choices=ActorType.choices)
    actor = actor_key("행위자")
    actor_label = models.CharField("행위자", max_length=100)
    payload = models.JSONField("변경 내용", default=dict, blank=True)
    created_at = models.DateTimeField("일시", auto_now_add=True, db_index=True)

    class Meta:
        abstract = True
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        subject_id = getattr(self, f"{self.subject_field}_id")
        return f"{self.subject_prefix}{subject_id} {self.get_type_display()}"

    @classmethod
    def build(cls, *, actor: Actor, payload: Mapping[str, object] | None = None, **fields: Any) -> Self:
        """An unsaved row of this table: the subject and type in `fields`, the actor's columns and the payload
        filled in the one way every table does (save it, or `bulk_create` many)."""
        return cls(**fields, payload=dict(payload or {}), **actor_fields(actor))

    @staticmethod
    def change(before: object, after: object, **rest: object) -> dict[str, object]:
        """The payload of a change of one value: `before`/`after` (the history shows them as '접수 → 답변완료')
        and whatever else the change carries."""
        return {"before": before, "after": after, **rest}


def actor_fields(actor: Actor) -> dict[str, Any]:
    """The columns an event row stores for `actor`."""
    return {"actor_type": actor.type, "actor": actor.user, "actor_label": actor.label[:100]}
