"""The benchmark's pure arithmetic and rendering: no database, no processes."""

import pytest

from bench import report


def test_percentile_interpolates_between_closest_ranks_like_numpy():
    values = [10, 20, 30, 40]
    assert report.percentile(values, 50) == 25
    assert report.percentile(values, 90) == pytest.approx(37)
    assert report.percentile(values, 0) == 10
    assert report.percentile(values, 100) == 40


def test_percentile_of_nothing_is_none_and_q_out_of_range_is_an_error():
    assert report.percentile([], 50) is None
    with pytest.raises(ValueError):
        report.percentile([1], 101)


def test_summary_reports_median_p90_p95_of_the_sample():
    fig = report.summary([float(v) for v in range(1, 101)])
    assert fig["n"] == 100
    assert fig["median"] == 50.5
    assert fig["p90"] == pytest.approx(90.1)
    assert fig["p95"] == pytest.approx(95.05)
    assert report.summary([])["median"] is None


def test_ratio_is_none_when_a_side_is_missing_or_the_denominator_is_zero():
    assert report.ratio(390, 300) == 1.3
    assert report.ratio(None, 300) is None
    assert report.ratio(1, 0) is None


def test_ideal_throughput_is_concurrency_over_the_critical_path():
    assert report.ideal_throughput(16, 1.0) == 16
    assert report.ideal_throughput(4, 0.5) == 8
    with pytest.raises(ValueError):
        report.ideal_throughput(1, 0)


def test_allowed_speedup_stops_where_the_cpus_are_busy():
    assert report.allowed_speedup(16, 0.25) == 4  # one client keeps a quarter of the machine busy
    assert report.allowed_speedup(2, 0.25) == 2  # fewer clients than that: concurrency is the limit
    assert report.allowed_speedup(16, None) == 16


@pytest.mark.parametrize(
    ("value", "op", "limit", "ok"),
    [(1.29, "<=", 1.3, True), (1.31, "<=", 1.3, False), (0.8, ">=", 0.8, True), (None, "<=", 1.3, False),
     (0, "==", 0, True), (2, "==", 0, False)],
)  # fmt: skip
def test_check_compares_and_treats_a_missing_figure_as_missed(value, op, limit, ok):
    assert report.check("p", "n", value, op, limit)["ok"] is ok


def _results() -> dict:
    stage = {"median": 330.0, "p90": 360.0, "ratio_median": 1.1, "ratio_p90": 1.2}
    return {
        "meta": {"cpu_count": 2, "L_ms": 300},
        "draft": {
            "L_ms": 300, "n": 30,
            "parallel": {"draft": stage, "qa": {**stage, "ratio_median": 2.5},
                         "confidence": {**stage, "ratio_median": 3.4}},
            "sequential": {"draft": stage, "qa": stage, "confidence": stage},
        },
        "chat": {"levels": [
            {"concurrency": 1, "ping": {"median": 2.0}, "chat": {"median": 5.0}, "latency_ratio_median": 2.5},
            {"concurrency": 16, "ping": {"median": 9.0}, "chat": {"median": 30.0}, "latency_ratio_median": 3.3,
             "chat_scaling": {"speedup": 1.9, "allowed": 2.0, "cpu_busy_at_1": 0.5, "fraction_of_allowed": 0.95}},
        ]},
        "scale": {
            "small": {"tools": {"request_refund": {"queries": 4}}, "requests_api": {"queries": 4},
                      "admin_queue": {"queries": 6}},
            "big": {"tools": {"request_refund": {"queries": 4, "p95": 7.0}}, "requests_api": {"queries": 4},
                    "admin_queue": {"queries": 56, "median": 120.0}},
        },
        "throughput": {"levels": [{"concurrency": 1, "ratio_to_ideal": 1.0},
                                  {"concurrency": 16, "ratio_to_ideal": 0.5}]},
    }  # fmt: skip


def test_targets_name_exactly_the_figures_that_miss():
    checks = report.targets(_results())
    missed = report.missed(checks)
    assert any("input → qa" in line for line in missed)
    assert any("approval queue page: big − small" in line for line in missed)  # 6 → 56 queries: an N+1
    assert any("concurrency 16 ÷ ideal" in line for line in missed)
    assert not any("input → draft" in line or "input → confidence" in line for line in missed)
    assert not any("tool decision" in line for line in missed)
    assert not any("latency at concurrency 1:" in line for line in missed)


def test_render_has_one_table_per_part_and_lists_missed_targets():
    text = report.render(_results())
    for heading in ("1. Draft critical path", "2. Chat overhead", "3. Scale", "4. Throughput", "Missed targets"):
        assert heading in text
    assert "| input → draft stored | 330 | 360 | 1.10 | 1.20 |" in text
    assert "**missed**" in text


def test_doc_update_replaces_only_the_generated_section():
    doc = f"# Benchmarks\n\nProse.\n\n{report.BEGIN}\nold table\n{report.END}\n\nFooter.\n"
    updated = report.doc_update(doc, "new table")
    assert "old table" not in updated and "new table" in updated
    assert updated.startswith("# Benchmarks\n\nProse.") and updated.endswith("Footer.\n")
    assert report.doc_update("# Benchmarks\n", "t").count(report.BEGIN) == 1


def _cpu(**over):
    fig = {"n": 30, "cpu_ms_per_request": 2.0, "errors": 0, "valid": True}
    requests = {"ping": dict(fig), "plain_turn": {**fig, "cpu_ms_per_request": 7.0},
                "tool_turn": {**fig, "cpu_ms_per_request": 5.5}}  # fmt: skip
    requests.update(over)
    return {"requests": requests, "memory_web": {"worker": {"private": 200.0}}, "valid": True}


def test_cpu_targets_are_met_by_figures_within_the_limits():
    checks = [c for c in report.cpu_targets({"cpu": _cpu()}) if c["part"] == "cpu"]
    assert len(checks) == 5 and all(c["ok"] for c in checks)


def test_a_figure_measured_with_errors_is_a_miss_whatever_its_value():
    refused = {"n": 30, "cpu_ms_per_request": 0.5, "errors": 29, "valid": False}
    checks = {c["name"]: c for c in report.cpu_targets({"cpu": _cpu(tool_turn=refused)})}
    assert checks["tool_turn CPU of the web worker per request"]["ok"] is False
    assert checks["tool_turn CPU of the web worker per request"]["value"] is None
    assert checks["tool turn CPU ÷ ping CPU"]["ok"] is False


def test_cpu_targets_are_reported_missed_when_the_part_did_not_run():
    checks = report.cpu_targets({})
    assert checks and not any(c["ok"] for c in checks)


def test_scale_growth_is_big_p95_over_small_p95():
    scale = {"small": {"tools": {"t": {"p95": 2.0}}, "admin_queue": {"p95": 10.0}},
             "big": {"tools": {"t": {"p95": 2.5}}, "admin_queue": {"p95": 40.0}}}  # fmt: skip
    assert report.scale_growth(scale) == {"tool t": 1.25, "approval queue page": 4.0}
    growth = next(c for c in report.cpu_targets({"scale": scale}) if "growth" in c["name"])
    assert growth["value"] == 4.0 and growth["ok"] is False


def test_render_names_an_invalid_part():
    text = report.render({"chat": {"levels": [], "valid": False}, "cpu": _cpu()})
    assert "**Invalid parts**" in text and "chat" in text
    assert "5. Our own cost" in text


def test_before_after_table_shows_both_runs_figures():
    before = {"cpu": _cpu(tool_turn={"n": 30, "cpu_ms_per_request": 98.3, "valid": True, "ratio_to_ping": 16.4}),
              "meta": {"finished_at": "b"}}  # fmt: skip
    after = {"cpu": _cpu(), "meta": {"finished_at": "a"}, "before": before}
    text = report.render(after)
    assert "Before / after" in text
    assert "| tool_turn | 98.30 | 5.50 |" in text


def test_the_cpu_section_states_the_clients_floor_under_the_tool_turn():
    cpu = {**_cpu(), "floor": {"sdk_call_cpu_ms": 2.3, "http_client_call_cpu_ms": 0.5, "tool_turn_floor_ms": 5.9,
                               "tool_turn_floor_ratio_to_ping": 4.4}}  # fmt: skip
    text = report.render_cpu(cpu)
    assert "one model call through the `openai` SDK costs 2.30 ms CPU" in text
    assert "ping + 2 calls = 5.90 ms, 4.40× ping" in text


def test_the_memory_table_lists_a_prefork_workers_main_process_and_children():
    m = {"rss": 600.0, "pss": 250.0, "private": 40.0, "shared": 560.0}
    text = report.render_cpu({**_cpu(), "memory_celery_prefork": {"main": m, "children": [m, m]}})
    assert "| celery prefork main | 600 | 250 | 40.00 | 560 |" in text
    assert text.count("| celery prefork child |") == 2


def test_stage_cpu_splits_the_workers_cpu_per_draft_by_the_work_of_its_runs():
    per_draft = [
        {"draft": 10.0, "qa": 6.0, "diagnosis": 1.0, "context": 3.0, "retrieval": 2.0},
        {"draft": 14.0, "qa": 8.0, "diagnosis": 9.0, "context": 5.0, "retrieval": 2.0},
        {"draft": 12.0, "context": 4.0, "retrieval": 2.0},  # QA did not run: the draft stage failed
    ]
    split = report.stage_cpu(per_draft, 40.0, order=["draft", "qa", "diagnosis", "context", "retrieval"])
    assert list(split["pieces"]) == ["draft", "qa", "diagnosis", "context", "retrieval"]
    assert split["pieces"]["draft"] == {"n": 3, "median": 12.0, "p90": 13.6, "ms_per_draft": 12.0}
    assert split["pieces"]["qa"]["n"] == 2 and split["pieces"]["qa"]["median"] == 7.0
    assert split["pieces"]["qa"]["ms_per_draft"] == pytest.approx(14 / 3, abs=0.01)  # over all the drafts
    assert split["sum"]["median"] == 22.0 and split["sum"]["ms_per_draft"] == 26.0
    assert sum(p["ms_per_draft"] for p in split["pieces"].values()) == pytest.approx(26.0, abs=0.02)
    assert split["share_of_worker"] == 0.65  # the rest is Celery and the task around the run
    assert report.stage_cpu([], 40.0)["pieces"] == {}


def test_the_cpu_section_shows_the_workers_cpu_per_stage_and_the_share_they_account_for():
    split = report.stage_cpu([{"draft": 12.0, "tags": 1.5, "context": 4.0}], 35.0, order=["draft", "tags", "context"])
    cpu = {**_cpu(), "draft": {"n": 1, "cpu_ms_per_draft": 35.0, "valid": True, "stages": split}}
    text = report.render_cpu(cpu)
    assert "| Celery worker's work | drafts it ran in | median CPU ms | p90 CPU ms | CPU ms per draft |" in text
    assert "| stage draft | 1 | 12.00 | 12.00 | 12.00 |" in text
    assert "| context prefetch | 1 | 4.00 | 4.00 | 4.00 |" in text
    assert "| all of them | 1 | 17.50 | 17.50 | 17.50 |" in text
    assert "Of the worker's 35.00 ms per draft" in text and "account for 17.50 ms (50%)" in text
    assert "Celery worker's work" not in report.render_cpu(_cpu())  # no split measured: no table


def test_before_after_memory_shows_the_celery_worker_and_the_largest_prefork_child():
    solo = {"rss": 640.0, "private": 620.0, "shared": 20.0}
    child = {"rss": 610.0, "private": 40.0, "shared": 570.0}
    before = {"cpu": {**_cpu(), "memory_celery": {"1": solo}}, "meta": {}}
    after = {"cpu": {**_cpu(), "memory_celery": {"2": solo},
                     "memory_celery_prefork": {"main": child, "children": [{**child, "private": 15.0}, child]}},
             "meta": {}}  # fmt: skip
    text = report.render_before_after(before, after)
    assert "| celery worker (--pool=solo) | 640 → 640 | 620 → 620 | 20.00 → 20.00 |" in text
    assert "| celery prefork child, largest | – → 610 | – → 40.00 | – → 570 |" in text
