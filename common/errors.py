"""Domain errors. Interfaces (API, admin, commands) turn these into responses; services raise them."""


class DomainError(Exception):
    """A request that the current state does not allow. `message` is Korean, shown to people. `data` (JSON-safe)
    goes into the API's error body beside code and detail: what the caller needs to act on it (e.g. the messages
    that arrived meanwhile and the text that was not sent)."""

    code = "domain_error"

    def __init__(self, message: str, *, code: str | None = None, data: dict | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data = data or {}
        if code:
            self.code = code


class NotFound(DomainError):
    code = "not_found"


class PermissionDenied(DomainError):
    code = "permission_denied"


class InvalidState(DomainError):
    code = "invalid_state"


class RateLimited(DomainError):
    """Too many requests or model calls for one customer; `retry_after` is in whole seconds."""

    code = "rate_limited"

    def __init__(self, message: str, *, retry_after: int, code: str | None = None) -> None:
        super().__init__(message, code=code)
        self.retry_after = max(1, int(retry_after))
