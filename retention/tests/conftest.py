"""The retention tests' shared history (factories.py)."""

from retention.tests.factories import history  # noqa: F401
