"""Who acted. Every service that changes state takes one, with no default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

# A signed-in person: an operator, or the login of a customer. Every annotation of a person who acts names this
# one type. A service whose actor must be a person (it checks their permissions, or stores them on the row as
# `decided_by`) takes `actor: Person`; a service whose actor may also be the system or the chat agent takes an
# `Actor`, whose `user` is the person when there is one.
Person: TypeAlias = "AbstractBaseUser"


class Customer(Protocol):
    """What an actor needs of `orders.Customer` (common sits below orders and does not import it)."""

    customer_id: str
    user: Person


@dataclass(frozen=True)
class Actor:
    type: str  # common.audit.ActorType value
    label: str
    user: Person | None = None

    @classmethod
    def customer(cls, customer_id: str, user: Person | None) -> Actor:
        """The customer acting themselves: their page, their API calls, their messages."""
        return cls("CUSTOMER", customer_id, user)

    @classmethod
    def customer_agent(cls, customer: Customer) -> Actor:
        """The chat agent acting for the signed-in customer."""
        return cls("CUSTOMER", f"{customer.customer_id} (에이전트)", customer.user)

    @classmethod
    def staff_for(cls, customer: Customer, user: Person | None, via: str) -> Actor:
        who = user.get_username() if user is not None else via
        return cls("STAFF", f"{who} → {customer.customer_id}", user)

    @classmethod
    def operator(cls, user: Person) -> Actor:
        return cls("OPERATOR", user.get_username(), user)

    @classmethod
    def system(cls, label: str) -> Actor:
        """No person: a connected shop, a command, the sweep."""
        return cls("SYSTEM", label)
