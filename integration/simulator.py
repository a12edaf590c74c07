"""A reference shop on loopback: receives the desk's webhooks, verifies their signatures, answers with a
configurable failure rate (or not at all while `down`), and reports refund/cancel results back to the desk.
Used by the tests and by `manage.py shop_simulator`."""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from integration.policy import signature_verify

MONEY_EVENTS = ("action.refund_approved", "action.cancel_approved")


@dataclass
class Received:
    event_id: str
    type: str
    body: dict
    signature_ok: bool
    header_id_matches: bool


@dataclass
class ShopSimulator:
    signing_secret: str
    failure_rate: float = 0.0
    down: bool = False  # answer 503 to everything (the shop is "down")
    desk_url: str = ""  # e.g. http://127.0.0.1:8000 — where to report results
    api_key: str = ""
    auto_report: bool = False
    report_ok: bool = True
    received: list[Received] = field(default_factory=list)
    attempts: int = 0
    reports: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # --- server ---------------------------------------------------------------------------------

    def start(self, port: int = 0) -> ShopSimulator:
        simulator = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = simulator._receive(
                    body, self.headers.get("X-CS-Signature", ""), self.headers.get("X-CS-Event-Id", "")
                )
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/webhooks/cs"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _receive(self, body: bytes, signature: str, header_id: str) -> int:
        with self._lock:
            self.attempts += 1
            if self.down or (self.failure_rate and random.random() < self.failure_rate):
                return 503
            ok = signature_verify(self.signing_secret, signature, body, now=int(time.time()))
            if not ok:
                return 400
            event = json.loads(body)
            if any(r.event_id == event["id"] for r in self.received):
                return 200  # a duplicate delivery: already handled (at-least-once)
            self.received.append(Received(event["id"], event["type"], event, ok, header_id == event["id"]))
        if self.auto_report and event["type"] in MONEY_EVENTS:
            threading.Thread(target=self.report, args=(event["data"]["action_id"],), daemon=True).start()
        return 200

    # --- the shop moves the money and tells the desk --------------------------------------------

    def report(self, action_id: str, *, ok: bool | None = None, external_ref: str | None = None) -> tuple[int, dict]:
        ok = self.report_ok if ok is None else ok
        body = json.dumps(
            {"ok": ok, "external_ref": external_ref or f"PG-{action_id}", "message": "" if ok else "PG 승인 거절"}
        ).encode()
        request = urllib.request.Request(
            f"{self.desk_url}/api/integration/actions/{action_id}/result/",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                result = (response.status, json.loads(response.read() or b"{}"))
        except urllib.error.HTTPError as exc:
            result = (exc.code, json.loads(exc.read() or b"{}"))
        with self._lock:
            self.reports.append({"action_id": action_id, "status": result[0], "body": result[1]})
        return result

    def of_type(self, type_: str) -> list[Received]:
        with self._lock:
            return [r for r in self.received if r.type == type_]
