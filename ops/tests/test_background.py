"""Nothing slow in the customer's request: in embedded mode a served process dispatches committed
outbox rows — the draft pipeline — on a background thread after the response, with the same task code; and a
server (not a test or a command) loads the analyser and the index at start."""

import threading

import pytest

from common.outbox import OutboxMessage
from common.runtime import serving_process
from drafts.models import Draft
from llm.offline import respond
from ops.background import embedded_background_ensure, embedded_background_stop
from tickets.models import Ticket
from tickets.services import DRAFT_REQUESTED

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("argv", "environ", "expected"),
    [
        (["manage.py", "runserver"], {"RUN_MAIN": "true"}, True),  # the autoreloader's serving child
        (["manage.py", "runserver"], {}, False),  # the autoreloader's parent
        (["manage.py", "runserver", "--noreload"], {}, True),
        (["/srv/.venv/bin/gunicorn", "cs_project.wsgi"], {}, True),
        (["python", "-m", "gunicorn", "cs_project.wsgi"], {}, True),
        (["manage.py", "migrate"], {"RUN_MAIN": "true"}, False),
        (["manage.py", "seed_demo"], {}, False),
        (["/srv/.venv/bin/pytest", "-q"], {}, False),
    ],
)
def test_only_servers_warm_up_at_start(argv, environ, expected):
    assert serving_process(argv, environ) is expected


@pytest.fixture
def background(settings):
    settings.CS_OUTBOX_BACKGROUND = True
    runner = embedded_background_ensure()
    assert runner is not None
    yield runner
    embedded_background_stop()


@pytest.fixture
def held_drafts(scripted_model):
    """The chat agent answers at once (the built-in model); every draft-pipeline call waits for `release`."""
    release = threading.Event()

    def handler(body):
        if not body.get("tools"):  # the pipeline's calls carry a response schema, not tools
            release.wait(60)
        return respond(body)

    scripted_model.handler = handler
    yield release
    release.set()


def test_a_chat_handoff_answers_before_the_draft_is_made(customer_api, background, held_drafts):
    response = customer_api.post("/api/chat/", {"message": "상담원 연결해 주세요"}, format="json")
    # The response came back while the pipeline's model call is still held: the draft work is not in it.
    assert response.status_code == 200
    ticket = Ticket.objects.get()
    assert [r["ticket_id"] for r in response.json()["tool_results"]] == [ticket.number]
    assert not Draft.objects.filter(ticket=ticket, status="GENERATED").exists()

    held_drafts.set()
    background.jobs.join()  # the background thread finishes the same task code
    assert Draft.objects.filter(ticket=ticket, status="GENERATED").count() == 1
    assert OutboxMessage.objects.get(topic=DRAFT_REQUESTED).status == OutboxMessage.Status.DONE


def test_an_inquiry_answers_before_the_draft_is_made(customer_api, background, held_drafts):
    response = customer_api.post("/api/tickets/", {"category": "배송", "body": "언제 와요?"}, format="json")
    assert response.status_code == 201
    ticket = Ticket.objects.get()
    assert not Draft.objects.filter(ticket=ticket, status="GENERATED").exists()
    held_drafts.set()
    background.jobs.join()
    assert Draft.objects.filter(ticket=ticket, status="GENERATED").count() == 1


def test_without_the_runner_the_draft_is_made_inline_as_before(customer_api, scripted_model):
    scripted_model.handler = respond
    customer_api.post("/api/tickets/", {"category": "배송", "body": "언제 와요?"}, format="json")
    assert Draft.objects.filter(status="GENERATED").count() == 1
