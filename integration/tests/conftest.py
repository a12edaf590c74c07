"""The integration tests' shared fixtures."""

from __future__ import annotations

import pytest

from integration.tests.factories import shop_connected
from orders.tests.factories import desk_operator


@pytest.fixture
def connected(db, settings):
    """A shop with a webhook at a live loopback receiver (the reference shop), and its data imported: its own
    customer and order, so the desk's demo shop is not needed beside it."""
    settings.CS_OUTBOX_BACKOFF_BASE_S = 10
    with shop_connected() as connected:
        yield connected


@pytest.fixture
def operator(db):
    """Decides requests and reads their admin pages."""
    return desk_operator(username="operator")
