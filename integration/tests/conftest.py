"""The integration tests' shared fixtures."""

from __future__ import annotations

import pytest

from integration.simulator import ShopSimulator
from integration.tests.factories import make_integration, seed_shop


@pytest.fixture
def connected(shop, settings):
    """A shop with a webhook at a live loopback receiver (the reference shop), and its data imported."""
    settings.CS_OUTBOX_BACKOFF_BASE_S = 10
    simulator = ShopSimulator(signing_secret="").start()
    issued = make_integration(webhook_url=simulator.url)
    simulator.signing_secret = issued.signing_secret
    simulator.api_key = issued.api_key
    seed_shop(issued)
    yield issued, simulator
    simulator.stop()
