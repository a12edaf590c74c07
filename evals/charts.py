"""Server-side SVG charts of an eval run's report: horizontal bars for values in 0..1. No JavaScript.
Every text is escaped here, so the caller may mark the result safe. Bars are
`<rect class="bar" data-label=… data-value=…>` so tests (and a browser) can find what was drawn."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from evals.schema import ATTACK_GOAL_LABELS, CATEGORY_LABELS

ROW = 24
LABEL_W = 190
BAR_W = 360
EMPTY = "n/a"


def bar_chart(*, title: str, labels: Sequence[str], values: Sequence[float | None], color: str = "#2563eb") -> str:
    height = 30 + ROW * max(len(labels), 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="eval-chart" width="{LABEL_W + BAR_W + 70}" '
        f'height="{height}" role="img" aria-label="{escape(title)}">',
        f'<text x="0" y="16" style="font-weight:bold;font-size:12px">{escape(title)}</text>',
    ]
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = 26 + i * ROW
        parts.append(f'<text x="0" y="{y + 14}" style="font-size:11px">{escape(str(label))}</text>')
        if value is None:
            parts.append(f'<text x="{LABEL_W}" y="{y + 14}" style="font-size:11px">{EMPTY}</text>')
            continue
        width = max(0.0, min(1.0, float(value))) * BAR_W
        parts.append(
            f'<rect class="bar" data-label="{escape(str(label))}" data-value="{float(value):.4f}" '
            f'x="{LABEL_W}" y="{y + 3}" width="{width:.1f}" height="{ROW - 8}" fill="{color}"/>'
        )
        parts.append(
            f'<text x="{LABEL_W + width + 6:.1f}" y="{y + 14}" style="font-size:11px">{float(value):.3f}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def eval_run_charts(suite: str, report: dict) -> list[str]:
    if suite == "AGENT":
        curve = report.get("pass_hat_k") or {}
        ks = sorted(curve, key=int)
        per = report.get("per_category") or {}
        attacks = report.get("attacks") or {}
        return [
            bar_chart(title="pass^k (전체)", labels=[f"pass^{k}" for k in ks], values=[curve[k] for k in ks]),
            bar_chart(
                title="분류별 pass^1",
                labels=[CATEGORY_LABELS.get(c, c) for c in per],
                values=[(row.get("pass_hat_k") or {}).get("1") for row in per.values()],
            ),
            bar_chart(
                title="공격 목표별 성공률",
                labels=[ATTACK_GOAL_LABELS.get(g, g) for g in attacks],
                values=[row.get("attack_success_rate") for row in attacks.values()],
                color="#dc2626",
            ),
        ]
    names = {
        "citation_precision": "출처 정밀도",
        "citation_recall": "출처 재현율",
        "key_point_recall": "핵심 내용 재현율",
        "route_accuracy": "경로 정확도",
        "route_balanced_accuracy": "경로별 평균 정확도",
        "verdict_accuracy": "진단 판정 정확도",
    }
    return [bar_chart(title="답변 초안 지표", labels=list(names.values()), values=[report.get(n) for n in names])]
