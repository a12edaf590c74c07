"""`manage.py cs_metrics`: the JSON is the selector's report; the table is readable."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from metrics.tests.dataset import build_dataset
from metrics.tests.test_selectors import DAY2, EXPECTED, NOW

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("cs_metrics", *args, stdout=out)
    return out.getvalue()


def test_json_output_equals_the_hand_computed_report():
    build_dataset()
    assert json.loads(run("--format", "json")) == EXPECTED


def test_json_output_for_one_day():
    build_dataset()
    report = json.loads(run("--since", "2026-07-27", "--until", "2026-07-27", "--format", "json"))
    assert report["overall"] == DAY2
    assert report["now"] == NOW


def test_table_output_is_readable():
    build_dataset()
    table = run()
    assert "운영 지표 / Operations metrics" in table
    assert "채택률 / adoption rate" in table and "60%" in table  # 3 / 5
    assert "입력→첫 초안 / input→draft" in table and "3초 / 6초 (n=6)" in table
    assert "배송 / DELIVERY" in table and "25%" in table
    assert "2026-07-26" in table and "2026-07-27" in table
    assert "승인 대기 / pending approvals" in table


@pytest.mark.parametrize(
    "args",
    [("--since", "2026-07-28", "--until", "2026-07-27"), ("--since", "27-07-2026"), ("--format", "xml")],
)
def test_bad_arguments_are_refused(args):
    with pytest.raises(CommandError):
        run(*args)
