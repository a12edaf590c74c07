"""URL converters for public ids: only the canonical ASCII form matches, anything else is a 404 from the
resolver (never a query with a stray NUL or a non-ASCII digit that `int()` would happily read)."""

from __future__ import annotations

from django.urls import register_converter

from common.numbering import number_pattern


class _Text:
    regex = ""

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: object) -> str:
        return str(value)


class TicketNumberConverter(_Text):
    regex = number_pattern("T")


class ActionNumberConverter(_Text):
    regex = number_pattern("A")


class ShopKeyConverter(_Text):
    """A shop's own key (customer id C003, order id HR20260721001): ASCII letters, digits, '-' and '_'."""

    regex = "[A-Za-z0-9][A-Za-z0-9_-]{0,19}"


class PositiveIntConverter:
    """Like Django's `int`, but ASCII digits only and at most 12 of them (fits a bigint)."""

    regex = "[0-9]{1,12}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: object) -> str:
        return str(value)


def register(*, product_pattern: str) -> None:
    """Called once by the API urlconf; the product pattern belongs to `orders`."""

    class ProductIdConverter(_Text):
        regex = product_pattern

    register_converter(TicketNumberConverter, "ticket_number")
    register_converter(ActionNumberConverter, "action_number")
    register_converter(PositiveIntConverter, "id")
    register_converter(ShopKeyConverter, "shop_key")
    register_converter(ProductIdConverter, "product_id")
