"""The fault suite (`make chaos`, and `chaos/tests/test_fault_suite.py` with short timings in `make test`).

Production mode on loopback: gunicorn with cs_project.settings.production, real Celery workers with beat
(`-B`), PostgreSQL behind a TCP proxy the suite can cut, a Redis process of its own, a scripted model with
faults. Nothing in production code imports this package."""
