"""The live-lists benchmark in its quick mode (a scratch SQLite file, 10 lists, a few samples), so the harness
cannot rot: both mechanisms measured, every figure present, the sync-worker limit of streams shown, and a run
that saw errors refuses to give figures."""

import os

import pytest
from django.conf import settings

from bench import live_lists

# The harness makes its own scratch SQLite database and servers, whatever the suite runs on: once is enough,
# in the embedded default's pass.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"].endswith("postgresql"),
        reason="runs on its own SQLite file; once, in the SQLite pass",
    ),
]


def _browser_available() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return os.path.exists(live_lists.CHROMIUM)


def test_quick_run_measures_polling_and_server_sent_events():
    browser = _browser_available()
    if not browser and os.environ.get("CI") == "true":
        pytest.fail("CI=true: Chromium and Playwright are required for the benchmark's browser delay")
    result = live_lists.run(lists=10, interval_s=1.0, window_s=3.0, samples=3, browser_samples=2 if browser else 0)
    assert result["valid"] is True and result["database"] == "sqlite"
    poll, sse = result["mechanisms"]["poll"], result["mechanisms"]["sse"]
    assert poll["server"] == "gunicorn -k sync -w 4" and sse["server"].startswith("gunicorn -k gthread")
    for figures in (poll, sse):
        assert figures["delay_ms"]["n"] == 3 and 0 < figures["delay_ms"]["p95"] < 5000
        assert figures["idle"]["server_cpu_share"] >= 0 and figures["idle"]["queries_per_s"] > 0
    # Ten lists asking every second: about ten 304s a second, each a few queries; the streams ask nothing.
    assert 5 <= poll["idle"]["requests_per_s"] <= 15 and poll["idle"]["queries_per_s"] > sse["idle"]["queries_per_s"]
    assert sse["idle"]["requests_per_s"] == 0
    if browser:
        assert poll["browser_delay_ms"]["n"] == 2 and poll["browser_delay_ms"]["p95"] < 5000
    blocked = result["sse_on_sync_workers"]
    assert blocked["streams_open"] == 4 and blocked["healthz_answered_within_5_s"] is False


def test_a_run_that_saw_an_error_exits_1_and_writes_no_figures(monkeypatch, tmp_path, capsys):
    def delays_with_a_miss(port, token, watcher, samples, interval_s, errors):
        errors.add("inquiry T00001 not seen within 15 s")
        return [], []

    monkeypatch.setattr(live_lists, "_delays", delays_with_a_miss)
    out = tmp_path / "live_lists.json"
    argv = ["--quick", "--lists", "2", "--window", "1", "--samples", "1", "--browser-samples", "0", "--out", str(out)]
    assert live_lists.main(argv) == 1
    assert not out.exists()
    printed = capsys.readouterr()
    assert "INVALID" in printed.err and "not seen within 15 s" in printed.err
    assert '"valid": false' in printed.out and "server_cpu_share" not in printed.out
