"""The one reading of a choice a person or a model typed: the stable English code or the Korean label."""

from __future__ import annotations

from django.db.models import TextChoices


def choice_parse(choices: type[TextChoices], value: object) -> str | None:
    """`value` as the code of one of `choices`, matched by code or label (surrounding spaces ignored);
    None for anything else, including non-strings."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    for choice in choices:
        if text in (choice.value, choice.label):
            return choice.value
    return None
