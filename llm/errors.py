"""Model-gateway errors. `retryable` says whether the same request may succeed if tried again
(timeouts, connection drops, 408/409/429/5xx, garbled bodies, invalid structured output);
`error_class` is the stable name recorded on `LLMCall` and in logs."""

from __future__ import annotations


class LLMError(Exception):
    def __init__(
        self,
        message: str,
        *,
        error_class: str,
        retryable: bool,
        model: str = "",
        status_code: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.error_class = error_class
        self.retryable = retryable
        self.model = model
        self.status_code = status_code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.error_class}, model={self.model!r}, retryable={self.retryable})"


class LLMUnavailable(LLMError):
    """The primary model and the one fallback attempt both failed. Callers end in a visible failed
    state (an apology, a ticket, a failed draft); they do not retry in a loop."""

    def __init__(self, attempts: list[LLMError]) -> None:
        summary = ", ".join(f"{a.model or '?'}:{a.error_class}" for a in attempts) or "no model configured"
        last = attempts[-1] if attempts else None
        super().__init__(
            f"model unavailable after {len(attempts)} attempt(s): {summary}",
            error_class=last.error_class if last else "NoModel",
            retryable=any(a.retryable for a in attempts),
            model=last.model if last else "",
            status_code=last.status_code if last else None,
        )
        self.attempts = attempts
