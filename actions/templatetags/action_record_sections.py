"""`{% action_record_sections original %}`: the sections other apps registered for the record page
(actions/record_sections.py)."""

from __future__ import annotations

from django import template

from actions.models import ActionRecord
from actions.record_sections import record_sections_for

register = template.Library()


@register.inclusion_tag("admin/actions/actionrecord/record_sections.html")
def action_record_sections(record: ActionRecord | None) -> dict:
    return {"sections": record_sections_for(record) if record is not None else []}
