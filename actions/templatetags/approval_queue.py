from django import template

from actions.selectors import action_queue_counts

register = template.Library()


@register.simple_tag
def approval_queue_counts() -> dict[str, int]:
    """The admin index's 승인 대기열 lines: `pending` (waiting for a person) and `failed` (approved, but the
    shop could not carry it out). The page keeps them current through common.live (topic `actions`)."""
    return action_queue_counts()
