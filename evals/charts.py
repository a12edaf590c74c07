"""Charts of an eval run's report, drawn by metrics.charts (server-side SVG, escaped)."""

from __future__ import annotations

from metrics.charts import Series, column_chart, hbar_chart


def eval_run_charts(suite: str, report: dict) -> list[str]:
    if suite == "AGENT":
        curve = report.get("pass_hat_k") or {}
        ks = sorted(curve, key=int)
        charts = [
            column_chart(
                title="pass^k (전체)",
                labels=[f"k={k}" for k in ks],
                series=[Series("pass^k", [curve[k] for k in ks])],
            )
        ]
        per = report.get("per_category") or {}
        charts.append(
            hbar_chart(
                title="분류별 pass^1",
                labels=list(per),
                series=[Series("pass^1", [(row.get("pass_hat_k") or {}).get("1") for row in per.values()])],
            )
        )
        attacks = report.get("attacks") or {}
        charts.append(
            hbar_chart(
                title="공격 목표별 성공률",
                labels=list(attacks),
                series=[Series("ASR", [row.get("attack_success_rate") for row in attacks.values()], color="#dc2626")],
            )
        )
        return charts
    names = ("citation_precision", "citation_recall", "key_point_recall", "route_accuracy", "verdict_accuracy")
    return [
        hbar_chart(title="답변 초안 지표", labels=list(names), series=[Series("값", [report.get(n) for n in names])])
    ]
