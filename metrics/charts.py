"""Server-side SVG charts: pure functions from numbers to an inline `<svg>` string. No JavaScript, no CDN.

Every text and attribute value is escaped here, so the result may be marked safe by the caller.
Bars are `<rect class="bar" data-series=… data-label=… data-value=…>` and line points are
`<circle class="point" …>`, so tests (and a browser) can find what was drawn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from metrics.formatting import fmt_number

PALETTE = ("#2563eb", "#f59e0b", "#dc2626", "#059669", "#7c3aed", "#64748b")
FONT = "font-family:inherit;font-size:11px"
EMPTY_TEXT = "데이터 없음"


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float | None]
    color: str | None = None


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def nice_axis(maximum: float, intervals: int = 4) -> tuple[float, list[float]]:
    """A round axis top ≥ `maximum` and its evenly spaced ticks from 0 (1-2-2.5-5 steps)."""
    if maximum <= 0:
        return 1.0, [i / intervals for i in range(intervals + 1)]
    raw = maximum / intervals
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw - 1e-12)
    top = step * math.ceil(maximum / step - 1e-9)
    count = round(top / step)
    return top, [round(step * i, 10) for i in range(count + 1)]


def _colors(series: Sequence[Series]) -> list[str]:
    return [s.color or PALETTE[i % len(PALETTE)] for i, s in enumerate(series)]


def _open(width: int, height: int, title: str, kind: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="metrics-chart {kind}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{_e(title)}">',
        f"<title>{_e(title)}</title>",
    ]


def chart_is_empty(svg: str) -> bool:
    """Whether `svg` is the placeholder drawn for a chart with no data."""
    return svg.startswith("<svg") and " empty" in svg[: svg.index(">")]


def _empty(width: int, height: int, title: str, kind: str) -> str:
    parts = _open(width, height, title, f"{kind} empty")
    parts.append(
        f'<text x="{width / 2:.1f}" y="{height / 2:.1f}" text-anchor="middle" fill="#64748b" '
        f'style="{FONT}">{EMPTY_TEXT}</text></svg>'
    )
    return "".join(parts)


def _legend(series: Sequence[Series], colors: list[str], x: float, y: float) -> list[str]:
    parts = []
    for s, color in zip(series, colors, strict=True):
        parts.append(f'<rect class="legend" x="{x:.1f}" y="{y - 9:.1f}" width="10" height="10" fill="{color}"/>')
        parts.append(f'<text x="{x + 14:.1f}" y="{y:.1f}" fill="currentColor" style="{FONT}">{_e(s.name)}</text>')
        x += 24 + 7 * len(s.name) + 6 * sum(1 for ch in s.name if ord(ch) > 0x2E80)  # CJK glyphs are wider
    return parts


def _has_data(series: Sequence[Series]) -> bool:
    return any(v for s in series for v in s.values if v is not None)


def _tooltip(label: str, series: Series, value: float, unit: str) -> str:
    """The hover text of one drawn value: "07-27 · 반려: 3건"."""
    return f"<title>{_e(label)} · {_e(series.name)}: {_e(fmt_number(value))}{_e(unit)}</title>"


def _bar(series: Series, label: str, value: float, unit: str, color: str, box: str) -> str:
    """One bar: a `<rect>` at `box` (its x, y, width and height attributes) that names its series, label and
    value, with its hover text."""
    return (
        f'<rect class="bar" data-series="{_e(series.name)}" data-label="{_e(label)}" data-value="{_e(value)}" '
        f'{box} fill="{color}">{_tooltip(label, series, value, unit)}</rect>'
    )


def _close(parts: list[str], series: Sequence[Series], colors: list[str], x: float, y: float) -> str:
    """The legend at (`x`, `y`) and the closing tag: the finished chart."""
    parts += _legend(series, colors, x, y)
    parts.append("</svg>")
    return "".join(parts)


# Margins of the charts drawn over a value axis (column and line): the tick labels on the left, the category
# labels and the legend below. One frame, so the dashboard's charts line up.
AXIS_MARGINS = {"left": 48, "right": 12, "top": 24, "bottom": 36}


def _plot_area(width: int, height: int) -> tuple[int, int, int, int]:
    """Left, top, width and height of the plot inside a `width`×`height` chart with a value axis."""
    m = AXIS_MARGINS
    return m["left"], m["top"], width - m["left"] - m["right"], height - m["top"] - m["bottom"]


def _label_step(count: int, room: float, per_label: float) -> int:
    """Show every n-th category label so that labels do not overlap."""
    fits = max(1, int(room // per_label))
    return max(1, math.ceil(count / fits))


def column_chart(
    *,
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    unit: str = "",
    stacked: bool = True,
    width: int = 640,
    height: int = 240,
) -> str:
    """Vertical bars per label (e.g. per day); several series are stacked or side by side."""
    if not labels or not _has_data(series):
        return _empty(width, height, title, "column")
    left, top, plot_w, plot_h = _plot_area(width, height)
    totals = [
        sum(s.values[i] or 0 for s in series) if stacked else max((s.values[i] or 0) for s in series)
        for i in range(len(labels))
    ]
    axis_top, ticks = nice_axis(max(totals))
    colors = _colors(series)
    parts = _open(width, height, title, "column")
    parts += _y_axis(ticks, axis_top, left, top, plot_w, plot_h, unit)
    slot = plot_w / len(labels)
    bar_w = max(1.0, slot * 0.7 / (1 if stacked else len(series)))
    for i, label in enumerate(labels):
        x0 = left + slot * i + slot * 0.15
        base = top + plot_h
        for j, (s, color) in enumerate(zip(series, colors, strict=True)):
            value = s.values[i] or 0
            h = plot_h * value / axis_top
            x = x0 if stacked else x0 + bar_w * j
            y = base - h
            parts.append(
                _bar(s, label, value, unit, color, f'x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}"')
            )
            if stacked:
                base = y
    return _finish(parts, labels, series, colors, left=left, top=top, plot_w=plot_w, plot_h=plot_h, height=height)


def _finish(
    parts: list[str],
    labels: Sequence[str],
    series: Sequence[Series],
    colors: list[str],
    *,
    left: int,
    top: int,
    plot_w: int,
    plot_h: int,
    height: int,
) -> str:
    """X-axis labels (thinned so they do not overlap), the legend, and the closing tag."""
    slot = plot_w / len(labels)
    step = _label_step(len(labels), plot_w, 44)
    for i, label in enumerate(labels):
        if i % step == 0:
            parts.append(
                f'<text x="{left + slot * (i + 0.5):.1f}" y="{top + plot_h + 14}" text-anchor="middle" '
                f'fill="currentColor" style="{FONT}">{_e(label)}</text>'
            )
    return _close(parts, series, colors, left, height - 6)


def line_chart(
    *,
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    unit: str = "",
    width: int = 640,
    height: int = 240,
) -> str:
    """One line per series over the labels; a None value breaks the line (no invented points)."""
    if not labels or not _has_data(series):
        return _empty(width, height, title, "line")
    left, top, plot_w, plot_h = _plot_area(width, height)
    axis_top, ticks = nice_axis(max(v for s in series for v in s.values if v is not None))
    colors = _colors(series)
    parts = _open(width, height, title, "line")
    parts += _y_axis(ticks, axis_top, left, top, plot_w, plot_h, unit)
    slot = plot_w / len(labels)

    def point(i: int, value: float) -> tuple[float, float]:
        return left + slot * (i + 0.5), top + plot_h - plot_h * value / axis_top

    for s, color in zip(series, colors, strict=True):
        runs: list[list[tuple[float, float]]] = [[]]
        for i, value in enumerate(s.values):
            if value is None:
                runs.append([])
                continue
            x, y = point(i, value)
            runs[-1].append((x, y))
            parts.append(
                f'<circle class="point" data-series="{_e(s.name)}" data-label="{_e(labels[i])}" '
                f'data-value="{_e(value)}" cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}">'
                f"{_tooltip(labels[i], s, value, unit)}</circle>"
            )
        for run in runs:
            if len(run) > 1:
                coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in run)
                parts.append(
                    f'<polyline class="line" data-series="{_e(s.name)}" points="{coords}" fill="none" '
                    f'stroke="{color}" stroke-width="2"/>'
                )
    return _finish(parts, labels, series, colors, left=left, top=top, plot_w=plot_w, plot_h=plot_h, height=height)


def hbar_chart(
    *,
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    unit: str = "",
    width: int = 640,
    row_height: int = 24,
    label_width: int = 170,
    max_value: float | None = None,
) -> str:
    """Horizontal stacked bars, one row per label (categories, tools, reasons: long Korean labels fit)."""
    height = 24 + row_height * max(1, len(labels)) + 28
    if not labels or not _has_data(series):
        return _empty(width, height, title, "hbar")
    left, right, top = label_width, 40, 20
    plot_w = width - left - right
    totals = [sum(s.values[i] or 0 for s in series) for i in range(len(labels))]
    axis_top = max_value or nice_axis(max(totals))[0]
    colors = _colors(series)
    parts = _open(width, height, title, "hbar")
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + row_height * len(labels)}" stroke="#94a3b8"/>')
    for i, label in enumerate(labels):
        y = top + row_height * i + 4
        short = label if len(label) <= 22 else label[:21] + "…"
        parts.append(
            f'<text x="{left - 6}" y="{y + row_height / 2 + 1:.1f}" text-anchor="end" fill="currentColor" '
            f'style="{FONT}"><title>{_e(label)}</title>{_e(short)}</text>'
        )
        x = float(left)
        for s, color in zip(series, colors, strict=True):
            value = s.values[i] or 0
            w = plot_w * min(value, axis_top) / axis_top
            parts.append(
                _bar(s, label, value, unit, color, f'x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{row_height - 8}"')
            )
            x += w
        parts.append(
            f'<text x="{x + 4:.1f}" y="{y + row_height / 2 + 1:.1f}" fill="currentColor" style="{FONT}">'
            f"{_e(fmt_number(totals[i]))}{_e(unit)}</text>"
        )
    return _close(parts, series, colors, left, height - 8)


def _y_axis(
    ticks: list[float], axis_top: float, left: int, top: int, plot_w: float, plot_h: float, unit: str
) -> list[str]:
    parts = []
    for tick in ticks:
        y = top + plot_h - plot_h * tick / axis_top
        parts.append(
            f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{left + plot_w:.1f}" y2="{y:.1f}" '
            f'stroke="#cbd5e1" stroke-width="{1 if tick == 0 else 0.5}"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="currentColor" style="{FONT}">'
            f"{_e(fmt_number(tick))}{_e(unit)}</text>"
        )
    return parts


# --- the dashboard's charts, from a `metrics_compute` result ---------------------------------------


def _hours(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds / 3600, 2)


def _percent(share: float | None) -> float | None:
    return None if share is None else round(share * 100, 1)


Row = dict[str, Any]


def _days(metrics: dict[str, Any]) -> list[tuple[str, Row]]:
    """One column (or point) per day of the range, labelled MM-DD."""
    return [(day["date"][5:], day) for day in metrics["days"]]


def _labelled(rows: Iterable[Row]) -> list[tuple[str, Row]]:
    return [(row["label"], row) for row in rows]


def _decided_categories(metrics: dict[str, Any]) -> list[tuple[str, Row]]:
    """The categories with at least one decision: a rejection rate over no decisions is not 0%."""
    return _labelled(row for row in metrics["overall"]["decisions"]["by_category"] if row["decided"])


def _approval_kinds(metrics: dict[str, Any]) -> list[tuple[str, Row]]:
    return _labelled(metrics["overall"]["approvals"]["by_kind"])


def _tools(metrics: dict[str, Any]) -> list[tuple[str, Row]]:
    return _labelled(metrics["overall"]["chat"]["by_tool"])


def _top_refusal_reasons(metrics: dict[str, Any]) -> list[tuple[str, Row]]:
    """The ten most frequent refusals, each labelled by its tool and its error (or, without one, its reason)."""
    return [
        (f"{row['label']} · {row['error_label'] or row['reason']}", row)
        for row in metrics["overall"]["chat"]["refusal_reasons"][:10]
    ]


@dataclass(frozen=True)
class DashboardSeries:
    """One series of a dashboard chart: its legend name, the key path to its value in each day's report (or in
    each row, for a chart of rows), its colour (None: the palette's), and how a stored value is drawn."""

    name: str
    path: tuple[str, ...]
    color: str | None = None
    scale: Callable[[Any], float | None] | None = None

    def read(self, item: Row) -> Any:
        value: Any = item
        for key in self.path:
            value = value[key]
        return value if self.scale is None else self.scale(value)


@dataclass(frozen=True)
class DashboardChart:
    """One chart of the dashboard: where it sits (`key`, the figure's caption, and what the one line that
    replaces it says is missing when the range has no data for it) and what it draws: `rows` are its labelled
    x positions (the days, or the rows of a table in the report), `series` what is read from each, and
    `options` the drawing function's own arguments."""

    key: str
    caption: str
    missing: str
    draw: Callable[..., str]
    title: str
    unit: str
    series: tuple[DashboardSeries, ...]
    rows: Callable[[dict[str, Any]], list[tuple[str, Row]]] = _days
    options: dict[str, Any] = field(default_factory=dict)

    def svg(self, metrics: dict[str, Any]) -> str:
        rows = self.rows(metrics)
        return self.draw(
            title=self.title,
            labels=[label for label, _ in rows],
            series=[Series(s.name, [s.read(row) for _, row in rows], s.color) for s in self.series],
            unit=self.unit,
            **self.options,
        )


# The dashboard's charts in the order the page shows them, each declared once: its place and its drawing.
DASHBOARD_CHARTS = (
    DashboardChart(
        key="latency",
        caption="초안 지연",
        missing="초안 지연",
        draw=line_chart,
        title="초안 지연(초): 입력 → 첫 초안 / 신뢰도 완료",
        unit="초",
        series=(
            DashboardSeries("첫 초안 중앙값", ("drafts", "latency_seconds", "to_draft", "median")),
            DashboardSeries("첫 초안 p90", ("drafts", "latency_seconds", "to_draft", "p90")),
            DashboardSeries("신뢰도 완료 중앙값", ("drafts", "latency_seconds", "to_confidence", "median")),
            DashboardSeries("신뢰도 완료 p90", ("drafts", "latency_seconds", "to_confidence", "p90")),
        ),
    ),
    DashboardChart(
        key="decisions",
        caption="운영자 결정",
        missing="운영자 결정",
        draw=column_chart,
        title="일별 초안 결정: 그대로 / 수정 후 발송 / 반려",
        unit="건",
        series=(
            DashboardSeries("그대로 발송", ("decisions", "unchanged"), "#059669"),
            DashboardSeries("수정 후 발송", ("decisions", "edited"), "#2563eb"),
            DashboardSeries("반려", ("decisions", "rejected"), "#dc2626"),
        ),
    ),
    DashboardChart(
        key="rejection_by_category",
        caption="분류별 반려율",
        missing="분류별 반려율",
        draw=hbar_chart,
        title="분류별 초안 반려율(%)",
        unit="%",
        series=(DashboardSeries("반려율", ("rejection_rate",), "#dc2626", scale=_percent),),
        rows=_decided_categories,
        options={"max_value": 100},
    ),
    DashboardChart(
        key="failures",
        caption="생성 실패 · 재시도 · 데드레터",
        missing="생성 실패·재시도·데드레터",
        draw=column_chart,
        title="일별 생성 실패 · 재시도 · 데드레터",
        unit="건",
        series=(
            DashboardSeries("생성 실패", ("drafts", "failed"), "#dc2626"),
            DashboardSeries("재시도", ("drafts", "retries"), "#f59e0b"),
            DashboardSeries("데드레터", ("dead_letters", "total"), "#7c3aed"),
        ),
        options={"stacked": False},
    ),
    DashboardChart(
        key="approvals_by_kind",
        caption="환불·취소 승인",
        missing="환불·취소 결정",
        draw=hbar_chart,
        title="환불·취소 결정: 승인 / 반려",
        unit="건",
        series=(
            DashboardSeries("승인", ("approved",), "#059669"),
            DashboardSeries("반려", ("rejected",), "#dc2626"),
        ),
        rows=_approval_kinds,
    ),
    DashboardChart(
        key="tool_calls",
        caption="에이전트 도구 호출",
        missing="도구 호출",
        draw=hbar_chart,
        title="에이전트 도구 호출: 성공 / 사유 확인 질문 / 거절",
        unit="건",
        series=(
            DashboardSeries("성공", ("ok",), "#2563eb"),
            # The reason question refuses nothing: its own series, not part of 거절 (that would inflate refusals).
            DashboardSeries("사유 확인 질문", ("clarified",), "#64748b"),
            DashboardSeries("거절", ("refused",), "#f59e0b"),
        ),
        rows=_tools,
    ),
    DashboardChart(
        key="refusal_reasons",
        caption="거절 사유",
        missing="거절 사유",
        draw=hbar_chart,
        title="거절 사유 상위 10",
        unit="건",
        series=(DashboardSeries("건수", ("count",), "#f59e0b"),),
        rows=_top_refusal_reasons,
        options={"label_width": 260},
    ),
    DashboardChart(
        key="chat_daily",
        caption="채팅 응답 · 상담 이관",
        missing="채팅 응답·상담 이관",
        draw=column_chart,
        title="일별 채팅 응답 · 상담 이관",
        unit="건",
        series=(
            DashboardSeries("응답", ("chat", "turns"), "#64748b"),
            DashboardSeries("상담 이관", ("chat", "escalations"), "#dc2626"),
        ),
        options={"stacked": False},
    ),
    DashboardChart(
        key="first_response",
        caption="첫 답변 시간",
        missing="첫 답변",
        draw=line_chart,
        title="첫 답변까지 걸린 시간(영업시간 기준, 시간): 중앙값 / p90",
        unit="시간",
        series=(
            DashboardSeries("중앙값", ("tickets", "first_response_seconds", "median"), scale=_hours),
            DashboardSeries("p90", ("tickets", "first_response_seconds", "p90"), scale=_hours),
        ),
    ),
    DashboardChart(
        key="sla_attainment",
        caption="SLA 준수율",
        missing="SLA",
        draw=line_chart,
        title="SLA 준수율(%): 첫 답변 / 해결",
        unit="%",
        series=(
            DashboardSeries("첫 답변 기한 준수", ("tickets", "sla", "first_response_attainment"), scale=_percent),
            DashboardSeries("해결 기한 준수", ("tickets", "sla", "resolution_attainment"), scale=_percent),
        ),
    ),
    DashboardChart(
        key="refund_deadlines",
        caption="환불 법정 기한",
        missing="승인된 환불",
        draw=column_chart,
        title="승인된 환불의 법정 기한(승인 후 3영업일): 기한 내 / 늦은 환불 / 미환불 기한 지남",
        unit="건",
        series=(
            DashboardSeries("기한 내 환불", ("refund_deadlines", "refunded_on_time"), "#059669"),
            DashboardSeries("늦은 환불", ("refund_deadlines", "refunded_late"), "#f59e0b"),
            DashboardSeries("미환불 기한 지남", ("refund_deadlines", "owed_overdue"), "#dc2626"),
        ),
    ),
)


def dashboard_charts(metrics: dict[str, Any]) -> dict[str, str]:
    """The dashboard's SVG charts keyed by name, in its order. Pure: takes the report dict, returns strings."""
    return {chart.key: chart.svg(metrics) for chart in DASHBOARD_CHARTS}


# --- the dashboard's panels: a chart, or one line when the range has no data for it ---------------------


@dataclass(frozen=True)
class Panel:
    key: str
    caption: str
    svg: str  # "" when the range has no data for it: the page shows `empty_line` instead of an empty frame
    empty_line: str


def empty_line(what: str) -> str:
    return f"이 기간에 {what} 데이터가 없습니다."


def dashboard_panels(metrics: dict[str, Any]) -> list[Panel]:
    panels = []
    for chart in DASHBOARD_CHARTS:
        svg = chart.svg(metrics)
        panels.append(Panel(chart.key, chart.caption, "" if chart_is_empty(svg) else svg, empty_line(chart.missing)))
    return panels


def _day_active(day: dict[str, Any]) -> bool:
    return bool(
        day["drafts"]["created"]
        or day["decisions"]["decided"]
        or day["dead_letters"]["total"]
        or day["approvals"]["requested"]
        or day["approvals"]["decided"]
        or day["chat"]["turns"]
        or day["chat"]["tool_calls"]
        or day["chat"]["escalations"]
        or day["tickets"]["created"]
        or day["refund_deadlines"]["approved"]
        or day["csat"]["rated"]
    )


def dashboard_tables(metrics: dict[str, Any]) -> dict[str, Any]:
    """What the dashboard's tables need beyond the report: the days that had activity (a day of zeros is not
    listed) and, per table, whether the range has anything for it (else one line replaces the table)."""
    overall = metrics["overall"]
    chat = overall["chat"]
    approvals = overall["approvals"]
    return {
        "active_days": [day for day in metrics["days"] if _day_active(day)],
        "empty": {
            "rejection": not overall["decisions"]["decided"],
            "approvals": not (approvals["requested"] or approvals["decided"]),
            "tools": not chat["by_tool"],
            "refusals": not chat["refusal_reasons"],
            "chat": not (chat["turns"] or chat["escalations"]),
            "csat": not overall["csat"]["rated"],
            "low_csat": not metrics.get("low_csat"),
        },
        "empty_line": {
            "rejection": empty_line("초안 결정"),
            "approvals": empty_line("환불·취소 요청"),
            "tools": empty_line("도구 호출"),
            "refusals": empty_line("거절 사유"),
            "chat": empty_line("채팅 응답·상담 이관"),
            "days": empty_line("일별 활동"),
            "csat": empty_line("고객 평가"),
            "low_csat": empty_line("낮은 평가(2점 이하)"),
        },
    }
