from common.errors import DomainError, PermissionDenied


class InvalidInput(DomainError):
    """A whole object failed validation; `fields` maps field → messages (the API answers 400 with them)."""

    code = "invalid"

    def __init__(self, fields: dict) -> None:
        super().__init__("입력값이 올바르지 않습니다.")
        self.fields = fields


class NotOwned(PermissionDenied):
    """The object exists and belongs to another integration (or to the desk's own demo data)."""

    code = "not_owned"
