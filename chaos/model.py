"""The scripted model of the fault suite: the built-in offline model's answers behind a real HTTP server
(`llm.testing.ScriptedModelServer`), a fixed latency per call, and a switch for faults."""

from __future__ import annotations

import threading

from llm.testing import Fault, Hang, ScriptedModelServer


class FaultSwitch:
    """The handler: `mode` is "ok" (the offline model's answer), "error" (HTTP 500) or "hang" (no answer for
    `hang_s`, longer than the client's timeout)."""

    def __init__(self, hang_s: float) -> None:
        from llm.offline import respond  # needs Django set up: the structured handlers register in ready()

        self._respond = respond
        self._lock = threading.Lock()
        self.mode = "ok"
        self.hang_s = hang_s
        self.calls: dict[str, int] = {"ok": 0, "error": 0, "hang": 0}

    def set(self, mode: str) -> None:
        assert mode in self.calls, mode
        with self._lock:
            self.mode = mode

    def __call__(self, body: dict):
        with self._lock:
            mode = self.mode
            self.calls[mode] += 1
        if mode == "error":
            return Fault(500, "chaos: model down")
        if mode == "hang":
            return Hang(self.hang_s, then=self._respond(body))
        return self._respond(body)


def model_start(*, latency_s: float, hang_s: float) -> tuple[ScriptedModelServer, FaultSwitch]:
    switch = FaultSwitch(hang_s)
    server = ScriptedModelServer(handler=switch, latency_s=latency_s).start()
    return server, switch
