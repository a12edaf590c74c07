"""The reply e-mail: a customer of the desk's own (no connected shop speaks for them) with an e-mail address and
notices on hears that an operator answered, with a link to the thread and nothing personal but their name.

Never sent inline: `ticket_reply_add` writes an outbox row (`REPLY_NOTICE_TOPIC`, keyed by the answer) in the
answer's transaction; this handler sends it after the commit through Django's mail framework (console by default,
SMTP by settings), and a failure is retried by the outbox with backoff (DEAD after CS_OUTBOX_MAX_ATTEMPTS). The
switch is read again at sending: a customer who turned notices off meanwhile gets nothing.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail

from common.outbox import OutboxMessage, outbox_done
from tickets import hooks, policy
from tickets.models import Ticket

log = logging.getLogger(__name__)

REPLY_NOTICE_TOPIC = "notice.ticket_replied"


def reply_notice_wanted(*, customer_id: str, email: str, email_notices: bool) -> bool:
    return bool(email) and email_notices and not hooks.shop_notifies(customer_id)


def reply_notice_send(message: OutboxMessage) -> str:
    """The outbox handler: send one reply e-mail. Raises when the mail server fails (the outbox retries)."""
    key = message.dedupe_key.split(":", 1)[1]
    ticket = Ticket.objects.select_related("customer").filter(pk=message.payload.get("ticket_id")).first()
    customer = ticket.customer if ticket is not None else None
    if customer is None or not reply_notice_wanted(
        customer_id=customer.pk, email=customer.email, email_notices=customer.email_notices
    ):
        outbox_done(topic=REPLY_NOTICE_TOPIC, key=key)
        log.info("notice.skipped ticket_id=%s", ticket.number if ticket else None)
        return "skipped"
    subject, body = policy.reply_notice_mail(
        name=customer.name,
        ticket_number=ticket.number,
        url=policy.thread_url(settings.CS_PUBLIC_BASE_URL, ticket.number),
    )
    send_mail(subject, body, None, [customer.email], fail_silently=False)
    outbox_done(topic=REPLY_NOTICE_TOPIC, key=key)
    log.info("notice.sent ticket_id=%s message_id=%s", ticket.number, message.payload.get("message_id"))
    return "sent"
