"""Tickets for tests where the particular demo ticket is not the point."""

from __future__ import annotations

import factory

from orders.tests.factories import CustomerFactory
from tickets.models import Tag, Ticket, TicketMessage


class TagFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tag
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"태그{n}")


class TicketFactory(factory.django.DjangoModelFactory):
    """A ticket row only (no event, no draft request): for state set-up, not for the services under test."""

    class Meta:
        model = Ticket

    customer = factory.SubFactory(CustomerFactory)
    category = Ticket.Category.DELIVERY
    subject = "배송 문의"
    source = Ticket.Source.API


class TicketMessageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = TicketMessage

    ticket = factory.SubFactory(TicketFactory)
    author_type = TicketMessage.Author.CUSTOMER
    author = factory.SelfAttribute("ticket.customer.user")
    body = "언제 오나요?"
