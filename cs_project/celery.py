import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.local")

app = Celery("cs_project", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def broker_pools_reset() -> None:
    """Drop this process's cached broker connections, so the next publish or ping uses the current
    CELERY_BROKER_URL: the app reads Django settings live, but caches its connection and producer pools
    (tests and benchmarks that move the broker call this)."""
    app._pool = None
    amqp = app.__dict__.get("amqp")
    if amqp is not None:
        amqp._producer_pool = None
