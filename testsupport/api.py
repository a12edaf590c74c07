"""API clients for the tests of every app."""

from __future__ import annotations

from rest_framework.test import APIClient


def api_as(user) -> APIClient:
    """A DRF test client that every request authenticates as `user` (no token, no session)."""
    client = APIClient()
    client.force_authenticate(user)
    return client
