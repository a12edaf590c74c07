"""The webhook's one way out: a POST that never follows a redirect and connects only to an address it has
vetted itself.

The receiver's URL is the shop's to set, so it may point at the desk's own network: 127.0.0.1, the cloud
metadata address 169.254.169.254, an RFC 1918 host, or a public name that resolves to one of them (now, or
only after the URL was checked: DNS rebinding). So the host is resolved here, at connect time, every address
it resolves to is judged (`policy.address_forbidden`), and the socket connects to the very address that was
judged, not to the name again. TLS still verifies the certificate against the host name (SNI), and the Host
header carries the name. No proxy is used: a proxy would connect on our behalf, to an address never judged.

Plain `http.client`, not urllib: urllib follows 30x redirects by itself, with the event's headers.
"""

from __future__ import annotations

import http.client
import socket
import ssl
from ipaddress import ip_address
from urllib.parse import urlsplit

from integration import policy

RESPONSE_READ_LIMIT = 64 * 1024  # what a receiver says back is not read further


class TargetForbidden(Exception):
    """The webhook URL names, or resolves to, an address the desk does not send to. Nothing was sent."""

    code = "target_forbidden"


def _vetted_socket(host: str, port: int, timeout: float | None, *, allow_private: bool) -> socket.socket:
    """A socket connected to an address of `host` that passed the check. Raises TargetForbidden when any
    address the name resolves to is forbidden (a name that mixes public and internal addresses is refused
    whole), OSError when none could be reached."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    if not allow_private:
        for *_, sockaddr in infos:
            if policy.address_forbidden(ip_address(sockaddr[0].split("%", 1)[0])):
                raise TargetForbidden(host)
    error: OSError | None = None
    for family, kind, proto, _, sockaddr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(sockaddr)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        return sock
    raise error or OSError(f"no address for {host}")


class _VettedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, port: int | None, *, timeout: float, allow_private: bool) -> None:
        super().__init__(host, port, timeout=timeout)
        self.allow_private = allow_private

    def connect(self) -> None:
        self.sock = _vetted_socket(self.host, self.port, self.timeout, allow_private=self.allow_private)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _VettedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int | None, *, timeout: float, allow_private: bool) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.allow_private = allow_private

    def connect(self) -> None:
        sock = _vetted_socket(self.host, self.port, self.timeout, allow_private=self.allow_private)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def webhook_post(url: str, body: bytes, headers: dict[str, str], *, timeout: float, allow_private: bool) -> int:
    """POST `body` to `url` once and return the HTTP status as answered (a 3xx is returned, never followed).
    Raises TargetForbidden (nothing sent), ValueError for a URL that cannot be sent to, OSError or
    http.client.HTTPException when the connection or the answer failed."""
    problem = policy.webhook_url_problem(url, allow_private=allow_private)
    if problem == policy.WEBHOOK_URL_INTERNAL:
        raise TargetForbidden(url)
    if problem or not url:
        raise ValueError(problem or "no webhook URL")
    parts = urlsplit(url)
    https = parts.scheme == "https"
    # The port always given: http.client would otherwise read the last group of an IPv6 literal as one.
    port = parts.port or (443 if https else 80)
    connection_class = _VettedHTTPSConnection if https else _VettedHTTPConnection
    connection = connection_class(parts.hostname, port, timeout=timeout, allow_private=allow_private)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST", target, body=body, headers=headers)
        response = connection.getresponse()
        response.read(RESPONSE_READ_LIMIT)
        return response.status
    finally:
        connection.close()
