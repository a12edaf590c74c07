"""Public numbers (A00001, T00001) are the database id with a prefix: unique by construction, never a count."""

from __future__ import annotations


def format_number(prefix: str, pk: int) -> str:
    return f"{prefix}{pk:05d}"


def parse_number(prefix: str, value: str | int) -> int | None:
    """'A00012' → 12; also accepts a bare integer. None when the value is not of this prefix."""
    if isinstance(value, int):
        return value if value > 0 else None
    text = str(value).strip().upper()
    if text.startswith(prefix):
        text = text[len(prefix) :]
    if not text.isdigit():
        return None
    number = int(text)
    return number if number > 0 else None
