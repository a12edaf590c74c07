"""Signed-in API clients for tests where the particular demo login is not the point."""

from __future__ import annotations

from rest_framework.test import APIClient

from accounts.services import token_issue


def token_client(user) -> APIClient:
    """An API client signed in as `user` with a fresh token, as the chat page does."""
    client = APIClient()
    _, key = token_issue(user=user, actor=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client
