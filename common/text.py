"""Text hygiene shared by every writer: what a model (or anything else untrusted) may not put in a row."""

from __future__ import annotations

import re

# C0 controls except \t and \n, DEL, and C1 controls. NUL in particular fails a PostgreSQL text write.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control_chars(text: str) -> str:
    """Remove NUL and other control characters, keeping newlines and tabs."""
    return _CONTROL.sub("", text)


def strip_control_chars_deep(value: object) -> object:
    """The same for every string inside decoded JSON (dict keys included)."""
    if isinstance(value, str):
        return strip_control_chars(value)
    if isinstance(value, list):
        return [strip_control_chars_deep(item) for item in value]
    if isinstance(value, dict):
        return {strip_control_chars_deep(key): strip_control_chars_deep(item) for key, item in value.items()}
    return value
