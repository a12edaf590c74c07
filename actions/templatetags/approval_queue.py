from django import template

from actions.models import ActionRecord

register = template.Library()


@register.simple_tag
def pending_approval_count() -> int:
    """How many refund/cancel requests wait for a person (the admin index's 승인 대기열 line)."""
    return ActionRecord.objects.filter(status=ActionRecord.Status.PENDING).count()


@register.simple_tag
def failed_execution_count() -> int:
    """Approved refunds/cancels the shop reported it could not carry out: a person must follow up."""
    return ActionRecord.objects.filter(status=ActionRecord.Status.FAILED).count()
