"""Startup check: an operator's own reply has a money-claim guard (tickets.hooks). Without one the reply service
refuses to send (fail closed); this says why at start-up instead of at the first reply."""

from __future__ import annotations

from django.core.checks import Error, register

from tickets.hooks import reply_guard

REPLY_GUARD_CHECK_ID = "tickets.E001"


@register()
def reply_guard_registered(app_configs=None, **kwargs) -> list[Error]:
    if reply_guard() is not None:
        return []
    return [
        Error(
            "No reply guard is registered: operators' own replies would not be checked for money claims, so none "
            "can be sent.",
            hint="The drafts app registers it in DraftsConfig.ready(); keep it in INSTALLED_APPS.",
            id=REPLY_GUARD_CHECK_ID,
        )
    ]
