from __future__ import annotations

import logging
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction

from common.clock import now as clock_now
from privacy import policy
from privacy.models import AccessRecord

log = logging.getLogger(__name__)


def access_log_retention_days() -> int:
    """How long access records are kept (CS_ACCESS_LOG_RETENTION_DAYS, default two years, never under one).
    The retention sweep reads the period here."""
    return policy.retention_days(getattr(settings, "CS_ACCESS_LOG_RETENTION_DAYS", None))


def access_records_expired(*, now: datetime | None = None):
    """The access records past their retention period (what the retention sweep counts and purges)."""
    return AccessRecord.objects.filter(at__lt=policy.purge_cutoff(now or clock_now(), access_log_retention_days()))


def access_records_purge(*, now: datetime | None = None, pks: list[int] | None = None) -> int:
    """Delete access records older than the retention period (only those in `pks` when given, so the retention
    sweep can work off a backlog in bounded steps): the one way rows leave the table. On PostgreSQL the trigger
    that refuses DELETE lets through, inside this transaction only, rows older than the cutoff given to it here."""
    cutoff = policy.purge_cutoff(now or clock_now(), access_log_retention_days())
    table = AccessRecord._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT set_config('cs.access_purge_before', %s, true)", [cutoff.isoformat()])
        if pks is None:
            cursor.execute(f"DELETE FROM {table} WHERE at < %s", [cutoff])  # noqa: S608 - the table name is ours
        else:
            marks = ", ".join(["%s"] * len(pks)) or "NULL"
            cursor.execute(
                f"DELETE FROM {table} WHERE at < %s AND id IN ({marks})",  # noqa: S608 - the table name is ours
                [cutoff, *pks],
            )
        deleted = cursor.rowcount
    log.info("privacy.access_records_purged count=%d", deleted)
    return deleted
