"""Display helpers and the console table: no database."""

import pytest

from metrics.formatting import duration, metrics_table, percent
from metrics.tests.test_selectors import EXPECTED


@pytest.mark.parametrize(
    "seconds, text",
    [(None, "-"), (0, "0초"), (0.25, "0.25초"), (3.0, "3초"), (59.99, "59.99초"), (75, "1분 15초"), (600, "10분"),
     (5400, "1시간 30분"), (43200, "12시간"), (200000, "2일 7시간")],
)  # fmt: skip
def test_duration(seconds, text):
    assert duration(seconds) == text


@pytest.mark.parametrize("value, text", [(None, "-"), (0.0, "0%"), (0.6667, "66.7%"), (0.25, "25%"), (1.0, "100%")])
def test_percent(value, text):
    assert percent(value) == text


def test_table_aligns_korean_columns():
    table = metrics_table(EXPECTED)
    rows = [line for line in table.splitlines() if line.startswith("  2026-07-2")]
    assert len(rows) == 2
    header = next(line for line in table.splitlines() if line.startswith("  날짜 date"))
    from metrics.formatting import _width

    assert _width(rows[0]) == _width(rows[1]) <= _width(header)  # numbers right-aligned under wide headers
