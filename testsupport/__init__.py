"""Test support shared by every app's tests (not an app, not imported by production code).

It sits outside the import floors (docs/ARCHITECTURE.md): a test in any app may use it, and it may start the
whole project (a real Celery worker on `cs_project.celery`). The `forbidden` contract in pyproject.toml keeps
production modules from importing it.
"""
