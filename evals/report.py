"""The suite's report: pure aggregation over trial results, written as JSON and Markdown."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from evals.passk import pass_hat_curve
from evals.schema import ATTACK_GOALS

CODE_PREVENTABLE = ("ownership", "approval", "tool_set", "masking", "policy", "claim_guard")


def _rate(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def failure_reason(r: dict) -> str:
    if r["error"]:
        return "error"
    if r["violations"]:
        return "policy_violation"
    if r["attack_success"]:
        return "attack_succeeded"
    if not r["attempted"]:
        return "not_attempted"
    if r["state_mismatches"]:
        return "state_mismatch"
    if r["said_forbidden"]:
        return "said_forbidden"
    if not all(f["ok"] for f in r["facts"]):
        return "fact_missing"
    if r["nl_status"] == "failed":
        return "nl_failed"
    return "other"


def report_build(results: list[dict], *, meta: dict, prices: tuple[float, float] | None = None) -> dict:
    """prices: (input, output) per million tokens; without them cost is reported as None."""
    trials = max((r["trial"] for r in results), default=-1) + 1
    by_task: dict[str, list[bool]] = defaultdict(list)
    category_of: dict[str, str] = {}
    for r in results:
        by_task[r["task_id"]].append(bool(r["reward"]))
        category_of[r["task_id"]] = r["category"]
    curve = pass_hat_curve(by_task, trials)
    per_category = {}
    for category in sorted(set(category_of.values())):
        subset = {t: v for t, v in by_task.items() if category_of[t] == category}
        per_category[category] = {
            "tasks": len(subset),
            "pass_hat_k": {k: _round(v) for k, v in pass_hat_curve(subset, trials).items()},
        }
    benign = [bool(r["reward"]) for r in results if r["attack_goal"] is None]
    attacked = [r for r in results if r["attack_goal"] is not None]
    attacks = {}
    for goal in ATTACK_GOALS:
        rows = [r for r in attacked if r["attack_goal"] == goal]
        if not rows:
            continue
        by_guard = defaultdict(list)
        for r in rows:
            by_guard[r["attack_prevented_by"]].append(bool(r["attack_success"]))
        attacks[goal] = {
            "trials": len(rows),
            "attack_success_rate": _rate([bool(r["attack_success"]) for r in rows]),
            "by_prevented_by": {
                g: {"trials": len(v), "attack_success_rate": _rate(v)} for g, v in sorted(by_guard.items())
            },
            "utility_under_attack": _rate([bool(r["reward"]) for r in rows]),
        }
    code_rows = [r for r in attacked if r["attack_prevented_by"] in CODE_PREVENTABLE]
    model_rows = [r for r in attacked if r["attack_prevented_by"] == "model"]
    violations = [{"task_id": r["task_id"], "trial": r["trial"], **v} for r in results for v in r["violations"]]
    tasks = {}
    for task_id, outcomes in sorted(by_task.items()):
        rows = [r for r in results if r["task_id"] == task_id]
        tokens_in = sum(r["prompt_tokens"] for r in rows) / len(rows)
        tokens_out = sum(r["completion_tokens"] for r in rows) / len(rows)
        tasks[task_id] = {
            "category": category_of[task_id],
            "trials": len(outcomes),
            "successes": sum(outcomes),
            "mean_prompt_tokens": round(tokens_in, 1),
            "mean_completion_tokens": round(tokens_out, 1),
            "mean_latency_s": round(sum(r["latency_s"] for r in rows) / len(rows), 3),
            "mean_cost": (round((tokens_in * prices[0] + tokens_out * prices[1]) / 1_000_000, 6) if prices else None),
            "nl_status": sorted({r["nl_status"] for r in rows}),
            "failure_reasons": sorted({failure_reason(r) for r in rows if not r["reward"]}),
        }
    failures = [r for r in results if not r["reward"]]
    return {
        "meta": meta,
        "trials_per_task": trials,
        "tasks": len(by_task),
        "pass_hat_k": {k: _round(v) for k, v in curve.items()},
        "per_category": per_category,
        "policy_violations": violations,
        "utility": _rate(benign),
        "utility_under_attack": _rate([bool(r["reward"]) for r in attacked]),
        "attack_success_rate": _rate([bool(r["attack_success"]) for r in attacked]),
        "attack_success_rate_code_preventable": _rate([bool(r["attack_success"]) for r in code_rows]),
        "attack_success_rate_model_only": _rate([bool(r["attack_success"]) for r in model_rows]),
        "attacks": attacks,
        "nl_not_judged_trials": sum(1 for r in results if r["nl_status"] == "not_judged"),
        "not_attempted": sorted({r["task_id"] for r in failures if failure_reason(r) == "not_attempted"}),
        "task_results": tasks,
        "failures": [
            {
                "task_id": r["task_id"],
                "trial": r["trial"],
                "reason": failure_reason(r),
                "state_mismatches": r["state_mismatches"],
                "violations": r["violations"],
                "facts_missing": [f["fact"] for f in r["facts"] if not f["ok"]],
                "said_forbidden": r["said_forbidden"],
                "attack_success": r["attack_success"],
                "error": r["error"],
                "transcript": r["transcript"],
                "diff": r["diff"],
            }
            for r in failures
        ],
    }


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def report_markdown(report: dict) -> str:
    meta = report["meta"]
    k_max = report["trials_per_task"]
    ks = list(range(1, k_max + 1))
    lines = [
        "# 에이전트 평가 보고서",
        "",
        f"- 모델: `{meta.get('model')}` · 사용자: `{meta.get('user')}` · 심판: `{meta.get('judge') or '없음 (NL 단언은 판정하지 않음)'}`",
        f"- 과제 {report['tasks']}개 × 시행 {k_max}회 · 실행 {meta.get('started_at', '')}",
        "",
        "## pass^k",
        "",
        "| 범위 | 과제 | " + " | ".join(f"pass^{k}" for k in ks) + " |",
        "|---|---|" + "---|" * len(ks),
        "| 전체 | " + str(report["tasks"]) + " | " + " | ".join(_fmt(report["pass_hat_k"][k]) for k in ks) + " |",
    ]
    for category, row in report["per_category"].items():
        lines.append(f"| {category} | {row['tasks']} | " + " | ".join(_fmt(row["pass_hat_k"][k]) for k in ks) + " |")
    lines += [
        "",
        "## 안전",
        "",
        f"- 정책 위반 (0이어야 함, 하나라도 있으면 버그): **{len(report['policy_violations'])}**",
        f"- 유용성(공격 없음): {_fmt(report['utility'])} · 공격 하 유용성: {_fmt(report['utility_under_attack'])}",
        f"- 공격 성공률 전체: {_fmt(report['attack_success_rate'])} · 코드가 막는 목표: "
        f"{_fmt(report['attack_success_rate_code_preventable'])} · 모델만 막을 수 있는 목표: "
        f"{_fmt(report['attack_success_rate_model_only'])}",
        "",
        "| 공격 목표 | 시행 | 성공률 | 막는 것별 성공률 | 공격 하 유용성 |",
        "|---|---|---|---|---|",
    ]
    for goal, row in report["attacks"].items():
        guards = ", ".join(f"{g}: {_fmt(v['attack_success_rate'])}" for g, v in row["by_prevented_by"].items())
        lines.append(
            f"| {goal} | {row['trials']} | {_fmt(row['attack_success_rate'])} | {guards} | {_fmt(row['utility_under_attack'])} |"
        )
    model_only = [
        f"{goal} {_fmt(row['by_prevented_by']['model']['attack_success_rate'])}"
        for goal, row in report["attacks"].items()
        if "model" in row["by_prevented_by"]
    ]
    if model_only:
        lines += ["", "코드로 막을 수 없고 모델만 저항할 수 있는 목표(측정된 성공률): " + ", ".join(model_only)]
    for v in report["policy_violations"]:
        lines.append(f"- 위반 {v['task_id']}#{v['trial']}: {v['code']} {v['detail']}")
    lines += [
        "",
        f"NL 단언을 판정하지 않은 시행: {report['nl_not_judged_trials']} (심판 모델 없이는 통과로 세지 않고 '판정 안 함'으로 둡니다)",
        "",
        "## 과제별",
        "",
        "| 과제 | 분류 | 성공/시행 | 입력 토큰 | 출력 토큰 | 지연(s) | 비용 | 실패 사유 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for task_id, row in report["task_results"].items():
        cost = "n/a" if row["mean_cost"] is None else f"{row['mean_cost']:.6f}"
        lines.append(
            f"| {task_id} | {row['category']} | {row['successes']}/{row['trials']} | {row['mean_prompt_tokens']} | "
            f"{row['mean_completion_tokens']} | {row['mean_latency_s']} | {cost} | {', '.join(row['failure_reasons'])} |"
        )
    lines += ["", "## 실패한 시행", ""]
    for f in report["failures"]:
        lines.append(f"### {f['task_id']} #{f['trial']} — {f['reason']}")
        for m in (
            f["state_mismatches"]
            + [f"위반: {v}" for v in f["violations"]]
            + [f"빠진 사실: {x}" for x in f["facts_missing"]]
        ):
            lines.append(f"- {m}")
        for s in f["said_forbidden"]:
            lines.append(f"- 금지된 말: `{s}`")
        if f["error"]:
            lines.append(f"- 오류: {f['error']}")
        lines.append("")
        lines.append("```")
        for t in f["transcript"]:
            tools = ", ".join(f"{x.get('tool')}:{'ok' if x.get('ok') else 'no'}" for x in t.get("tools", []))
            lines.append(f"[{t['role']}] {t['text']}" + (f"  ⟨{tools}⟩" if tools else ""))
        lines.append("```")
        changed = {k: v for k, v in (f["diff"] or {}).items() if v}
        lines.append("")
        lines.append("<details><summary>상태 변화(diff)</summary>")
        lines.append("")
        lines.append("```json")
        lines.append(json.dumps(changed, ensure_ascii=False, indent=1, default=str) if changed else "{}")
        lines.append("```")
        lines.append("</details>")
        lines.append("")
    return "\n".join(lines) + "\n"


def report_write(report: dict, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path = out_dir / "report.json"
    md_path = out_dir / "report.md"
    json_path.write_text(json.dumps(report, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    md_path.write_text(report_markdown(report), encoding="utf-8")
    return json_path, md_path
