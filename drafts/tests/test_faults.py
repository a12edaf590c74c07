"""A run whose database connection dies: retried while retries remain; the dead letter, when it gives up, is
written on a fresh connection (the one the run used is the one that failed)."""

import psycopg
import pytest
from django.db import connection

from drafts.models import DeadLetter
from drafts.tasks import generate_draft_task
from drafts.tests.support import inquiry as ask
from testsupport.celery_worker import worker_database_url

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def inquiry(customer, settings):
    settings.CS_AI_DRAFTS_ENABLED = False
    ticket = ask(customer, "언제?")
    settings.CS_AI_DRAFTS_ENABLED = True
    return ticket, ticket.messages.get()


def _kill_my_connection() -> None:
    """Terminate this process's PostgreSQL session from another one: a real OperationalError on next use."""
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    with psycopg.connect(worker_database_url(connection.settings_dict), autocommit=True) as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone()[0]


def test_a_run_whose_connection_died_is_deferred_not_dead_lettered_while_retries_remain(inquiry):
    ticket, message = inquiry
    _kill_my_connection()
    result = generate_draft_task.apply((ticket.pk, message.pk))
    assert result.result == "deferred"  # in-process: no sleep; the sweep comes back for it
    assert not DeadLetter.objects.exists()  # and the connection works again


def test_a_run_that_gives_up_on_a_dead_connection_still_writes_its_dead_letter(inquiry, settings):
    ticket, message = inquiry
    _kill_my_connection()
    generate_draft_task.apply((ticket.pk, message.pk), retries=settings.CS_AI_TRANSIENT_RETRIES)
    letter = DeadLetter.objects.get()
    assert (letter.source_message_id, letter.error, letter.resolved_at) == (message.pk, "OperationalError", None)
