"""Two agent runs side by side (`manage.py eval_compare`, the admin's comparison page): pass^k per category,
attack success, latency, tokens of every role, total cost in one currency, and the tasks one run passes and
the other fails. Pure functions over two reports (as written to report.json or kept on EvalRun)."""

from __future__ import annotations

from evals.report import (
    FAILURE_LABELS,
    GREY,
    ROLE_LABELS,
    cost_of,
    duration_words,
    money,
)
from evals.schema import ATTACK_GOAL_LABELS, CATEGORY_LABELS

SIDES = ("a", "b")


def _k(curve: dict | None, k: int) -> float | None:
    """pass^k from a curve whose keys are ints (in memory) or strings (after JSON)."""
    curve = curve or {}
    return curve.get(k, curve.get(str(k)))


def _task_verdict(row: dict) -> str:
    if row["successes"] == row["trials"]:
        return "passed"
    if row["successes"] == 0:
        return "failed"
    return "mixed"


def _cost(report: dict, prices: tuple[float, float] | None, currency: str) -> dict:
    """The run's cost at `prices` (per million tokens, in `currency`), from its tokens; without prices, the
    cost the run itself reported when it is in the same currency."""
    tokens = report.get("tokens") or {}
    agent = tokens.get("agent", {})
    harness = [tokens.get(role, {}) for role in ("user", "judge")]
    if prices is not None:
        a = cost_of(agent.get("prompt_tokens", 0), agent.get("completion_tokens", 0), prices)
        h = cost_of(
            sum(r.get("prompt_tokens", 0) for r in harness), sum(r.get("completion_tokens", 0) for r in harness), prices
        )
        return {"agent": a, "user_and_judge": h, "total": a + h}
    own = report.get("cost")
    if own and own.get("currency") == currency:
        return {"agent": own["agent"], "user_and_judge": own["user_and_judge"], "total": own["total"]}
    return {"agent": None, "user_and_judge": None, "total": None}


def compare_build(
    a: dict, b: dict, *, labels: tuple[str, str], prices: tuple[float, float] | None = None, currency: str = "USD"
) -> dict:
    runs = {"a": a, "b": b}
    k_max = min(a.get("trials_per_task", 1), b.get("trials_per_task", 1))
    ks = list(range(1, k_max + 1))
    common = sorted(set(a["task_results"]) & set(b["task_results"]))
    only = {side: sorted(set(runs[side]["task_results"]) - set(common)) for side in SIDES}
    categories = sorted(set(a["per_category"]) | set(b["per_category"]))
    per_category = {
        c: {
            side: {
                "tasks": (runs[side]["per_category"].get(c) or {}).get("tasks", 0),
                "pass_hat_k": {k: _k((runs[side]["per_category"].get(c) or {}).get("pass_hat_k"), k) for k in ks},
            }
            for side in SIDES
        }
        for c in categories
    }
    verdicts = {side: {t: _task_verdict(runs[side]["task_results"][t]) for t in common} for side in SIDES}
    goals = sorted(set(a.get("attacks", {})) | set(b.get("attacks", {})))
    return {
        "labels": {"a": labels[0], "b": labels[1]},
        "runs": {
            side: {
                "model": runs[side]["meta"].get("model"),
                "user": runs[side]["meta"].get("user"),
                "judge": runs[side]["meta"].get("judge"),
                "started_at": runs[side]["meta"].get("started_at"),
                "duration_s": runs[side]["meta"].get("duration_s"),
                "tasks": runs[side]["tasks"],
                "trials_per_task": runs[side].get("trials_per_task", 1),
                "validity": runs[side].get("validity") or {"valid": True, "reasons": []},
                "policy_violations": len(runs[side].get("policy_violations", [])),
            }
            for side in SIDES
        },
        "ks": ks,
        "common_tasks": len(common),
        "only_in": only,
        "pass_hat_k": {side: {k: _k(runs[side]["pass_hat_k"], k) for k in ks} for side in SIDES},
        "per_category": per_category,
        "safety": {
            side: {
                key: runs[side].get(key)
                for key in (
                    "utility",
                    "utility_under_attack",
                    "attack_success_rate",
                    "attack_success_rate_code_preventable",
                    "attack_success_rate_model_only",
                )
            }
            for side in SIDES
        },
        "attacks": {
            goal: {side: (runs[side].get("attacks", {}).get(goal) or {}).get("attack_success_rate") for side in SIDES}
            for goal in goals
        },
        "latency": {side: runs[side].get("latency") or {} for side in SIDES},
        "tokens": {side: runs[side].get("tokens") or {} for side in SIDES},
        "currency": currency,
        "prices": prices,
        "cost": {side: _cost(runs[side], prices, currency) for side in SIDES},
        "a_only_passes": [t for t in common if verdicts["a"][t] == "passed" and verdicts["b"][t] == "failed"],
        "b_only_passes": [t for t in common if verdicts["b"][t] == "passed" and verdicts["a"][t] == "failed"],
        "differ": [
            {
                "task_id": t,
                "a": f"{a['task_results'][t]['successes']}/{a['task_results'][t]['trials']}",
                "b": f"{b['task_results'][t]['successes']}/{b['task_results'][t]['trials']}",
            }
            for t in common
            if verdicts["a"][t] != verdicts["b"][t] and "mixed" in (verdicts["a"][t], verdicts["b"][t])
        ],
        "failure_reasons": {
            side: {t: runs[side]["task_results"][t]["failure_reasons"] for t in common} for side in SIDES
        },
        "category_of": {t: a["task_results"][t]["category"] for t in common},
    }


# --- words: one set of sections for the Markdown and the admin page -----------------------------------------
def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


Cell = tuple[str, bool]  # (text, greyed: a figure of an invalid run)


def compare_sections(c: dict) -> dict:
    """The comparison as a person reads it: the runs, then titled tables whose cells say whether to grey them
    (a figure of an invalid run), then the tasks one run passes and the other fails."""
    ra, rb = c["runs"]["a"], c["runs"]["b"]
    ga, gb = not ra["validity"]["valid"], not rb["validity"]["valid"]
    cur = c["currency"]
    runs = []
    for side, label, run in (("A", c["labels"]["a"], ra), ("B", c["labels"]["b"], rb)):
        status = "유효" if run["validity"]["valid"] else f"무효 — {'; '.join(run['validity']['reasons'])}"
        runs.append(
            f"{side} `{label}`: 모델 `{run['model']}` · 고객 `{run['user']}` · 심판 `{run['judge'] or '없음'}` · "
            f"과제 {run['tasks']} × 시행 {run['trials_per_task']} · {run['started_at']} · "
            f"걸린 시간 {duration_words(run['duration_s'])} · {status}"
        )
    runs.append(f"함께 비교한 과제 {c['common_tasks']}개")
    for side, label in (("a", "A"), ("b", "B")):
        if c["only_in"][side]:
            runs.append(f"{label}에만 있는 과제 (비교에서 뺌): {', '.join(c['only_in'][side])}")

    def pair(x: str, y: str) -> list[Cell]:
        return [(x, ga), (y, gb)]

    ks = c["ks"]
    passk = [
        [("전체", False), (str(c["common_tasks"]), False)]
        + [cell for k in ks for cell in pair(_f(c["pass_hat_k"]["a"][k]), _f(c["pass_hat_k"]["b"][k]))]
    ]
    for category, row in c["per_category"].items():
        passk.append(
            [(CATEGORY_LABELS.get(category, category), False), (str(row["a"]["tasks"]), False)]
            + [cell for k in ks for cell in pair(_f(row["a"]["pass_hat_k"][k]), _f(row["b"]["pass_hat_k"][k]))]
        )
    s = c["safety"]
    safety = [
        [
            ("정책 위반 (0이어야 함)", False),
            (str(ra["policy_violations"]), False),
            (str(rb["policy_violations"]), False),
        ]
    ]
    for key, words in (
        ("utility", "유용성 (공격 없음)"),
        ("utility_under_attack", "공격 하 유용성"),
        ("attack_success_rate", "공격 성공률 전체"),
        ("attack_success_rate_code_preventable", "공격 성공률: 코드가 막는 목표 (0이어야 함)"),
        ("attack_success_rate_model_only", "공격 성공률: 모델만 막을 수 있는 목표"),
    ):
        safety.append([(words, False), *pair(_f(s["a"][key]), _f(s["b"][key]))])
    for goal, row in c["attacks"].items():
        safety.append(
            [(f"공격 성공률: {ATTACK_GOAL_LABELS.get(goal, goal)}", False), *pair(_f(row["a"]), _f(row["b"]))]
        )
    la, lb = c["latency"]["a"], c["latency"]["b"]
    cost_rows = [
        [
            ("대화 시간 p50 / p90 (초)", False),
            *pair(
                f"{_f(la.get('trial_p50_s'), 2)} / {_f(la.get('trial_p90_s'), 2)}",
                f"{_f(lb.get('trial_p50_s'), 2)} / {_f(lb.get('trial_p90_s'), 2)}",
            ),
        ],
        [
            ("에이전트 모델 호출 p50 / p90 (ms)", False),
            *pair(
                f"{_f(la.get('agent_call_p50_ms'), 0)} / {_f(la.get('agent_call_p90_ms'), 0)}",
                f"{_f(lb.get('agent_call_p50_ms'), 0)} / {_f(lb.get('agent_call_p90_ms'), 0)}",
            ),
        ],
    ]
    for role, words in ROLE_LABELS.items():
        ta, tb = c["tokens"]["a"].get(role, {}), c["tokens"]["b"].get(role, {})
        cost_rows.append(
            [
                (f"토큰 입력 / 출력: {words}", False),
                (f"{ta.get('prompt_tokens', 0):,} / {ta.get('completion_tokens', 0):,}", False),
                (f"{tb.get('prompt_tokens', 0):,} / {tb.get('completion_tokens', 0):,}", False),
            ]
        )
        cost_rows.append(
            [
                (f"호출 (실패): {words}", False),
                (f"{ta.get('calls', 0)} ({ta.get('failed', 0)})", False),
                (f"{tb.get('calls', 0)} ({tb.get('failed', 0)})", False),
            ]
        )
    ca, cb = c["cost"]["a"], c["cost"]["b"]
    price = (
        f"백만 토큰당 입력 {c['prices'][0]} · 출력 {c['prices'][1]} {cur}"
        if c["prices"]
        else f"각 실행이 기록한 {cur} 비용"
    )
    cost_rows += [
        [(f"비용: 에이전트 ({price})", False), (money(ca["agent"], cur), False), (money(cb["agent"], cur), False)],
        [
            ("비용: 시뮬레이션 고객과 심판 (같은 단가)", False),
            (money(ca["user_and_judge"], cur), False),
            (money(cb["user_and_judge"], cur), False),
        ],
        [("비용 합계", False), (money(ca["total"], cur), False), (money(cb["total"], cur), False)],
    ]

    def task_line(task_id: str, loser: str) -> str:
        why = ", ".join(FAILURE_LABELS.get(r, r) for r in c["failure_reasons"][loser][task_id])
        return f"{task_id} ({CATEGORY_LABELS.get(c['category_of'][task_id], '')}) — 실패 사유: {why}"

    head = ["범위", "과제"] + [f"{side} pass^{k}" for k in ks for side in ("A", "B")]
    return {
        "title": f"두 실행 비교: A `{ra['model']}` · B `{rb['model']}`",
        "runs": runs,
        "invalid": ga or gb,
        "tables": [
            {"title": "pass^k", "head": head, "rows": passk},
            {"title": "안전과 공격", "head": ["지표", "A", "B"], "rows": safety},
            {"title": "지연, 토큰, 비용", "head": ["지표", "A", "B"], "rows": cost_rows},
        ],
        "lists": [
            {
                "title": f"A만 통과한 과제 ({len(c['a_only_passes'])})",
                "items": [task_line(t, "b") for t in c["a_only_passes"]],
            },
            {
                "title": f"B만 통과한 과제 ({len(c['b_only_passes'])})",
                "items": [task_line(t, "a") for t in c["b_only_passes"]],
            },
            {
                "title": f"시행마다 결과가 갈린 과제 ({len(c['differ'])})",
                "items": [f"{d['task_id']}: A {d['a']} · B {d['b']}" for d in c["differ"]],
            },
        ],
    }


def compare_markdown(c: dict) -> str:
    sections = compare_sections(c)
    lines = [f"# {sections['title']}", "", *[f"- {line}" for line in sections["runs"]]]
    if sections["invalid"]:
        lines += ["", "> 무효한 실행의 수치는 회색입니다: 모델이 아니라 장애 경로를 잰 값이라 비교하지 마세요."]
    for table in sections["tables"]:
        lines += ["", f"## {table['title']}", "", "| " + " | ".join(table["head"]) + " |"]
        lines.append("|" + "---|" * len(table["head"]))
        for row in table["rows"]:
            cells = [f'<span style="color:{GREY}">{text}</span>' if grey else text for text, grey in row]
            lines.append("| " + " | ".join(cells) + " |")
    for block in sections["lists"]:
        lines += ["", f"## {block['title']}", ""]
        lines += [f"- {item}" for item in block["items"]] or ["- 없음"]
    return "\n".join(lines) + "\n"
