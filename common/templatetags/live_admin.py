from django import template

from common.admin import live_script

register = template.Library()


@register.simple_tag(takes_context=True)
def live_updates(context, topics: str) -> str:
    """The script that keeps a page's `data-live-count` figures current (common/static/common/live.js), for a
    user who may read every topic in `topics` (comma-separated); nothing for anyone else."""
    script = live_script(context["request"].user, tuple(t.strip() for t in topics.split(",")))
    return str(script) if script is not None else ""
