"""Fixtures for chat tests where which customer talks is not the point."""

import pytest

from accounts.tests.factories import token_client
from orders.tests.factories import CustomerFactory


@pytest.fixture
def customer(db):
    """A customer with a login and no orders: a test gives them the orders it talks about."""
    return CustomerFactory()


@pytest.fixture
def customer_api(customer):
    """An API client signed in as `customer` with a token, as the chat page does."""
    return token_client(customer.user)
