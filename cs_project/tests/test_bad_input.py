"""Finding 7, case by case: bad input answers 4xx with the JSON error shape, never 5xx or HTML on /api/."""

from __future__ import annotations

import io
import json
import logging
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.services import token_issue
from chat.models import ChatMessage
from common.numbering import parse_number
from common.parsers import JSONParser, PayloadTooLarge
from common.text import strip_control_chars
from cs_project.tests.urls_faults import SECRET
from drafts.policy import edit_distance, edit_ratio
from llm.client import clean_json_text
from llm.testing import text_message, tool_calls_message
from metrics.policy import range_problem
from orders.models import Order
from orders.tests.factories import OrderFactory, desk_operator
from testsupport.schema import openapi_document
from tickets.models import Ticket

BASE_DIR = Path(__file__).resolve().parents[2]
UNICODE_DIGITS = ["١٢٣", "１２", "۱", "߁", "𝟏", "²"]


def error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert {"code", "detail"} <= set(body) and body["detail"]
    if code:
        assert body["code"] == code, body
    return body


@pytest.fixture
def staff_api(db):
    operator = desk_operator()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=operator, actor=operator)[1]}")
    return client


# --- the error shape ------------------------------------------------------------------------------------
@pytest.mark.parametrize("debug", [True, False])
def test_unknown_api_url_answers_json_404_and_other_pages_keep_html(client, settings, debug):
    settings.DEBUG = debug
    assert error(client.get("/api/nope/"), 404, "not_found")
    assert error(client.post("/api/tickets/T00001/nope/"), 404, "not_found")
    page = client.get("/nope-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="cs_project.tests.urls_faults")
@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize("url", ["/api/test-crash/", "/api/test-crash-plain/"])
def test_a_crash_answers_json_500_logged_without_the_traceback(settings, caplog, debug, url):
    settings.DEBUG = debug
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.ERROR):
        response = client.get(url)
    body = error(response, 500, "server_error")
    assert SECRET not in response.content.decode() and "Traceback" not in response.content.decode()
    assert set(body) == {"code", "detail"}
    assert any(record.exc_info for record in caplog.records), "the crash is logged with its traceback"


@pytest.mark.django_db
def test_validation_errors_carry_field_errors_next_to_code_and_detail(customer_api):
    body = error(customer_api.post("/api/tickets/", {"body": ""}, format="json"), 400, "invalid")
    assert set(body) == {"code", "detail", "errors"} and "body" in body["errors"]
    assert body["detail"].startswith("body: ")


@pytest.mark.django_db
def test_auth_permission_method_and_media_type_errors_have_the_shape(customer_api, client):
    assert error(client.get("/api/orders/"), 401, "not_authenticated")
    assert error(customer_api.get("/api/ops/tickets/"), 403, "permission_denied")
    assert error(customer_api.delete("/api/orders/"), 405, "method_not_allowed")
    assert error(customer_api.post("/api/chat/", "message=x", content_type="text/csv"), 415, "unsupported_media_type")
    # A number or a boolean where the document says string is refused, not stored as its str().
    for path, body in (
        ("/api/tickets/", {"body": 0}),
        ("/api/tickets/", {"body": "질문", "subject": True}),
        ("/api/chat/", {"message": 12}),
        ("/api/auth/token/", {"username": 3, "password": "x"}),
    ):
        assert error(customer_api.post(path, body, format="json"), 400, "invalid"), path
    # maxLength counts what was sent, before any trimming (U+001F is whitespace to Python's strip()).
    too_long = "\u001f" + "가" * 4000
    assert error(customer_api.post("/api/tickets/", {"body": too_long}, format="json"), 400, "invalid")
    # A form body too: the API reads JSON only (a form has no null; `conversation_id=` once slipped through).
    form = customer_api.post("/api/chat/", {"message": "0", "conversation_id": ""}, format="multipart")
    assert error(form, 415, "unsupported_media_type")
    urlencoded = customer_api.post(
        "/api/chat/", "message=0&conversation_id=", content_type="application/x-www-form-urlencoded"
    )
    assert error(urlencoded, 415, "unsupported_media_type")
    bad_token = APIClient()
    bad_token.credentials(HTTP_AUTHORIZATION="Token nope")
    # The login endpoint ignores Authorization (it authenticates nobody); a protected one refuses a bad token.
    assert error(bad_token.get("/api/orders/"), 401, "token_invalid")


@pytest.mark.django_db
def test_malformed_json_answers_400_parse_error(customer_api, client):
    assert error(customer_api.post("/api/chat/", "{nope", content_type="application/json"), 400, "parse_error")
    assert error(client.post("/api/auth/token/", "{nope", content_type="application/json"), 400, "parse_error")


@pytest.mark.django_db
@pytest.mark.parametrize("depth", [40, 5_000, 200_000])
def test_deeply_nested_json_answers_400_also_on_the_anonymous_token_endpoint(customer_api, client, depth):
    nested = "[" * depth + "]" * depth
    assert error(customer_api.post("/api/chat/", nested, content_type="application/json"), 400, "parse_error")
    assert error(client.post("/api/auth/token/", nested, content_type="application/json"), 400, "parse_error")
    objects = '{"a":' * depth + "1" + "}" * depth
    assert error(client.post("/api/auth/token/", objects, content_type="application/json"), 400, "parse_error")


@pytest.mark.django_db
def test_oversize_body_answers_json_413(customer_api, client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    big = json.dumps({"message": "가" * 10_000})
    assert error(customer_api.post("/api/chat/", big, content_type="application/json"), 413, "payload_too_large")
    assert error(client.post("/api/auth/token/", big, content_type="application/json"), 413, "payload_too_large")
    assert not ChatMessage.objects.exists()


@pytest.mark.django_db
def test_more_query_parameters_than_django_reads_answer_400_without_an_error_log(
    customer_api, client, staff_api, caplog, settings
):
    """Django refuses to parse more than DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) fields; every DRF view reads the
    query string, so it was a 500 with a traceback in the error log on any /api/ URL."""
    limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    too_many = "&".join(f"f{i}=1" for i in range(limit + 1))
    with caplog.at_level(logging.WARNING):
        answers = [
            customer_api.get(f"/api/orders/?{too_many}"),
            customer_api.get(f"/api/ping/?{too_many}"),
            customer_api.post(f"/api/chat/?{too_many}", {"message": "안녕하세요"}, format="json"),
            client.post(f"/api/auth/token/?{too_many}", {"username": "kim"}, content_type="application/json"),
            staff_api.get(f"/api/ops/tickets/?{too_many}"),
        ]
        # The schema view renders its answers as YAML: the error middleware gives it the generic JSON 400.
        schema = client.get(f"/api/schema/?{too_many}")
    for response in answers:
        body = error(response, 400, "too_many_fields")
        assert set(body) == {"code", "detail"} and f"{limit:,}개" in body["detail"]
    assert error(schema, 400)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not ChatMessage.objects.exists()
    just_enough = "&".join(f"f{i}=1" for i in range(limit - 1))
    assert customer_api.get(f"/api/ping/?{just_enough}").status_code == 200


def test_the_parser_bounds_a_body_without_content_length(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    with pytest.raises(PayloadTooLarge):
        JSONParser().parse(io.BytesIO(b'{"a": "' + b"x" * 200 + b'"}'), parser_context={})
    assert JSONParser().parse(io.BytesIO(b'{"a": 1}'), parser_context={}) == {"a": 1}


PRODUCTION_SCRIPT = """
import django, json; django.setup()
from django.test import Client
c = Client(HTTP_HOST="cs.example.com", raise_request_exception=False)
def show(r):
    kind = r["Content-Type"].split(";")[0]
    keys = json.dumps(sorted(json.loads(r.content))) if kind == "application/json" else "-"
    print(r.status_code, kind, keys)
show(c.get("/api/nope/", secure=True))
show(c.post("/api/auth/token/", "[" * 100000 + "]" * 100000, content_type="application/json", secure=True))
show(c.post("/api/auth/token/", "{nope", content_type="application/json", secure=True))
show(c.post("/api/auth/token/", "x" * 3000000, content_type="application/json", secure=True))
show(c.get("/api/ping/", HTTP_AUTHORIZATION="Token abc", secure=True))
show(c.get("/nope-page/", secure=True))
"""


def test_production_settings_answer_every_api_error_as_json(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ALLOWED_HOSTS", "DEBUG", "DATABASE_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="cs_project.settings.production",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="cs.example.com",
        # An empty database: the token lookup fails inside the view, the crash case under DEBUG=False.
        DATABASE_URL=f"sqlite:///{tmp_path / 'empty.sqlite3'}",
    )
    result = subprocess.run(
        [sys.executable, "-c", PRODUCTION_SCRIPT], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    shape = '["code", "detail"]'
    assert lines[:4] == [
        f"404 application/json {shape}",
        f"400 application/json {shape}",
        f"400 application/json {shape}",
        f"413 application/json {shape}",
    ]
    # The chaos work may answer a database outage with 503; either way JSON, never the traceback.
    assert lines[4] in (f"500 application/json {shape}", f"503 application/json {shape}")
    assert lines[5] == "404 text/html -"
    assert "no such table" not in result.stdout


# --- ids: only the canonical ASCII form -------------------------------------------------------------------
@pytest.mark.parametrize("value", [*UNICODE_DIGITS, "T１２", "T١٢٣٤٥", "12a", "", " ", "0", "T00000", "9" * 13, True])
def test_parse_number_refuses_anything_but_ascii_digits(value):
    assert parse_number("T", value) is None


def test_parse_number_reads_canonical_numbers():
    assert parse_number("T", "T00012") == 12 and parse_number("A", "a00012") == 12 and parse_number("T", 7) == 7


@pytest.mark.django_db
def test_non_ascii_digit_ids_are_not_found_on_every_id_route(customer, customer_api, staff_api):
    ticket = Ticket.objects.create(customer=customer, subject="x")
    assert customer_api.get(f"/api/tickets/{ticket.number}/").status_code == 200
    for zero in ("０", "٠", "𝟎"):  # fullwidth, Arabic-Indic, mathematical: int() reads each as the same number
        digits = ticket.number[1:].translate({ord(str(d)): chr(ord(zero) + d) for d in range(10)})
        fake = "T" + digits
        assert int(digits) == ticket.pk  # what the old `isdigit` check let through: the same ticket
        assert error(customer_api.get(f"/api/tickets/{fake}/"), 404, "not_found")
        assert error(customer_api.post(f"/api/tickets/{fake}/messages/", {"body": "x"}, format="json"), 404)
        assert error(staff_api.get(f"/api/ops/tickets/{fake}/"), 404)
        assert error(staff_api.post(f"/api/ops/drafts/{digits}/apply/", {}, format="json"), 404)
        assert error(staff_api.post(f"/api/ops/actions/A{digits}/decide/", {"approve": True}, format="json"), 404)
    assert error(customer_api.get("/api/products/P%00/"), 404)
    assert error(customer_api.get("/api/tickets/T99999999999999999999/"), 404)


@pytest.mark.django_db
def test_ticket_and_action_numbers_only_in_their_canonical_form_on_every_route(customer, customer_api, staff_api):
    """One name per ticket or request: T00012 / A00012 as common.numbering writes them. A leading zero beyond
    five digits, a short form, a bare id or lower case is a 404 (A000012 once named A00012)."""
    from actions.services import refund_request
    from common.actors import Actor

    ticket = Ticket.objects.create(customer=customer, subject="x")
    order = OrderFactory(customer=customer, delivered_days_ago=26)
    record = refund_request(
        customer=customer, order_id=order.pk, reason_category="DEFECT", reason="x", actor=Actor.customer_agent(customer)
    ).record
    for other in (f"T0{ticket.number[1:]}", f"T{ticket.pk}", str(ticket.pk), ticket.number.lower()):
        assert error(customer_api.get(f"/api/tickets/{other}/"), 404, "not_found"), other
        assert error(customer_api.post(f"/api/tickets/{other}/messages/", {"body": "x"}, format="json"), 404)
        assert error(staff_api.get(f"/api/ops/tickets/{other}/"), 404)
    for other in (f"A0{record.number[1:]}", f"A{record.pk}", str(record.pk), record.number.lower()):
        assert error(staff_api.post(f"/api/ops/actions/{other}/decide/", {"approve": False}, format="json"), 404)
    record.refresh_from_db()
    assert record.status == "PENDING"
    assert customer_api.get(f"/api/tickets/{ticket.number}/").status_code == 200
    assert staff_api.get(f"/api/ops/tickets/{ticket.number}/").status_code == 200
    assert (
        staff_api.post(f"/api/ops/actions/{record.number}/decide/", {"approve": False}, format="json").status_code
        == 200
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "spelled",
    [
        lambda oid: oid[:2] + oid[2:].translate({ord(str(d)): chr(ord("０") + d) for d in range(10)}),  # fullwidth
        lambda oid: oid[:2] + oid[2:].translate({ord(str(d)): chr(ord("٠") + d) for d in range(10)}),  # Arabic-Indic
        lambda oid: oid + "\x00",
        lambda oid: oid[:6].lower(),
        lambda oid: "X" * 50,
    ],
    ids=["fullwidth", "arabic-indic", "nul", "short", "long"],
)
def test_order_ids_only_in_their_canonical_form(customer, customer_api, spelled):
    order = OrderFactory(customer=customer, status=Order.Status.PREPARING)
    order_id = spelled(order.pk)
    response = customer_api.post("/api/tickets/", {"body": "질문", "order_id": order_id}, format="json")
    assert response.status_code in (400, 404) and set(json.loads(response.content)) >= {"code", "detail"}
    assert not Ticket.objects.exists()
    ok = customer_api.post("/api/tickets/", {"body": "질문", "order_id": order.pk.lower()}, format="json")
    assert ok.status_code == 201  # lower case of the canonical form is still the same order


@pytest.mark.django_db
@pytest.mark.parametrize("object_id", ["abc", "1.5", "١٢", "１", "-1", "99999999999999999999", "%00"])
def test_admin_ticket_change_page_with_a_bad_id_answers_404(admin_client, object_id):
    admin_client.raise_request_exception = False
    response = admin_client.get(f"/admin/tickets/ticket/{object_id}/change/")
    assert response.status_code == 404


# --- metrics ranges ----------------------------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize(
    "params, message",
    [
        ({"until": "9999-12-31"}, "까지 입력할 수 있습니다"),
        ({"since": "0001-01-01"}, "까지 입력할 수 있습니다"),
        ({"since": "2020-01-01", "until": "2026-07-27"}, "최대 366일"),
        ({"since": "2020-01-01"}, "최대 366일"),
        ({"since": "2026-07-28", "until": "2026-07-27"}, "시작일이 종료일보다 늦습니다"),
        ({"since": "99999-01-01"}, "올바른 날짜"),
    ],
)
def test_metrics_page_answers_a_clear_message_for_bad_ranges(admin_client, params, message):
    page = admin_client.get("/admin/metrics/", params)
    assert page.status_code == 200 and message in page.content.decode()
    as_json = admin_client.get("/admin/metrics/", {**params, "format": "json"})
    assert as_json.status_code == 400 and message in as_json.json()["detail"]
    assert as_json.json()["code"] == "invalid_range"


@pytest.mark.django_db
def test_metrics_page_accepts_a_year(admin_client):
    assert admin_client.get("/admin/metrics/", {"since": "2025-07-28", "until": "2026-07-27"}).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "args, message",
    [
        (("--until", "9999-12-31"), "까지 입력할 수 있습니다"),
        (("--since", "2020-01-01", "--until", "2026-07-27"), "최대 366일"),
    ],
)
def test_cs_metrics_refuses_bad_ranges_with_a_clear_message(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("cs_metrics", *args, stdout=io.StringIO())


def test_range_problem_bounds():
    from datetime import date

    today = date(2026, 7, 27)
    assert range_problem(None, None, today=today, max_days=366) is None
    assert range_problem(date(2025, 7, 27), today, today=today, max_days=366) is None
    assert range_problem(date(2025, 7, 26), today, today=today, max_days=366) is not None
    assert range_problem(None, date(2027, 7, 28), today=today, max_days=366) is None
    assert range_problem(None, date(2027, 7, 29), today=today, max_days=366) is not None
    assert range_problem(date.min, None, today=today, max_days=366) is not None
    assert range_problem(None, date.max, today=today, max_days=366) is not None


# --- control characters from any model -------------------------------------------------------------------
def test_control_characters_are_removed_but_newline_and_tab_kept():
    assert strip_control_chars("a\x00b\x07c\x1b[31m\r\n\td\x7f\x85e") == "abc[31m\n\tde"
    assert json.loads(clean_json_text('{"body": "안\\u0000녕\\u001b", "n": ["\\u0007x"]}')) == {
        "body": "안녕",
        "n": ["x"],
    }
    assert clean_json_text('{"body": "\\\\u0000 literal"}') == '{"body": "\\\\u0000 literal"}'
    assert clean_json_text("not json \\u0000") == "not json \\u0000"


@pytest.mark.django_db
def test_nul_from_the_model_never_reaches_a_row(customer, customer_api, scripted_model):
    """Through the real client: a reply and tool arguments with NUL and escape sequences (PostgreSQL would
    refuse the write with NUL)."""
    preparing = OrderFactory(customer=customer, status=Order.Status.PREPARING).pk
    scripted_model.push(
        tool_calls_message(
            [
                ("change_shipping_address", {"order_id": preparing, "new_address": "서울시\u0000 중구\u001b 1"}),
                ("create_ticket", {"category": "상담원연결", "summary": "연결\u0000 요청\u0007"}),
            ]
        ),
        text_message("변경\u0000했습니다\u0007.\n끝"),
    )
    response = customer_api.post("/api/chat/", {"message": "주소 바꿔 주세요"}, format="json")
    assert response.status_code == 200
    # The model's words, cleaned; an automated address change then adds, by code, that a person can review it.
    reply = response.json()["reply"]
    assert reply.startswith("변경했습니다.\n끝\n") and "\x00" not in reply and "\x07" not in reply
    assert Order.objects.get(pk=preparing).shipping_address == "서울시 중구 1"
    assert Ticket.objects.get().subject == "연결 요청"
    assert ChatMessage.objects.get(role="assistant").content == reply  # stored as the customer read it


# --- edit ratio ------------------------------------------------------------------------------------------
def _reference_distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


@hsettings(max_examples=200, deadline=None)
@given(a=st.text(alphabet="가나다ab \n", max_size=30), b=st.text(alphabet="가나다ab \n", max_size=30))
def test_edit_distance_is_levenshtein(a, b):
    assert edit_distance(a, b) == _reference_distance(a, b)


def test_edit_ratio_handles_long_texts():
    long = "환불 정책을 안내드립니다. " * 2000  # ~30,000 characters: the pure-Python version took seconds
    assert edit_ratio(long, long + "감사합니다.") == round(6 / (len(long) + 6), 4)
    assert edit_ratio(long, "") == 1.0


@pytest.mark.django_db
def test_structured_output_loses_escaped_control_characters(scripted_model):
    """Draft, QA, confidence, tags and diagnosis all parse through `structured`: one place cleans them."""
    from pydantic import BaseModel

    from llm.client import structured

    class Out(BaseModel):
        body: str
        tags: list[str]

    scripted_model.push(text_message('{"body": "환불\\u0000 안내\\u001b[0m\\n끝", "tags": ["배송\\u0007"]}'))
    parsed, _ = structured(purpose="draft", messages=[{"role": "user", "content": "x"}], schema=Out, name="out")
    assert parsed == Out(body="환불 안내[0m\n끝", tags=["배송"])


@pytest.mark.django_db
def test_openapi_documents_the_error_statuses_of_every_api_operation():
    # The staff document lists every operation (the public one leaves out /api/ops/).
    schema = openapi_document(staff=True)
    assert schema["components"]["schemas"]["Error"]["required"] == ["code", "detail"]
    operations = [(p, m, o) for p, ops in schema["paths"].items() for m, o in ops.items() if p.startswith("/api/")]
    assert len(operations) >= 16
    for path, method, operation in operations:
        for status in ("400", "401", "403", "404", "409", "413", "415", "429", "500", "503"):
            content = operation["responses"][status]["content"]["application/json"]["schema"]
            # The shared Error, or an endpoint's own component of the same shape (e.g. AuthError's codes).
            component = schema["components"]["schemas"][content["$ref"].rsplit("/", 1)[-1]]
            assert {"code", "detail"} <= set(component.get("required", [])), (path, method, status)
        assert "Retry-After" in operation["responses"]["429"]["headers"]


def test_a_bare_validation_error_still_has_an_errors_object():
    from rest_framework.exceptions import ValidationError

    from common.apis import exception_handler

    response = exception_handler(ValidationError("형식이 잘못되었습니다."), {})
    assert response.status_code == 400
    assert response.data == {
        "code": "invalid",
        "detail": "형식이 잘못되었습니다.",
        "errors": {"non_field_errors": ["형식이 잘못되었습니다."]},
    }


@pytest.mark.parametrize(
    "query",
    [
        "?status=",
        "?category=",
        "?limit=",
        "?offset=",
        "?limit=abc",
        "?limit=0",
        "?limit=201",
        "?offset=-1",
        "?offset=0.0",
        "?offset=0&offset=0",
        "?status=OPEN&status=CLOSED",
    ],
)
def test_the_staff_ticket_list_refuses_empty_or_out_of_range_parameters(staff_api, query):
    """As the document states them: an empty filter is not "no filter", a bad page size is not the default."""
    assert error(staff_api.get(f"/api/ops/tickets/{query}"), 400, "invalid")


def test_the_staff_ticket_list_still_pages_and_filters(staff_api):
    assert staff_api.get("/api/ops/tickets/?status=OPEN&limit=5&offset=0").status_code == 200
