from common.errors import DomainError, InvalidState


class Refused(DomainError):
    """The rules do not allow the request. `reason` is shown to the customer as is."""

    code = "refused"

    def __init__(self, message: str, *, needs_clarification: bool = False, status: str | None = None) -> None:
        super().__init__(message)
        self.needs_clarification = needs_clarification
        self.status = status


class ResultInvalid(DomainError):
    """A shop's result report that cannot be true of the record (the API answers 400)."""

    code = "result_invalid"


class AlreadyDecided(InvalidState):
    code = "already_decided"


class NotApprovable(InvalidState):
    code = "not_approvable"
