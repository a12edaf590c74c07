"""Sections that apps on higher floors add to the approval record page (admin ActionRecord change page).

The record page shows what is known about the same customer and order beside the request to decide. Some of
it lives above `actions` (chat's refused tool calls: 단순변심 refused minutes before the same customer asked
again as 상품하자), and `actions` may not import those apps. So the page owns the slot and its layout, and an
app above registers a section here from its own admin module (`chat/admin.py`): data flows up through a named
hook instead of an import pointing up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from actions.models import ActionRecord


@dataclass(frozen=True)
class RecordNote:
    """One line of a section: when, what (a Korean label), the words shown; `hint` goes to a title attribute."""

    at: datetime
    label: str
    text: str
    hint: str = ""


@dataclass(frozen=True)
class RecordSection:
    key: str  # the element id suffix: cs-section-<key>
    title: str
    empty_text: str
    notes: Callable[[ActionRecord], list[RecordNote]]


# In registration order, keyed so that a re-imported module replaces its section instead of adding a second.
RECORD_SECTIONS: dict[str, RecordSection] = {}


def record_section_register(section: RecordSection) -> RecordSection:
    RECORD_SECTIONS[section.key] = section
    return section


def record_sections_for(record: ActionRecord) -> list[tuple[RecordSection, list[RecordNote]]]:
    return [(section, section.notes(record)) for section in RECORD_SECTIONS.values()]
