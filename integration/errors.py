from common.errors import DomainError, PermissionDenied


class InvalidInput(DomainError):
    """A whole object failed validation; `fields` maps field → messages (the API answers 400 with them)."""

    code = "invalid"

    def __init__(self, fields: dict) -> None:
        super().__init__("입력값이 올바르지 않습니다.")
        self.fields = fields


class MissingReference(InvalidInput):
    """Well-formed, but it names a customer, product or option this integration has not sent (yet). The same
    request succeeds once they are sent, so the API answers 409 (a conflict with the current state), with the
    same field errors; the import reports it like any refused line."""

    code = "missing_reference"


class NotOwned(PermissionDenied):
    """The object exists and belongs to another integration (or to the desk's own demo data)."""

    code = "not_owned"
