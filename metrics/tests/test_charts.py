"""SVG charts as pure functions: what is drawn, scaled and escaped. No database, no browser."""

import re
import xml.etree.ElementTree as ET

import pytest

from metrics.charts import (
    DASHBOARD_CHARTS,
    Series,
    column_chart,
    dashboard_charts,
    dashboard_panels,
    fmt_number,
    hbar_chart,
    line_chart,
    nice_axis,
)
from metrics.tests.test_selectors import EXPECTED

NS = {"svg": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML, or this raises


def bars(svg: str) -> list[ET.Element]:
    return parse(svg).findall(".//svg:rect[@class='bar']", NS)


@pytest.mark.parametrize(
    "maximum, expected_top, expected_ticks",
    [
        (0, 1.0, [0, 0.25, 0.5, 0.75, 1.0]),
        (4, 4, [0, 1, 2, 3, 4]),
        (7, 8, [0, 2, 4, 6, 8]),
        (10, 10, [0, 2.5, 5, 7.5, 10]),
        (43200, 60000, [0, 20000, 40000, 60000]),  # step 20000 ≥ 43200 / 4; three intervals suffice
        (0.6667, 0.8, [0, 0.2, 0.4, 0.6, 0.8]),
    ],
)
def test_nice_axis(maximum, expected_top, expected_ticks):
    top, ticks = nice_axis(maximum)
    assert top == pytest.approx(expected_top) and ticks == pytest.approx(expected_ticks)
    assert top >= maximum


@pytest.mark.parametrize("value, text", [(None, "-"), (12, "12"), (1200, "1,200"), (1.5, "1.5"), (0.66667, "0.67")])
def test_fmt_number(value, text):
    assert fmt_number(value) == text


def test_stacked_columns_are_scaled_to_the_axis():
    svg = column_chart(
        title="결정", labels=["07-26", "07-27"], series=[Series("적용", [1, 2]), Series("반려", [1, 2])], height=240
    )
    drawn = bars(svg)
    assert len(drawn) == 4
    heights = {(b.get("data-label"), b.get("data-series")): float(b.get("height")) for b in drawn}
    # axis top for a max stack of 4 is 4; plot height is 240 - 24 - 36 = 180 → 45 px per unit
    assert heights == {
        ("07-26", "적용"): 45.0,
        ("07-26", "반려"): 45.0,
        ("07-27", "적용"): 90.0,
        ("07-27", "반려"): 90.0,
    }
    # stacked: the second series sits on top of the first
    first, second = (b for b in drawn if b.get("data-label") == "07-27")
    assert float(second.get("y")) + float(second.get("height")) == pytest.approx(float(first.get("y")))


def test_side_by_side_columns_do_not_overlap():
    svg = column_chart(title="t", labels=["a"], series=[Series("x", [1]), Series("y", [3])], stacked=False)
    x_bar, y_bar = bars(svg)
    assert float(x_bar.get("x")) + float(x_bar.get("width")) <= float(y_bar.get("x")) + 0.01
    assert float(y_bar.get("height")) == pytest.approx(3 * float(x_bar.get("height")))


def test_line_chart_breaks_at_missing_values():
    svg = line_chart(title="지연", labels=["a", "b", "c", "d"], series=[Series("p50", [1, 2, None, 4])])
    root = parse(svg)
    assert len(root.findall(".//svg:circle[@class='point']", NS)) == 3
    lines = root.findall(".//svg:polyline", NS)
    assert len(lines) == 1 and len(lines[0].get("points").split()) == 2  # a–b joined, d alone


def test_hbar_widths_are_proportional_and_capped():
    svg = hbar_chart(
        title="반려율", labels=["배송", "오류"], series=[Series("반려율", [25, 100])], max_value=100, width=640
    )
    delivery, error = bars(svg)
    assert float(error.get("width")) == pytest.approx(4 * float(delivery.get("width")))
    assert float(error.get("width")) == pytest.approx(640 - 170 - 40)


def test_labels_are_escaped():
    svg = hbar_chart(title="<b>", labels=['<script>alert("x")</script>'], series=[Series("n & m", [1])])
    assert "<script>" not in svg and "&lt;script&gt;" in svg and "n &amp; m" in svg
    parse(svg)


@pytest.mark.parametrize(
    "chart",
    [
        lambda: column_chart(title="t", labels=[], series=[]),
        lambda: line_chart(title="t", labels=["a"], series=[Series("s", [None])]),
        lambda: hbar_chart(title="t", labels=["a"], series=[Series("s", [0])]),
    ],
)
def test_no_data_draws_an_empty_chart_not_an_error(chart):
    svg = chart()
    assert svg.startswith("<svg") and "데이터 없음" in svg and "empty" in parse(svg).get("class")
    assert bars(svg) == []


def test_dashboard_charts_from_a_report():
    charts = dashboard_charts(EXPECTED)
    assert set(charts) == {
        "latency", "decisions", "failures", "rejection_by_category", "approvals_by_kind", "tool_calls",
        "refusal_reasons", "chat_daily", "first_response", "sla_attainment", "refund_deadlines",
    }  # fmt: skip
    for svg in charts.values():
        assert "empty" not in parse(svg).get("class")
    # D1: unchanged 1, rejected 1; D2: edited 2, rejected 1 → four visible decision bars
    visible = [b for b in bars(charts["decisions"]) if float(b.get("height")) > 0]
    assert sorted((b.get("data-label"), b.get("data-series"), b.get("data-value")) for b in visible) == [
        ("07-26", "그대로 발송", "1"),
        ("07-26", "반려", "1"),
        ("07-27", "반려", "1"),
        ("07-27", "수정 후 발송", "2"),
    ]
    rejection = {b.get("data-label"): b.get("data-value") for b in bars(charts["rejection_by_category"])}
    assert rejection == {"배송": "25.0", "오류": "100.0"}  # categories without decisions are left out
    # latency: first-draft and confidence medians and p90s on both days → 8 points
    assert len(re.findall(r'class="point"', charts["latency"])) == 8


def test_each_chart_is_declared_once_and_panels_follow_the_dashboards_order():
    keys = [chart.key for chart in DASHBOARD_CHARTS]
    assert len(set(keys)) == len(keys)  # a repeated key would silently replace a chart
    charts = dashboard_charts(EXPECTED)
    panels = dashboard_panels(EXPECTED)
    assert [panel.key for panel in panels] == list(charts) == keys
    assert all(panel.svg == charts[panel.key] for panel in panels)  # every chart has data in EXPECTED
