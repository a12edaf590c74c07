"""The ticket desk's rules on plain values: no ORM, no settings, no clock."""

from __future__ import annotations

OVERRIDE_REASON_MAX = 500  # why an operator sends a held answer anyway (a reply or a draft)


def normalise_reply(text: str) -> str:
    """What counts as the same text: line endings and surrounding whitespace do not."""
    return text.replace("\r\n", "\n").strip()
