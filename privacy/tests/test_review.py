"""The monthly review: counts per operator (admin page and CSV command), unusual volumes marked."""

from __future__ import annotations

import csv
import io
from datetime import datetime

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from common.clock import SEOUL
from privacy.models import AccessRecord

pytestmark = pytest.mark.django_db


def _rows(operator: str, count: int, *, month: int = 11, action: str = "VIEW", customer: str = "C001") -> None:
    AccessRecord.objects.bulk_create(
        AccessRecord(
            at=datetime(2026, month, 3, 10, 0, tzinfo=SEOUL),
            operator=operator,
            surface="ADMIN",
            action=action,
            object_type="CUSTOMER",
            object_id=customer,
            customer_id=customer,
            reason="점검" if action == "EXPORT" else "",
        )
        for _ in range(count)
    )


@pytest.fixture
def november():
    _rows("kim", 100)
    _rows("lee", 110)
    _rows("lee", 2, action="EXPORT", customer="C002")
    _rows("park", 900)
    _rows("park", 50, month=10)  # another month: not counted


def test_report_command_writes_counts_per_operator_as_csv(november, tmp_path):
    out = tmp_path / "access.csv"
    call_command("access_log_report", "--month", "2026-11", "--output", str(out))
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert [(r["operator"], r["view"], r["export"], r["total"], r["customers"], r["unusual"]) for r in rows] == [
        ("park", "900", "0", "900", "1", "1"),
        ("lee", "110", "2", "112", "2", "0"),
        ("kim", "100", "0", "100", "1", "0"),
    ]


def test_report_command_refuses_a_malformed_month():
    with pytest.raises(CommandError):
        call_command("access_log_report", "--month", "2026-13")


def test_review_page_shows_the_month_and_marks_the_unusual_operator(november, client):
    client.force_login(get_user_model().objects.create_superuser("auditor", password="x"))
    page = client.get(reverse("admin:privacy_accessrecord_review"), {"month": "2026-11"})
    assert page.status_code == 200
    rows = {row.operator: row for row in page.context["rows"]}
    assert rows["park"].unusual and not rows["lee"].unusual and rows["lee"].export == 2
    assert page.context["total"] == 1112
    assert "점검 필요" in page.content.decode()
    # Viewing the log itself writes no access record (it is not a customer's data page).
    assert AccessRecord.objects.count() == 1112 + 50


def test_review_page_is_closed_to_staff_without_the_view_permission(client):
    client.force_login(get_user_model().objects.create_user("bare", password="x", is_staff=True))
    assert client.get(reverse("admin:privacy_accessrecord_review")).status_code == 403
