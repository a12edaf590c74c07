"""`{% ticket_section shown %}`: a section another app registered for the ticket page (tickets/sections.py),
rendered with the page's context plus its own."""

from __future__ import annotations

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from tickets.sections import ShownSection

register = template.Library()


@register.simple_tag(takes_context=True)
def ticket_section(context, shown: ShownSection) -> SafeString:
    return render_to_string(
        shown.section.template, {**context.flatten(), **shown.context, "section_key": shown.section.key}
    )
