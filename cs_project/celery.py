import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cs_project.settings.local")

app = Celery("cs_project", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
