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


@pytest.mark.parametrize(
    ("address", "forbidden"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("169.254.169.254", True),  # the cloud metadata address
        ("169.254.1.1", True),
        ("fe80::1", True),
        ("10.0.0.1", True),
        ("172.16.5.4", True),
        ("192.168.0.1", True),
        ("fc00::1", True),
        ("fd12:3456::1", True),
        ("100.64.0.1", True),  # shared (carrier-grade NAT)
        ("0.0.0.0", True),
        ("::", True),
        ("224.0.0.1", True),  # multicast, though "global"
        ("ff02::1", True),
        ("240.0.0.1", True),  # reserved
        ("255.255.255.255", True),
        ("192.0.2.10", True),  # documentation
        ("::ffff:127.0.0.1", True),  # IPv4-mapped
        ("::ffff:169.254.169.254", True),
        ("::ffff:10.0.0.1", True),
        ("2002:7f00:1::1", True),  # 6to4 around 127.0.0.1
        ("2002:a00:1::1", True),  # 6to4 around 10.0.0.1
        ("64:ff9b::7f00:1", True),  # NAT64 around 127.0.0.1
        ("8.8.8.8", False),
        ("203.0.114.7", False),
        ("2606:4700:4700::1111", False),
        ("::ffff:8.8.8.8", True),  # an IPv4-mapped form is no public IPv6 address either
    ],
)
def test_address_forbidden(address, forbidden):
    from ipaddress import ip_address

    assert policy.address_forbidden(ip_address(address)) is forbidden


@pytest.mark.parametrize(
    ("url", "allow_private", "problem"),
    [
        ("", False, None),  # no webhook
        ("https://shop.example/webhooks/cs", False, None),
        ("http://shop.example:8080/h?x=1", False, None),
        ("http://8.8.8.8/h", False, None),
        ("http://internal.example/h", False, None),  # a name: judged on its address at each connection
        ("ftp://shop.example/h", False, policy.WEBHOOK_URL_SCHEME),
        ("https:///nohost", False, policy.WEBHOOK_URL_SCHEME),
        ("shop.example/h", False, policy.WEBHOOK_URL_SCHEME),
        ("https://a:b@shop.example/h", False, policy.WEBHOOK_URL_USERINFO),
        ("https://shop.example:99999/h", False, policy.WEBHOOK_URL_PORT),
        ("http://127.0.0.1:8000/h", False, policy.WEBHOOK_URL_INTERNAL),
        ("http://[::1]/h", False, policy.WEBHOOK_URL_INTERNAL),
        ("http://[::ffff:7f00:1]/h", False, policy.WEBHOOK_URL_INTERNAL),
        ("http://169.254.169.254/latest/meta-data/", False, policy.WEBHOOK_URL_INTERNAL),
        ("http://LOCALHOST./h", False, policy.WEBHOOK_URL_INTERNAL),
        ("http://api.localhost/h", False, policy.WEBHOOK_URL_INTERNAL),
        ("http://127.0.0.1:8000/h", True, None),
        ("http://localhost:8000/h", True, None),
        ("ftp://127.0.0.1/h", True, policy.WEBHOOK_URL_SCHEME),
    ],
)
def test_webhook_url_problem(url, allow_private, problem):
    assert policy.webhook_url_problem(url, allow_private=allow_private) == problem
