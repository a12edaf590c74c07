import pytest

from actions.tests.factories import decider


@pytest.fixture
def operator(db):
    """A staff login that reads requests and decides them; the staff commands name it with --by operator."""
    return decider(username="operator")
