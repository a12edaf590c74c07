"""Pure token and throttle rules: no database."""

from datetime import UTC, datetime, timedelta

import pytest

from accounts import policy

NOW = datetime(2026, 7, 27, 12, 0, tzinfo=UTC)
TTL = timedelta(hours=12)


@pytest.mark.parametrize(
    ("age", "expired"),
    [(timedelta(0), False), (TTL - timedelta(seconds=1), False), (TTL, True), (TTL + timedelta(days=3), True)],
)
def test_token_expires_exactly_at_its_ttl(age, expired):
    assert policy.token_is_expired(created_at=NOW - age, now=NOW, ttl=TTL) is expired


def test_tokens_to_drop_removes_expired_stale_password_and_the_oldest_beyond_the_cap():
    tokens = [  # newest first: (id, created_at, issued under the current password)
        (6, NOW - timedelta(minutes=1), True),
        (5, NOW - timedelta(minutes=2), False),  # another password
        (4, NOW - timedelta(minutes=3), True),
        (3, NOW - timedelta(minutes=4), True),  # beyond keep=2
        (2, NOW - TTL, True),  # expired
        (1, NOW - timedelta(minutes=5), True),  # beyond keep=2
    ]
    assert policy.tokens_to_drop(tokens, now=NOW, ttl=TTL, keep=2) == [5, 3, 2, 1]
    assert policy.tokens_to_drop([], now=NOW, ttl=TTL, keep=2) == []
    assert policy.tokens_to_drop(tokens[:1], now=NOW, ttl=TTL, keep=0) == [6]


@pytest.mark.parametrize(
    ("last_failure_ago", "expected"),
    [(timedelta(0), 900), (timedelta(minutes=10), 300), (timedelta(minutes=14, seconds=59.5), 1), (None, 900)],
)
def test_retry_after_counts_down_from_the_last_counted_failure(last_failure_ago, expected):
    last = None if last_failure_ago is None else NOW - last_failure_ago
    assert policy.retry_after_seconds(last_failure_at=last, cooloff=timedelta(minutes=15), now=NOW) == expected


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("kim01", "kim01"),
        (" Kim01 ", "kim01"),
        ("", None),
        ("   ", None),
        (None, None),
        (["kim01"], None),
        ("x" * 300, "x" * 150),
    ],
)
def test_username_key_normalizes_how_a_name_is_typed(raw, key):
    assert policy.username_key(raw) == key


@pytest.mark.parametrize(
    ("remote", "forwarded", "proxies", "client"),
    [
        ("10.0.0.9", "", 0, "10.0.0.9"),
        ("10.0.0.9", "1.2.3.4", 0, "10.0.0.9"),  # no proxy trusted: the header is the client's claim
        ("10.0.0.9", "1.2.3.4", 1, "1.2.3.4"),
        ("10.0.0.9", "6.6.6.6, 1.2.3.4", 1, "1.2.3.4"),  # a spoofed left entry is ignored
        ("10.0.0.9", "6.6.6.6, 1.2.3.4, 10.0.0.8", 2, "1.2.3.4"),
        ("10.0.0.9", "", 1, "10.0.0.9"),  # reached directly despite the setting
    ],
)
def test_client_address_behind_trusted_proxies(remote, forwarded, proxies, client):
    assert policy.forwarded_client_ip(remote_addr=remote, forwarded_for=forwarded, trusted_proxies=proxies) == client
