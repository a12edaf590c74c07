import pytest

from drafts.tests.support import inquiry

ERROR_INQUIRY = "결제하려고 하면 계속 오류가 나요."


def _generated_draft(customer):
    """`customer`'s payment-error inquiry and the GENERATED draft the pipeline builds for it after commit."""
    from drafts.models import Draft

    ticket = inquiry(customer, ERROR_INQUIRY, category="오류", subject="결제 오류")
    return Draft.objects.get(ticket=ticket, status="GENERATED")


@pytest.fixture
def live_draft(customer, offline_model):
    """An error inquiry from the factory-built `customer` with its GENERATED draft (built by the offline model after
    commit): for tests about the draft's lifecycle, where what it cites is not the point."""
    return _generated_draft(customer)


@pytest.fixture
def c005_draft(c005, offline_model):
    """The same inquiry from the demo's C005, whose draft cites the shop's knowledge base and diagnoses C005's
    seeded payment failures: for tests about what the draft cites and diagnoses."""
    return _generated_draft(c005)


@pytest.fixture
def desk_user(db):
    """A staff user with the shop's operator permissions, where which permission is not the point."""
    from orders.tests.factories import desk_operator

    return desk_operator()


@pytest.fixture
def staff_api(desk_user):
    from testsupport.api import api_as

    return api_as(desk_user)


@pytest.fixture
def operator_client(client, desk_user):
    """The admin, signed in as `desk_user`."""
    client.force_login(desk_user)
    return client


@pytest.fixture
def desk_tags(db):
    """The tags these tests put on tickets, registered as the shop's tag list registers them."""
    from tickets.tests.factories import TagFactory

    return [TagFactory(name=name) for name in ("결제오류", "재문의")]
