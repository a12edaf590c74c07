"""Project-wide test fixtures.

The suite runs on the database that DATABASE_URL names (PostgreSQL in CI) or on SQLite.
Tests marked `postgres` need row locks and real concurrent writers: on SQLite they are skipped,
except in CI (CI=true), where a missing PostgreSQL is a failure, not a skip.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings


def _on_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


@pytest.hookimpl(trylast=True)  # after `-m` deselection
def pytest_collection_modifyitems(config, items):
    if _on_postgres():
        return
    if os.environ.get("CI") == "true" and any("postgres" in item.keywords for item in items):
        raise pytest.UsageError("CI=true: PostgreSQL tests must run on PostgreSQL; set DATABASE_URL (make test does).")
    skip = pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL=postgres://... (make test does)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _shop_today(settings):
    """The seed's 실습 기준일 unless a test says otherwise."""
    settings.CS_TODAY = "2026-07-27"


@pytest.fixture(autouse=True)
def _desk_open_around_the_clock(settings):
    """Business hours all day, every day, unless a test asks for the shop's (`shop_hours`): a chat reply or a new
    inquiry must not read differently when the suite runs at night (the after-hours notice)."""
    settings.CS_BUSINESS_DAYS = list(range(7))
    settings.CS_BUSINESS_HOURS = ("00:00", "23:59:59.999999")
    settings.CS_HOLIDAYS = []


@pytest.fixture
def shop_hours(settings):
    """The business hours the project ships (weekdays 09:00–18:00, the 2026 Korean public holidays)."""
    from cs_project.settings import base

    settings.CS_BUSINESS_DAYS = base.CS_BUSINESS_DAYS
    settings.CS_BUSINESS_HOURS = base.CS_BUSINESS_HOURS
    settings.CS_HOLIDAYS = base.CS_HOLIDAYS


@pytest.fixture
def shop(db):
    """The demo shop from fixtures/shop.json with a login per customer, `operator` and `admin`."""
    from fixtures.demo import demo_seed

    demo_seed(password="demo1234", knowledge=False)


@pytest.fixture
def shop_knowledge(shop):
    """Tags, FAQ, indexed documents and service events, as `seed_demo` loads them."""
    from fixtures.demo import demo_knowledge_seed

    demo_knowledge_seed()


@pytest.fixture
def c003(shop):
    from orders.models import Customer

    return Customer.objects.select_related("user").get(pk="C003")


@pytest.fixture
def c005(shop_knowledge):
    """C005 with the knowledge base seeded: the drafts' (and the sweep's) usual inquirer."""
    from orders.models import Customer

    return Customer.objects.select_related("user").get(pk="C005")


@pytest.fixture
def operator_user(shop):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username="operator")


from llm.testing import offline_model, scripted_model  # noqa: E402,F401


@pytest.fixture
def c003_api(c003):
    """An API client signed in as C003 with a token, as the chat page does."""
    from rest_framework.test import APIClient

    from accounts.services import token_issue

    client = APIClient()
    _, key = token_issue(user=c003.user, actor=c003.user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@pytest.fixture
def customer(db):
    """A factory-built customer with a login and no orders, for tests where which customer is not the point: the
    test gives them the orders it talks about (orders.tests.factories)."""
    from orders.tests.factories import CustomerFactory

    return CustomerFactory()


@pytest.fixture
def customer_api(customer):
    """An API client signed in as `customer` with a token, as the chat page does."""
    from accounts.tests.factories import token_client

    return token_client(customer.user)


from testsupport.celery_worker import celery_worker, celery_worker_factory  # noqa: E402,F401
