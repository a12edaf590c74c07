"""One shape for audit rows: who acted (the `Actor` kinds), what changed (payload: ids and before/after
values, never personal data) and when. Each owning app has its own concrete event table
(`orders.OrderEvent`, `tickets.TicketEvent`, `drafts.DraftEvent`); `actions.ActionEvent` predates this and
shares the actor vocabulary."""

from __future__ import annotations

from typing import Any

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


def actor_fields(actor: Actor) -> dict[str, Any]:
    """The columns an event row stores for `actor`."""
    return {"actor_type": actor.type, "actor": actor.user, "actor_label": actor.label[:100]}
