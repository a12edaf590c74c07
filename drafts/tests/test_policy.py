import pytest

from drafts import policy
from drafts.policy import edit_distance, edit_ratio, normalise_reply


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("", "", 0),
        ("", "환불", 2),
        ("환불", "", 2),
        ("환불", "환불", 0),
        ("환불 요청", "환불 신청", 1),
        ("kitten", "sitting", 3),
        ("배송이 늦어요", "배송 늦어요", 1),
        ("abc", "cba", 2),
        ("교환 접수했습니다", "교환을 접수했습니다", 1),
    ],
)
def test_edit_distance_counts_characters(a, b, distance):
    assert edit_distance(a, b) == distance
    assert edit_distance(b, a) == distance


@pytest.mark.parametrize(
    ("original", "final", "ratio"),
    [
        ("", "", 0.0),
        ("안녕하세요", "안녕하세요", 0.0),
        ("안녕하세요", "", 1.0),
        ("abcd", "abce", 0.25),
        ("환불", "배송", 1.0),
        ("환불 요청", "환불 신청", 0.2),
        ("kitten", "sitting", round(3 / 7, 4)),
    ],
)
def test_edit_ratio_is_distance_over_the_longer_text(original, final, ratio):
    assert edit_ratio(original, final) == ratio


def test_line_endings_and_outer_whitespace_do_not_count_as_edits():
    assert normalise_reply("  안녕하세요\r\n감사합니다 \n") == "안녕하세요\n감사합니다"


# --- retries and the sweep -------------------------------------------------------------------------
@pytest.mark.parametrize(("retries", "expected"), [(0, 1.0), (1, 2.0), (2, 4.0), (5, 32.0), (6, 60.0), (20, 60.0)])
def test_database_and_broker_faults_back_off_exponentially_up_to_a_cap(retries, expected):
    assert policy.transient_backoff_s(retries, cap_s=60) == expected


@pytest.mark.parametrize(
    ("remaining_s", "waited_s", "expected"),
    [
        (200.0, 0.0, 5.0),  # a long lease: look again soon, its holder may finish early
        (200.0, 590.0, 5.0),  # 118 looks later: still waiting, no count ever gives up
        (0.5, 0.0, 1.5),  # about to expire: try again right after it does
        (0.0, 0.0, 1.0),  # expired between the two calls: at once
        (150.0, 600.0, None),  # waited the whole CS_AI_LEASE_WAIT_S (3 leases): give up
    ],
)
def test_a_busy_lease_is_waited_out_by_time_not_by_a_count(remaining_s, waited_s, expected):
    assert policy.lease_wait_s(remaining_s=remaining_s, waited_s=waited_s, max_wait_s=600, poll_s=5) == expected


SWEEP_DEFAULTS = dict(
    age_s=120.0,
    has_draft=True,
    closed=False,
    unfinished=False,
    has_failure=False,
    attempts=1,
    since_attempt_s=120.0,
    lease_held=False,
    request_pending=False,
    grace_s=90.0,
    failed_limit=5,
    failed_base_s=30.0,
    failed_cap_s=600.0,
)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"has_draft": False}, "missing"),  # lost broker message, failed write
        ({"has_draft": False, "age_s": 30.0}, None),  # within the grace period: the first request may still run
        ({"unfinished": True}, "missing"),  # PREPARING, nobody holds the lease: a dead run
        ({"unfinished": True, "lease_held": True}, None),  # someone is working, or a dead lease still runs
        ({"unfinished": True, "attempts": 5}, None),  # ran 5 times and never finished: left for people
        ({"has_draft": False, "request_pending": True}, None),  # the outbox hands it over (with its backoff)
        ({}, None),  # complete
        ({"closed": True, "unfinished": True}, None),  # superseded / decided
        ({"has_failure": True, "unfinished": True, "since_attempt_s": 31.0}, "failed"),  # a FAILED draft
        ({"has_failure": True, "attempts": 2, "since_attempt_s": 59.0}, None),  # backoff: 60 s after run 2
        ({"has_failure": True, "attempts": 2, "since_attempt_s": 60.0}, "failed"),
        ({"has_failure": True, "attempts": 5, "since_attempt_s": 9999.0}, None),  # the limit: left for people
        ({"has_failure": True, "lease_held": True}, None),
    ],
)
def test_sweep_decision(changes, expected):
    assert policy.sweep_decision(**{**SWEEP_DEFAULTS, **changes}) == expected
