"""One shape for audit rows: who acted (the `Actor` kinds), what changed (payload: ids and before/after
values, never personal data) and when. Each owning app has its own concrete event table on this base
(`actions.ActionEvent`, `orders.OrderEvent`, `tickets.TicketEvent`, `drafts.DraftEvent`); the payload of each
kind of event is built by a classmethod on that table, so its keys are written down once, beside the model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from django.conf import settings
from django.db import models

from common.actors import Actor


class ActorType(models.TextChoices):
    """The one actor vocabulary (`Actor.type`)."""

    CUSTOMER = "CUSTOMER", "고객(에이전트)"
    STAFF = "STAFF", "상담원 대리"
    OPERATOR = "OPERATOR", "상담원"
    SYSTEM = "SYSTEM", "시스템"


class AuditEvent(models.Model):
    """Abstract base: subclasses add the subject foreign key and a nested `Type(TextChoices)`."""

    actor_type = models.CharField("행위자 구분", max_length=10, choices=ActorType.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="행위자",
    )
    actor_label = models.CharField("행위자", max_length=100)
    payload = models.JSONField("변경 내용", default=dict, blank=True)
    created_at = models.DateTimeField("일시", auto_now_add=True, db_index=True)

    class Meta:
        abstract = True
        ordering = ["created_at", "id"]

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
