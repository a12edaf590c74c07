"""Public numbers (A00001, T00001) are the database id with a prefix: unique by construction, never a count."""

from __future__ import annotations

import re

# ASCII digits only: `str.isdigit` also accepts '١٢٣' or '１２', which int() then reads as a number.
# At most 12 digits, so a number always fits a bigint column.
_DIGITS = re.compile(r"[0-9]{1,12}")


def format_number(prefix: str, pk: int) -> str:
    return f"{prefix}{pk:05d}"


def number_pattern(prefix: str) -> str:
    """The canonical public form as a regex (URL converters use it): the prefix and ASCII digits."""
    return rf"{prefix}[0-9]{{5,12}}"


def parse_number(prefix: str, value: str | int) -> int | None:
    """'A00012' → 12; also accepts a bare integer. None when the value is not of this prefix."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 < value < 10**12 else None
    text = str(value).strip().upper()
    if text.startswith(prefix):
        text = text[len(prefix) :]
    if not _DIGITS.fullmatch(text):
        return None
    number = int(text)
    return number if number > 0 else None
