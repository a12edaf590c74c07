"""Two models side by side: the built-in model against a scripted model served through the real openai client,
compared by `manage.py eval_compare` and on the admin's comparison page."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evals.adversary import dead_endpoint, guesser
from evals.models import EvalRun
from evals.ratings import eval_run_record
from evals.services import agent_eval_run

pytestmark = pytest.mark.django_db

SUBSET = "category:handoff,category:refusal,category:clarification,category:address,attack:reclassify_defect"


def _run(model: str, out, **kw) -> dict:
    report = agent_eval_run(
        selector=kw.get("selector", SUBSET),
        model=model,
        user_model=None,
        judge_model=None,
        trials=kw.get("trials", 1),
        concurrency=1,
        out_dir=out,
    ).report
    eval_run_record(suite="AGENT", model=str(report["meta"]["model"]), report=report)
    return report


@pytest.fixture
def two_runs(shop, scripted_model, tmp_path):
    scripted_model.handler = guesser
    offline = _run("offline", tmp_path / "offline", trials=2)
    scripted = _run("guesser-model", tmp_path / "guesser", trials=2)
    return tmp_path, offline, scripted


def test_eval_compare_puts_the_built_in_model_beside_a_scripted_one(two_runs, capsys):
    tmp_path, offline, scripted = two_runs
    call_command(
        "eval_compare",
        str(tmp_path / "offline"),
        str(tmp_path / "guesser" / "report.json"),
        "--price-in",
        "150",
        "--price-out",
        "600",
        "--currency",
        "KRW",
        "--out",
        str(tmp_path / "cmp"),
    )
    md = capsys.readouterr().out
    assert md == (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    cmp = json.loads((tmp_path / "cmp" / "compare.json").read_text(encoding="utf-8"))
    assert md.startswith("# 두 실행 비교: A `builtin-offline` · B `guesser-model`")
    assert "| 범위 | 과제 | A pass^1 | B pass^1 | A pass^2 | B pass^2 |" in md
    handoff = cmp["per_category"]["handoff"]
    assert handoff["a"]["pass_hat_k"]["2"] == offline["per_category"]["handoff"]["pass_hat_k"][2]
    assert handoff["b"]["pass_hat_k"]["1"] == 0.0  # the guesser's tickets land in 기타, never the right queue
    # The tasks one passes and the other fails, both ways, with the loser's reasons in words.
    assert "handoff_human" in cmp["a_only_passes"] and "clarify_exchange_reason_asked" in cmp["a_only_passes"]
    assert "- handoff_human (상담원 연결) — 실패 사유: 상태가 기대와 다름" in md
    assert set(cmp["b_only_passes"]) == {
        t
        for t, row in scripted["task_results"].items()
        if row["successes"] == 2 and not offline["task_results"][t]["successes"]
    }
    # Attack rates, latency, tokens of every role, and the total cost in the currency given.
    assert "| 공격 성공률: 단순변심을 상품하자로 바꿔 등록 |" in md and "| 에이전트 모델 호출 p50 / p90 (ms) |" in md
    assert "| 토큰 입력 / 출력: 시뮬레이션 고객 | 0 / 0 | 0 / 0 |" in md
    tokens = scripted["tokens"]["agent"]
    expected = (tokens["prompt_tokens"] * 150 + tokens["completion_tokens"] * 600) / 1_000_000
    assert (
        cmp["cost"]["b"]["total"] == pytest.approx(expected)
        and f"| 비용 합계 | {cmp['cost']['a']['total']:,.0f}원 |" in md
    )


def test_an_invalid_run_is_greyed_in_the_comparison_and_a_bad_reference_exits_2(shop, scripted_model, tmp_path, capsys):
    scripted_model.handler = dead_endpoint
    _run("dead-model", tmp_path / "dead", selector="category:lookup")
    _run("offline", tmp_path / "offline", selector="category:lookup")
    call_command("eval_compare", str(tmp_path / "offline"), str(tmp_path / "dead"))
    md = capsys.readouterr().out
    assert "무효 — 모델 호출 8회 중 8회 실패" in md
    assert '| 전체 | 8 | 1.000 | <span style="color:#9ca3af">0.000</span> |' in md
    with pytest.raises(CommandError) as raised:
        call_command("eval_compare", str(tmp_path / "offline"), str(tmp_path / "nowhere"))
    assert raised.value.returncode == 2


def test_the_admin_compares_two_runs_picked_in_the_list(two_runs, admin_client):
    a, b = EvalRun.objects.order_by("id")
    response = admin_client.post(
        "/admin/evals/evalrun/", {"action": "compare_two", "_selected_action": [a.pk, b.pk]}, follow=False
    )
    assert response.status_code == 302 and response["Location"].endswith(f"?a={a.pk}&b={b.pk}")
    html = admin_client.get(response["Location"] + "&price_in=150&price_out=600&currency=KRW").content.decode()
    assert 'id="cs-compare"' in html and "A만 통과한 과제" in html and "handoff_human" in html
    assert "<th>A pass^2</th>" in html and "원</td>" in html
    one = admin_client.post("/admin/evals/evalrun/", {"action": "compare_two", "_selected_action": [a.pk]})
    assert one.status_code == 302 and "compare" not in one["Location"]
