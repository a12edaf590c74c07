"""The `celery_worker` fixture (testsupport/celery_worker.py): tasks sent from the test reach a real worker that
works on the test database."""

import time

import pytest

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def wait_for(predicate, timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_the_test_process_sends_to_the_workers_own_queue(celery_worker, settings):
    from cs_project.celery import app

    assert settings.CELERY_TASK_ALWAYS_EAGER is False and app.conf.task_default_queue == celery_worker.queue
    app.send_task("celery.accumulate", args=(1, 2))
    assert wait_for(lambda: "celery.accumulate" in celery_worker.log_path.read_text(encoding="utf-8")), (
        celery_worker.log_path.read_text(encoding="utf-8")[-2000:]
    )


def test_a_ticket_committed_in_the_test_gets_its_draft_from_the_worker(offline_model, customer, celery_worker):
    from drafts.models import Draft
    from drafts.tests.support import inquiry

    # Autocommit: on_commit fires at once and the task goes to the broker, not in-process.
    ticket = inquiry(customer, "언제 도착하나요?", subject="배송 문의")
    # The worker ran it (not this process) to the end, on the test database.
    assert wait_for(lambda: "succeeded" in _task_lines(celery_worker, "drafts.generate_draft")), _tail(celery_worker)
    assert Draft.objects.filter(ticket=ticket).exclude(status=Draft.Status.PREPARING).exists()


def _task_lines(worker, name: str) -> str:
    return "\n".join(row for row in worker.log_path.read_text(encoding="utf-8").splitlines() if name in row)


def _tail(worker) -> str:
    return worker.log_path.read_text(encoding="utf-8")[-3000:]
