import pytest

from drafts.tests.support import inquiry


@pytest.fixture
def live_draft(c005, offline_model):
    """An error inquiry from C005 with its GENERATED draft (built by the offline model after commit)."""
    from drafts.models import Draft

    ticket = inquiry(c005, "결제하려고 하면 계속 오류가 나요.", category="오류", subject="결제 오류")
    return Draft.objects.get(ticket=ticket, status="GENERATED")


@pytest.fixture
def staff_api(operator_user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(operator_user)
    return client


@pytest.fixture
def operator_client(client, operator_user):
    """The admin, signed in as the demo operator."""
    client.force_login(operator_user)
    return client
