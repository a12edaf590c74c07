"""The draft golden set: valid cases tied to real passages; pure metrics on known values; the whole set
through the real pipeline on the offline model (must-not violations and diagnosis leaks: 0 tolerated)."""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from evals import build_draft_cases
from evals.drafts_eval import (
    ROUTES,
    VERDICTS,
    DraftCase,
    auroc,
    confidence_auroc,
    diagnosis_leaks,
    draft_case_list,
    draft_case_score,
    draft_route,
    route_balanced_accuracy,
)


def _documents() -> dict[str, str]:
    docs = {}
    for path in (settings.FIXTURES_DIR / "knowledge").glob("*.md"):
        text = path.read_text(encoding="utf-8")
        docs[text.splitlines()[0].split(":", 1)[1].strip()] = text
    docs["faq"] = (settings.FIXTURES_DIR / "knowledge" / "faq.json").read_text(encoding="utf-8")
    return docs


def test_golden_set_has_40_cases_whose_key_points_quote_their_documents():
    cases = draft_case_list()
    assert len(cases) >= 40
    docs = _documents()
    for case in cases:
        assert case.expected.route in ROUTES
        assert case.expected.diagnosis_verdict in (None, *VERDICTS)
        for point in case.expected.key_points:
            assert point.passage in docs[point.doc_id], (case.id, point.passage)
        for doc_id in case.expected.required_citations + case.expected.allowed_citations:
            assert doc_id in docs, (case.id, doc_id)
    assert {c.expected.diagnosis_verdict for c in cases} >= set(VERDICTS)
    routes = [c.expected.route for c in cases]
    assert set(routes) == set(ROUTES) and routes.count("ask") >= 5 and routes.count("escalate") >= 5


def test_committed_cases_are_what_the_builder_writes():
    for row in build_draft_cases.CASES:
        path = build_draft_cases.CASES_DIR / f"{row['id']}.json"
        assert json.loads(path.read_text(encoding="utf-8")) == row


def test_key_points_ask_for_specific_facts_not_words_any_reply_or_the_question_has():
    generic = {"확인", "승인", "취소", "반품", "부담", "이미", "다시", "변경", "지연", "무료", "국내"}
    for case in draft_case_list():
        for point in case.expected.key_points:
            assert not generic & set(point.any_of), (case.id, point.any_of)
            assert not any(word in case.body for word in point.any_of), (case.id, point.any_of)


def test_an_answer_reproducing_one_rated_down_is_a_must_not_violation():
    case = DraftCase.model_validate(
        {
            "id": "rated",
            "customer_id": "C003",
            "category": "DELIVERY",
            "subject": "s",
            "body": "b",
            "expected": {"must_not_reproduce": ["배송은 내일 도착합니다. 걱정하지 마세요."]},
        }
    )
    kwargs = {"citations": [], "hard_blockers": [], "diagnosis": {}}
    again = draft_case_score(case, answer="배송은 내일 도착합니다.  걱정하지 마세요!", **kwargs)
    assert again["must_not_violations"] and again["must_not_violations"][0].startswith("👎 받은 답변을 되풀이")
    assert draft_case_score(case, answer="배송은 1~2영업일 안에 출고됩니다.", **kwargs)["must_not_violations"] == []


def test_a_failed_draft_fails_every_measure_instead_of_scoring_as_a_draft():
    (case,) = draft_case_list("shipping_fee")
    score = draft_case_score(case, answer="", citations=[], hard_blockers=[], diagnosis={}, failure="초안이 없음")
    assert score["route"] == "failed" and score["key_points_found"] == 0
    assert route_balanced_accuracy([score]) == 0.0


def test_auroc_known_values():
    assert auroc([0.9, 0.8, 0.3, 0.1], [True, True, False, False]) == 1.0
    assert auroc([0.1, 0.3, 0.8, 0.9], [True, True, False, False]) == 0.0
    assert auroc([0.5, 0.5], [True, False]) == 0.5
    assert auroc([0.9, 0.4, 0.6, 0.2], [True, True, False, False]) == 0.75  # 3 of 4 pairs ordered
    assert auroc([0.9], [True]) is None


def test_confidence_auroc_is_na_without_both_kinds_of_decision():
    applied = {"groundedness": {"score": 0.9}}
    assert confidence_auroc([]) == {k: None for k in ("groundedness", "completeness", "safety", "uncertainty_handling")}
    assert confidence_auroc([(applied, True)])["groundedness"] is None
    assert confidence_auroc([(applied, True), ({"groundedness": {"score": 0.2}}, False)])["groundedness"] == 1.0


def test_route_and_diagnosis_leak_detection():
    assert draft_route("안내드립니다.", []) == "draft"
    assert draft_route("주문번호를 알려 주세요.", []) == "ask"
    assert draft_route("안내드립니다.", ["승인 전에 환불을 약속함"]) == "escalate"
    diagnosis = {
        "verdict": "PARTIAL_EVIDENCE",
        "interpretation": "주문 목록 API 응답은 정상이나 화면 렌더링이 비어 있었음",
        "checks": [],
    }
    assert diagnosis_leaks("확인 후 안내드리겠습니다.", diagnosis) == []
    assert diagnosis_leaks("PG_TIMEOUT 때문입니다", {"verdict": "X", "observed_facts": [{"code": "PG_TIMEOUT"}]}) == [
        "PG_TIMEOUT"
    ]
    assert "PARTIAL_EVIDENCE" in diagnosis_leaks("판정: PARTIAL_EVIDENCE", diagnosis)


@pytest.mark.django_db(transaction=True)
def test_offline_model_golden_set_has_no_must_not_violation_or_diagnosis_leak(shop_knowledge, offline_model, tmp_path):
    from evals.services import drafts_eval_run

    outcome = drafts_eval_run(selector=None, model="offline", out_dir=tmp_path, decisions=[])
    r = outcome.report
    assert r["cases"] == len(draft_case_list())
    assert r["must_not_violations"] == 0
    assert r["diagnosis_leaks"] == 0
    assert r["verdict_accuracy"] is not None and r["citation_recall"] is not None
    assert r["confidence_auroc"]["groundedness"] is None  # no operator decisions yet: reported n/a
    assert "n/a" in (tmp_path / "drafts-report.md").read_text(encoding="utf-8")
    from tickets.models import Ticket

    assert not Ticket.objects.exists()  # each case cleaned up after itself


@pytest.mark.django_db(transaction=True)
def test_reckless_draft_model_is_caught_by_the_golden_set_and_by_code(shop_knowledge, scripted_model, tmp_path):
    """A model that promises refunds, cites documents it never saw and claims a cause with no evidence:
    the golden set reports its must-not violations; code drops its citations, adds the refund blocker to every
    draft and downgrades its verdicts."""
    from evals.adversary import reckless_drafts
    from evals.services import drafts_eval_run

    scripted_model.handler = reckless_drafts
    r = drafts_eval_run(selector="refund_*,error_*", model="reckless", out_dir=tmp_path, decisions=[]).report
    assert r["must_not_violations"] > 0  # measured, never hidden
    assert r["blocker_recall"] == 1.0  # every promising draft carries the code's blocker
    assert all(s["route"] == "escalate" for s in r["case_results"])
    cited = {doc for s in r["case_results"] for doc in s["cited"]}
    assert "made-up-policy" not in cited  # fabricated citations are dropped by code
    verdicts = {s["id"]: s["verdict"] for s in r["case_results"] if s["verdict_expected"]}
    assert "FAILURE_POINT_IDENTIFIED" not in verdicts.values()  # no evidence cited: downgraded by code


@pytest.mark.django_db(transaction=True)
def test_one_canned_sentence_scores_no_key_point_and_a_third_of_the_routes(shop_knowledge, scripted_model, tmp_path):
    """A model that answers every inquiry with one polite sentence: the key points (specific facts) find nothing,
    and always drafting gets the draft cases right and every ask and escalate case wrong."""
    from evals.adversary import canned_drafts
    from evals.services import drafts_eval_run

    scripted_model.handler = canned_drafts
    r = drafts_eval_run(selector=None, model="canned", out_dir=tmp_path, decisions=[]).report
    assert r["validity"]["valid"] is True and r["failed_drafts"] == 0
    assert r["key_point_recall"] == 0.0 and r["citation_recall"] == 0.0
    assert r["route_balanced_accuracy"] == round(1 / 3, 4)
    assert {s["route"] for s in r["case_results"]} == {"draft"}
