import hashlib
import hmac

import pytest

from integration import policy


def test_signature_header_is_hmac_sha256_of_t_dot_body():
    body = b'{"id":"evt_1"}'
    header = policy.signature_header("whsec_x", body, t=1700000000)
    expected = hmac.new(b"whsec_x", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert header == f"t=1700000000,v1={expected}"


@pytest.mark.parametrize(
    ("secret", "body", "now", "ok"),
    [
        ("whsec_x", b"{}", 1700000000, True),
        ("whsec_y", b"{}", 1700000000, False),  # wrong secret
        ("whsec_x", b"{ }", 1700000000, False),  # body changed
        ("whsec_x", b"{}", 1700000000 + 301, False),  # too old
    ],
)
def test_signature_verify(secret, body, now, ok):
    header = policy.signature_header("whsec_x", b"{}", t=1700000000)
    assert policy.signature_verify(secret, header, body, now=now) is ok


def test_signatures_are_compared_in_constant_time(monkeypatch):
    seen = []
    real = hmac.compare_digest
    monkeypatch.setattr(policy.hmac, "compare_digest", lambda a, b: seen.append((a, b)) or real(a, b))
    assert policy.session_signature_ok("s", "C1", 10, policy.session_signature("s", "C1", 10))
    assert not policy.signature_verify("s", "t=1,v1=00", b"", now=1)
    assert len(seen) == 2


@pytest.mark.parametrize(
    ("stored", "incoming", "verdict"), [(None, 0, "apply"), (1, 2, "apply"), (2, 2, "same"), (3, 2, "stale")]
)
def test_version_verdict(stored, incoming, verdict):
    assert policy.version_verdict(stored=stored, incoming=incoming) == verdict


def test_secret_round_trips_and_a_tampered_one_is_refused(settings):
    from integration.secrets import secret_decrypt, secret_encrypt

    token = secret_encrypt("whsec_abc")
    assert "whsec_abc" not in token and secret_decrypt(token) == "whsec_abc"
    settings.SECRET_KEY = "another-key"
    with pytest.raises(ValueError):
        secret_decrypt(token)
