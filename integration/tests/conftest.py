"""The integration tests' shared fixtures."""

from __future__ import annotations

import pytest

from integration.tests.factories import shop_connected


@pytest.fixture
def connected(shop, settings):
    """A shop with a webhook at a live loopback receiver (the reference shop), and its data imported."""
    settings.CS_OUTBOX_BACKOFF_BASE_S = 10
    with shop_connected() as connected:
        yield connected
