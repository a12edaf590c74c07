"""Where webhooks may go: never along a redirect, never to an internal address, judged on the address the host
resolves to when the connection is made. Real HTTP servers on loopback record every connection they accept."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import threading
import time
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction

from common import events
from common.actors import Actor
from integration.errors import InvalidInput
from integration.models import Integration, ShopEvent
from integration.services.integrations import integration_update
from integration.tests.factories import CUSTOMER_ID, ORDER_ID, make_integration, seed_shop, webhook_delivery

pytestmark = pytest.mark.django_db(transaction=True)


class Recorder:
    """An HTTP server on loopback that counts the connections it accepts and records each request."""

    def __init__(self, *, status: int = 200, headers: dict[str, str] | None = None, ipv6: bool = False) -> None:
        recorder = self
        self.connections = 0
        self.requests: list[tuple[str, str, Message]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.requests.append((self.command, self.path, self.headers))  # names in any case
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST  # noqa: N815  (a followed redirect may arrive as GET)

            def log_message(self, *args) -> None:
                pass

        class Server(ThreadingHTTPServer):
            address_family = socket.AF_INET6 if ipv6 else socket.AF_INET

            def verify_request(self, request, client_address) -> bool:
                recorder.connections += 1
                return True

        self.server = Server(("::1" if ipv6 else "127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def recorder():
    servers: list[Recorder] = []

    def start(**kwargs) -> Recorder:
        servers.append(Recorder(**kwargs))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


def _connected(webhook_url: str) -> Integration:
    """An integration with this webhook URL (stored while internal targets were allowed, as a URL saved before
    the check existed, or one whose host name resolves differently now) and its order imported."""
    issued = make_integration(webhook_url=webhook_url)
    seed_shop(issued)
    return issued.integration


def _emit_event() -> None:
    with transaction.atomic():
        events.shop_event_emit(
            type=events.TICKET_CREATED, key="T1", data={"order_id": ORDER_ID, "customer_id": CUSTOMER_ID}
        )


def test_a_redirect_is_not_followed_and_the_delivery_is_not_done(recorder, settings):
    settings.CS_OUTBOX_BACKOFF_BASE_S = 10
    internal = recorder()
    shop = recorder(status=302, headers={"Location": f"http://127.0.0.1:{internal.port}/internal"})
    _connected(f"http://127.0.0.1:{shop.port}/webhooks/cs")

    _emit_event()

    assert [(method, path) for method, path, _ in shop.requests] == [("POST", "/webhooks/cs")]
    assert internal.connections == 0 and internal.requests == []  # the event and its headers went nowhere else
    row = webhook_delivery()
    assert (row.status, row.attempts, row.last_error) == ("PENDING", 1, "http_302")  # retried like any failure


def test_a_redirect_shows_in_the_event_list_as_a_failed_attempt(recorder, settings, client):
    shop = recorder(status=301, headers={"Location": "http://169.254.169.254/latest/meta-data/"})
    _connected(f"http://127.0.0.1:{shop.port}/hook")
    _emit_event()
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))

    page = client.get("/admin/integration/shopevent/").content.decode()

    assert '<span title="http_301">HTTP 301 리디렉션 (따라가지 않음)</span>' in page


INTERNAL_URLS = {
    "loopback": "http://127.0.0.1:{port}/hook",
    "a name for loopback": "http://localhost:{port}/hook",
    "loopback as a decimal number": "http://2130706433:{port}/hook",  # no literal address: only the resolver knows
    "IPv4-mapped loopback": "http://[::ffff:127.0.0.1]:{port}/hook",
}


@pytest.mark.parametrize("case", list(INTERNAL_URLS))
def test_an_internal_target_is_refused_before_any_connection(recorder, settings, case):
    shop = recorder()
    _connected(INTERNAL_URLS[case].format(port=shop.port))
    settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = False

    _emit_event()

    assert shop.connections == 0 and shop.requests == []
    row = webhook_delivery()
    assert (row.status, row.last_error) == ("PENDING", "target_forbidden")  # a failed attempt, never DONE


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_ipv6_loopback_is_refused_before_any_connection(recorder, settings):
    shop = recorder(ipv6=True)
    _connected(f"http://[::1]:{shop.port}/hook")
    settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = False

    _emit_event()

    assert shop.connections == 0 and webhook_delivery().last_error == "target_forbidden"


@pytest.mark.parametrize(
    "url",
    ["http://10.1.2.3:8080/hook", "http://169.254.169.254/latest/meta-data/", "https://192.168.0.10/hook"],
)
def test_private_and_metadata_addresses_are_refused_without_trying_them(settings, url):
    """Unroutable here: a connection attempt would end in a timeout (CS_WEBHOOK_TIMEOUT_S) with another error."""
    settings.CS_WEBHOOK_TIMEOUT_S = 3
    _connected(url)
    settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = False

    started = time.monotonic()
    _emit_event()

    assert webhook_delivery().last_error == "target_forbidden" and time.monotonic() - started < 2


def test_with_internal_targets_allowed_the_same_loopback_receiver_gets_the_event(recorder):
    shop = recorder()
    _connected(f"http://localhost:{shop.port}/hook")

    _emit_event()

    [(method, path, headers)] = shop.requests
    assert (method, path, headers["Host"]) == ("POST", "/hook", f"localhost:{shop.port}")
    assert headers["X-CS-Event-Id"] == ShopEvent.objects.get().event_id
    assert webhook_delivery().status == "DONE"


# --- the URL itself, when an integration is created or edited ----------------------------------------------
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://shop.example/hook", "http:// 또는 https://"),
        ("file:///etc/passwd", "http:// 또는 https://"),
        ("javascript:alert(1)", "http:// 또는 https://"),
        ("http://127.0.0.1:8000/hook", "내부망"),
        ("http://[::1]/hook", "내부망"),
        ("http://169.254.169.254/latest/meta-data/", "내부망"),
        ("http://10.0.0.7/hook", "내부망"),
        ("http://[fd00::1]/hook", "내부망"),
        ("http://localhost:8000/hook", "내부망"),
        ("https://user:pw@shop.example/hook", "사용자 이름"),
    ],
)
def test_a_webhook_url_that_is_not_public_http_is_refused_when_created(settings, url, message):
    settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    with pytest.raises(InvalidInput) as refused:
        make_integration(webhook_url=url)
    assert message in refused.value.fields["webhook_url"][0]
    assert not Integration.objects.exists()


def test_a_public_webhook_url_is_accepted_and_internal_ones_only_where_allowed(settings):
    settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    assert make_integration("public", webhook_url="https://shop.example/webhooks/cs").integration.pk
    settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    assert make_integration("local", webhook_url="http://127.0.0.1:9/h").integration.pk


def test_editing_an_integration_checks_the_url_too(settings, client):
    integration = make_integration(webhook_url="https://shop.example/hook").integration
    settings.CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    with pytest.raises(InvalidInput):
        integration_update(
            integration=integration,
            webhook_url="http://169.254.169.254/",
            scopes=integration.scopes,
            allowed_origins=[],
            active=True,
            actor=Actor.system("test"),
        )
    client.force_login(get_user_model().objects.create_superuser("root", password="x"))
    url = f"/admin/integration/integration/{integration.pk}/change/"
    form = {"webhook_url": "http://192.168.1.20/hook", "scopes": '["events:read"]', "allowed_origins": "[]"}

    page = client.post(url, {**form, "active": "on"})

    assert page.status_code == 200 and "내부망·사설·루프백 주소로는 웹훅을 보낼 수 없습니다" in page.content.decode()
    integration.refresh_from_db()
    assert integration.webhook_url == "https://shop.example/hook"
    saved = client.post(url, {**form, "webhook_url": "https://shop.example/v2/hook", "active": "on"})
    assert saved.status_code == 302
    integration.refresh_from_db()
    assert (integration.webhook_url, integration.scopes) == ("https://shop.example/v2/hook", ["events:read"])


@pytest.fixture
def tls_receiver(tmp_path, recorder, monkeypatch):
    """A loopback HTTPS receiver whose certificate names `localhost` only, trusted through SSL_CERT_FILE (what
    ssl.create_default_context reads)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"]
        + ["-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    server = recorder()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.server.socket = context.wrap_socket(server.server.socket, server_side=True)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    return server


def test_https_connects_to_the_vetted_address_and_still_checks_the_certificate_against_the_name(tls_receiver):
    _connected(f"https://localhost:{tls_receiver.port}/hook")
    _emit_event()
    [(method, path, headers)] = tls_receiver.requests
    assert (method, path, headers["Host"]) == ("POST", "/hook", f"localhost:{tls_receiver.port}")
    assert webhook_delivery().status == "DONE"


def test_https_to_an_address_the_certificate_does_not_name_fails(tls_receiver):
    _connected(f"https://127.0.0.1:{tls_receiver.port}/hook")
    _emit_event()
    assert tls_receiver.requests == [] and webhook_delivery().last_error == "SSLCertVerificationError"
