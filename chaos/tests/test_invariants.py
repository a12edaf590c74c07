"""The fault suite's own instruments can fail: an unrecovered scenario, an HTML answer or a cut that does not cut
must show as failures, never be hidden."""

from __future__ import annotations

import socket
import threading

import pytest

from chaos.proxy import TcpProxy
from chaos.suite import Answer, check_drafts, check_stored
from drafts.tests.support import inquiry


@pytest.mark.parametrize(
    ("status", "content_type", "retry_after", "violation"),
    [
        (201, "application/json", None, False),
        (503, "application/json", "5", False),
        (503, "application/json", None, True),  # no Retry-After
        (500, "text/html; charset=utf-8", None, True),  # Django's HTML page
        (500, "application/json", None, True),  # JSON, but not the outage answer
        (200, "text/html", None, True),
        (0, "", None, True),  # no answer at all (refused, reset, timed out): the API fell over
    ],
)
def test_answer_violations(status, content_type, retry_after, violation):
    answer = Answer("inquiry", status, content_type, retry_after)
    assert answer.violation is violation


@pytest.mark.django_db
def test_check_drafts_reports_an_input_without_draft(customer, settings):
    settings.CS_AI_DRAFTS_ENABLED = False  # the pipeline declines: the input stays without a draft
    ticket = inquiry(customer, "배송 문의", subject="s")  # through ticket_create, as the API opens it
    check, states = check_drafts()
    assert not check.ok and states["missing"] == [ticket.pk]
    assert "0/1 complete" in check.detail


@pytest.mark.django_db
def test_check_stored_reports_a_2xx_message_that_is_not_in_the_database(shop):
    answer = Answer("inquiry", 201, "application/json", token="[chaos:test:1]")
    check = check_stored([answer, Answer("inquiry", 503, "application/json", "5", token="[chaos:test:2]")])
    assert not check.ok and check.detail.startswith("0/1")


def test_proxy_cut_drops_open_connections_and_refuses_new_ones_until_restored():
    upstream = socket.create_server(("127.0.0.1", 0))
    port = upstream.getsockname()[1]

    def echo() -> None:
        while True:
            try:
                conn, _ = upstream.accept()
            except OSError:
                return
            threading.Thread(target=_echo_one, args=(conn,), daemon=True).start()

    threading.Thread(target=echo, daemon=True).start()
    proxy = TcpProxy("127.0.0.1", port)
    try:
        client = socket.create_connection(("127.0.0.1", proxy.port), timeout=5)
        client.sendall(b"ping")
        assert client.recv(4) == b"ping"
        assert proxy.cut() == 1
        with pytest.raises(OSError):
            client.sendall(b"again")
            if client.recv(4) == b"":
                raise ConnectionResetError
        with pytest.raises(OSError):  # reset at connect, or right after it
            refused = socket.create_connection(("127.0.0.1", proxy.port), timeout=5)
            if refused.recv(4) == b"":
                raise ConnectionResetError
        proxy.restore()
        again = socket.create_connection(("127.0.0.1", proxy.port), timeout=5)
        again.sendall(b"back")
        assert again.recv(4) == b"back"
    finally:
        proxy.close()
        upstream.close()


def _echo_one(conn: socket.socket) -> None:
    try:
        while data := conn.recv(64):
            conn.sendall(data)
    except OSError:
        pass
    finally:
        conn.close()
