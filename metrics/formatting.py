"""Human-readable forms of a `metrics_compute` report: durations, percentages and the console table.

Pure functions on the report dict; the management command, the dashboard's template filters and its charts
use them (the one number format of the metrics pages).
"""

from __future__ import annotations

import unicodedata
from datetime import date
from typing import Any


def fmt_number(value: float | None) -> str:
    """12 → "12", 1.5 → "1.5", 0.66667 → "0.67", None → "-"."""
    if value is None:
        return "-"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def duration(seconds: float | None) -> str:
    """0.25 → "0.25초", 75 → "1분 15초", 5400 → "1시간 30분", None → "-"."""
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.2f}".rstrip("0").rstrip(".") + "초"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes}분 {secs}초" if secs else f"{minutes}분"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}시간 {minutes}분" if minutes else f"{hours}시간"
    return f"{hours // 24}일 {hours % 24}시간"


def percent(value: float | None) -> str:
    """0.6667 → "66.7%", None → "-"."""
    if value is None:
        return "-"
    return f"{value * 100:.1f}".rstrip("0").rstrip(".") + "%"


def _width(text: str) -> int:
    """Terminal columns: Hangul and other wide glyphs take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, *, right: bool = False) -> str:
    gap = " " * max(0, width - _width(text))
    return gap + text if right else text + gap


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(_width(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = []
    for i, row in enumerate([header, *rows]):
        cells = [_pad(str(cell), w, right=j > 0) for j, (cell, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  " + "  ".join(cells).rstrip())
        if i == 0:
            lines.append("  " + "  ".join("-" * w for w in widths))
    return lines


def _metric_section(heading: str, rows: list[list[str]]) -> list[str]:
    """A section of single figures: a blank line, its heading, and a two-column metric/value table."""
    return ["", heading, *_table(["항목 / metric", "값 / value"], rows)]


def _latency(summary: dict[str, Any]) -> str:
    return f"{duration(summary['median'])} / {duration(summary['p90'])} (n={summary['n']})"


def metrics_table(report: dict[str, Any]) -> str:
    """The report as a Korean/English console table: overall figures by section, then one row per day."""
    rng, now, o = report["range"], report["now"], report["overall"]
    d, dec, ap, chat = o["drafts"], o["decisions"], o["approvals"], o["chat"]
    lat = d["latency_seconds"]
    out = [
        f"운영 지표 / Operations metrics  {rng['since'] or '처음'} ~ {rng['until'] or '현재'}  "
        f"({rng['timezone']}, percentiles: {rng['percentile_method']})",
        *_metric_section(
            "[현재 / Now]",
            [
                ["승인 대기 / pending approvals", str(now["pending_approvals"])],
                *[[f"  {row['label']} / {row['kind']}", str(row["count"])] for row in now["pending_by_kind"]],
                ["가장 오래된 대기 / oldest pending since", now["oldest_pending_since"] or "-"],
                ["미해결 데드레터 / unresolved dead letters", str(now["unresolved_dead_letters"])],
            ],
        ),
        *_metric_section(
            "[초안 / Drafts]  중앙값 / p90 (median / p90)",
            [
                ["생성된 초안 / drafts created", str(d["created"])],
                ["입력→첫 초안 / input→draft", _latency(lat["to_draft"])],
                ["입력→QA 완료 / input→QA", _latency(lat["to_qa"])],
                ["입력→신뢰도 완료 / input→confidence", _latency(lat["to_confidence"])],
                ["생성 실패 / generation failures", str(d["failed"])],
                ["실행 / runs", str(d["runs"])],
                ["재시도 / retries", str(d["retries"])],
                [
                    "데드레터 / dead letters (unresolved)",
                    f"{o['dead_letters']['total']} ({o['dead_letters']['unresolved']})",
                ],
            ],
        ),
        *_metric_section(
            "[운영자 결정 / Operator decisions]",
            [
                ["적용 / applied", str(dec["applied"])],
                ["반려 / rejected", str(dec["rejected"])],
                ["채택률 / adoption rate", percent(dec["adoption_rate"])],
                ["그대로 발송 / unchanged share", f"{percent(dec['unchanged_share'])} ({dec['unchanged']})"],
                ["수정 후 발송 / edited share", f"{percent(dec['edited_share'])} ({dec['edited']})"],
                [
                    "평균 편집 비율 / avg edit ratio",
                    "-" if dec["avg_edit_ratio"] is None else f"{dec['avg_edit_ratio']:.4f}",
                ],
            ],
        ),
        "",
        "[분류별 반려율 / Rejection rate by category]",
        *_table(
            ["분류 / category", "결정 decided", "반려 rejected", "반려율 rate"],
            [
                [
                    f"{row['label']} / {row['category']}",
                    str(row["decided"]),
                    str(row["rejected"]),
                    percent(row["rejection_rate"]),
                ]
                for row in dec["by_category"]
            ],
        ),
        "",
        "[환불·취소 승인 / Approvals]  결정 소요 / time to decision: " + _latency(ap["decision_seconds"]),
        *_table(
            ["종류 / kind", "요청 requested", "승인 approved", "반려 rejected"],
            [
                [f"{row['label']} / {row['kind']}", str(row["requested"]), str(row["approved"]), str(row["rejected"])]
                for row in ap["by_kind"]
            ],
        ),
        "",
        f"[에이전트 채팅 / Agent chat]  응답 / replies {chat['turns']}, 도구 호출 / tool calls {chat['tool_calls']}, "
        f"거절 / refused {chat['refused']}, 사유 확인 질문 / clarifications {chat.get('clarifications', 0)}, "
        f"상담 이관 / escalations {chat['escalations']} "
        f"({percent(chat['escalation_rate'])})",
        *_table(
            ["도구 / tool", "호출 calls", "성공 ok", "거절 refused"],
            [
                [f"{row['label']} / {row['tool']}", str(row["calls"]), str(row["ok"]), str(row["refused"])]
                for row in chat["by_tool"]
            ],
        ),
        "",
        *_table(
            ["거절 사유 / refusal reason", "건수 count"],
            [
                [f"{row['label']} · {row['error_label'] or '-'} · {row['reason'][:60]}", str(row["count"])]
                for row in chat["refusal_reasons"]
            ],
        ),
        "",
        *_table(
            ["응답 결과 / reply outcome", "건수 count"],
            [[f"{row['label']} / {row['outcome'] or '-'}", str(row["count"])] for row in chat["outcomes"]]
            + [
                [f"{row['label']} / {row['source']} (티켓)", str(row["count"])] for row in chat["escalations_by_source"]
            ],
        ),
        "",
        "[일별 / Per day]",
        *_table(
            [
                "날짜 date",
                "초안 drafts",
                "첫 초안 p50/p90",
                "실패 failed",
                "재시도 retries",
                "채택률 adoption",
                "결정 소요 p50 decision",
                "도구 tools",
                "이관 escal.",
            ],
            [
                [
                    day["date"],
                    str(day["drafts"]["created"]),
                    f"{duration(day['drafts']['latency_seconds']['to_draft']['median'])}/"
                    f"{duration(day['drafts']['latency_seconds']['to_draft']['p90'])}",
                    str(day["drafts"]["failed"]),
                    str(day["drafts"]["retries"]),
                    percent(day["decisions"]["adoption_rate"]),
                    duration(day["approvals"]["decision_seconds"]["median"]),
                    str(day["chat"]["tool_calls"]),
                    str(day["chat"]["escalations"]),
                ]
                for day in report["days"]
            ],
        ),
    ]
    return "\n".join(out) + "\n"


def korean_day(day: date) -> str:
    """2026-07-27 → "2026년 7월 27일"."""
    return f"{day.year}년 {day.month}월 {day.day}일"


def default_range_note(
    *, since: date, until: date, today: date, first_activity: date | None, last_activity: date | None
) -> str:
    """Why the dashboard shows `since`..`until` when no range was asked for (metrics.policy.default_range)."""
    days = (until - since).days + 1
    shown = f"기본 기간 {korean_day(since)} ~ {korean_day(until)} ({days}일)"
    if last_activity is None:
        return f"{shown}: 기록된 활동이 없어 기준일({korean_day(today)})까지 {days}일을 보여 줍니다."
    if last_activity > today:
        why = (
            f"활동이 기록된 마지막 날({korean_day(last_activity)})이 기준일({korean_day(today)})보다 늦어, "
            f"마지막 활동일까지 {days}일을 보여 줍니다."
        )
    else:
        why = f"기준일({korean_day(today)})까지 {days}일을 보여 줍니다."
    if first_activity is not None and first_activity < since:
        why += f" 이 기간 앞에도 기록이 있습니다({korean_day(first_activity)}부터)."
    return f"{shown}: {why}"
