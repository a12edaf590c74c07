"""Public numbers (A00001, T00001) are the database id with a prefix: unique by construction, never a count."""

from __future__ import annotations

import re

# ASCII digits only: `str.isdigit` also accepts '١٢٣' or '１２', which int() then reads as a number.
# At most 12 digits, so a number always fits a bigint column.
_DIGITS = re.compile(r"[0-9]{1,12}")


def format_number(prefix: str, pk: int) -> str:
    return f"{prefix}{pk:05d}"


def number_pattern(prefix: str) -> str:
    """The canonical public form as a regex (URL converters and other doors from outside use it): the prefix and
    the digits exactly as `format_number` writes them: five with leading zeros up to 99999, more without one
    (A00012, A123456; never A12, A000012 or a12)."""
    return rf"{prefix}(?:[0-9]{{5}}|[1-9][0-9]{{5,11}})"


def parse_canonical_number(prefix: str, value: object) -> int | None:
    """The id of a public number given in its canonical form only ('A00012' → 12; 'A12', '12', 'a00012',
    ' A00012' → None): for numbers that come in from outside, where one thing has one name."""
    if not isinstance(value, str) or not re.fullmatch(number_pattern(prefix), value, re.ASCII):
        return None
    number = int(value[len(prefix) :])
    return number if number > 0 else None


def parse_number(prefix: str, value: str | int) -> int | None:
    """'A00012' → 12; also accepts a bare integer, lower case and surrounding spaces: for what staff type (the
    `decide` command, admin ids) and model output. None when the value is not of this prefix. What comes in
    from outside (URLs, the shop's API) takes only the canonical form: `parse_canonical_number`."""
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
