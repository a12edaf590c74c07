"""Every admin page an operator uses reads as Korean for people.

The demo `operator` signs in and the test crawls, from the admin index and the metrics dashboard, every page a
link leads to (changelists, their filters and sort links, every change page of a world that holds one record in
each state the desk produces, the approval queue, the draft review page). On the visible text of each page (no
markup, no attribute values, nothing inside form fields the operator edits) it looks for:

- a raw state code: a choice value of any model field (PENDING, PARTIAL_EVIDENCE …) or a code-shaped word
  (UPPER_SNAKE, lower_snake such as `app_open` or a tool name);
- a raw JSON object or list of objects;
- an ISO timestamp (`2026-07-27T10:00`, a UTC offset, microseconds);
- an English model name (`Action record`, `Tool calls` …) — and every model's verbose names are Korean.

A finding names the page shape and the words found, so the failure says what to fix. With WALK_DUMP=<dir> the
visible text of each page with findings is written there, to see the words around them.
"""

from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urldefrag, urlencode, urlsplit

import pytest
from django.apps import apps
from django.contrib import admin
from django.test import Client
from django.utils.text import camel_case_to_spaces

from cs_project.tests.helpers import customer_inquiry

pytestmark = pytest.mark.django_db(transaction=True)

HANGUL = re.compile(r"[가-힣]")
# Links the crawl never follows: they change state, leave the operator's screens or only repeat a page.
SKIP = re.compile(r"/(logout|password_change|delete|history|autocomplete|jsi18n|r/\d+/\d+)/|/admin/auth/|/admin/axes/")
# The operator's browser may well be set to English: the pages must stay Korean all the same.
ENGLISH_BROWSER = "en-US,en;q=0.9"
PER_SHAPE = 12  # pages visited per URL shape (change pages of one model, one filter's values): every state in the world
# Query parameters that only re-sort, re-page or remember where the operator came from: the same page again.
SAME_PAGE = {"o", "_changelist_filters", "_facets", "p", "_popup", "_to_field"}


class _Text(HTMLParser):
    """Visible text of a page: text nodes outside script/style/textarea/template, one item per node."""

    HIDDEN = {"script", "style", "textarea", "template", "noscript"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.chunks: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.HIDDEN:
            self.depth += 1
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.links.append(href)

    def handle_endtag(self, tag):
        if tag in self.HIDDEN and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth and data.strip():
            self.chunks.append(" ".join(data.split()))


def _canonical(current: str, href: str) -> str | None:
    href = urldefrag(href)[0]
    if not href or href.startswith(("http", "mailto:", "javascript:")):
        return None
    if href.startswith("?"):
        href = urlsplit(current).path + href
    if not href.startswith("/admin/") or SKIP.search(href):
        return None
    parts = urlsplit(href)
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in SAME_PAGE)
    if len({k.split("__")[0] for k, _ in query}) > 1:
        return None  # one filter at a time: combinations show the same rows' words again
    return parts.path + (f"?{urlencode(query)}" if query else "")


def _shape(href: str) -> str:
    """/admin/actions/actionrecord/7/change/?status__exact=DONE → /admin/actions/actionrecord/<id>/change/?status__exact"""  # noqa: E501
    parts = urlsplit(href)
    path = re.sub(r"/[^/]*\d[^/]*/", "/<id>/", parts.path)
    keys = ",".join(sorted({k for k, _ in parse_qsl(parts.query, keep_blank_values=True)}))
    return path + (f"?{keys}" if keys else "")


def _logins() -> set[str]:
    """Login names are identifiers people read as they are (the demo's `operator` is also the chat role code
    `operator`): a colleague's login on a page is not a code leaking."""
    from django.contrib.auth import get_user_model

    return set(get_user_model().objects.values_list("username", flat=True))


def _choice_codes() -> set[str]:
    codes = set()
    for model in apps.get_models():
        for field in model._meta.get_fields():
            for value, _label in getattr(field, "flatchoices", None) or ():
                if isinstance(value, str) and re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{2,}", value):
                    codes.add(value)
    return codes


def _english_model_names() -> set[str]:
    names = set()
    for model in apps.get_models():
        if model not in admin.site._registry:
            continue
        spaced = camel_case_to_spaces(model._meta.object_name)
        names |= {spaced, spaced + "s", model._meta.object_name}
    return {n for n in names if len(n) > 3}


# Identifiers people do read as they are: order/customer/product ids, e-mail addresses and URLs are masked before
# the code-shaped word check (an e-mail like kim_min@… is not a code).
_IDENTIFIERS = re.compile(r"\S+@\S+|https?://\S+|\b[A-Z]{1,3}\d[\dA-Z-]*\b")
_SNAKE = re.compile(r"\b(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+\.[a-z]+_[a-z_]+)\b")
_JSON = re.compile(r"[\{\[]\s*[\"'][^\"']+[\"']\s*:|\[\s*\{")
_ISO = re.compile(
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\d{2}:\d{2}:\d{2}\.\d{3,}|\d{2}:\d{2}(:\d{2})?[+-]\d{2}:?\d{2}\b|\d{2}:\d{2}(:\d{2})?Z\b"
)


# Django's own admin words, as they read when the page is not translated.
_ADMIN_ENGLISH = re.compile(
    r"\b(?:Log out|Change password|View site|Welcome,|Select [^|]{1,40} to (?:change|view)|Save and continue|"
    r"Filter|Search|Home|Action:|Username|Password|Show counts|Hide counts)\b"
)


def leaks(text: str, *, codes: set[str], model_names: set[str]) -> list[str]:
    """What in one page's visible text an operator should not have to read. Pure: the tests below pin it."""
    found = []
    bare = _IDENTIFIERS.sub(" ", text)
    for word in set(re.findall(r"[A-Za-z][A-Za-z0-9_]{2,}", bare)) & codes:
        found.append(f"code {word}")
    for match in _SNAKE.finditer(bare):
        found.append(f"code {match.group(0)}")
    for match in _JSON.finditer(text):
        found.append(f"json {text[max(0, match.start() - 20) : match.end() + 20]!r}")
    for match in _ISO.finditer(text):
        found.append(f"iso {text[max(0, match.start() - 12) : match.end() + 8]!r}")
    for match in _ADMIN_ENGLISH.finditer(text):
        found.append(f"english {match.group(0)!r}")
    lowered = text.lower()
    for name in model_names:
        if re.search(rf"(?<![a-z_]){re.escape(name.lower())}(?![a-z_])", lowered):
            found.append(f"model name {name!r}")
    return sorted(set(found))


def test_the_checker_finds_what_it_looks_for():
    codes, names = {"PENDING", "PARTIAL_EVIDENCE"}, {"action record", "action records"}
    assert leaks("상태 PENDING", codes=codes, model_names=names) == ["code PENDING"]
    assert leaks("근거 PARTIAL_EVIDENCE", codes=codes, model_names=names) == ["code PARTIAL_EVIDENCE"]
    assert leaks("이벤트 app_open 발생", codes=codes, model_names=names) == ["code app_open"]
    assert leaks('{"reason_category": "DEFECT"}', codes=codes, model_names=names)[0].startswith("code reason_category")
    assert any(x.startswith("json") for x in leaks('세부 {"a": 1}', codes=codes, model_names=names))
    assert leaks("2026-07-27T10:00:00+00:00", codes=codes, model_names=names)
    assert leaks("10:00:00.123456", codes=codes, model_names=names)
    assert leaks("Select action record to change", codes=codes, model_names=names) == [
        "english 'Select action record to change'",
        "model name 'action record'",
    ]
    assert leaks("홈 | Log out | Filter", codes=codes, model_names=names) == ["english 'Filter'", "english 'Log out'"]
    # What people read as it is: ids, e-mails, URLs, local dates and times, amounts.
    fine = "HR20260721001 · C003 · kim_min@example.com · 2026년 7월 27일 오후 3:04 · 2026-07-27 15:04 · 38,000원"
    assert leaks(fine, codes=codes, model_names=names) == []


@pytest.fixture
def world(shop_knowledge, offline_model, settings):
    """One record in each state an operator meets: the demo's inquiries with their drafts (generated, applied
    edited, rejected, failed with its dead letter), refunds and cancels pending / approved (done) / rejected, an
    exchange and an address change, a refusal, a chat with tool calls and a handoff, model calls."""
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from accounts.services import token_issue
    from actions.errors import Refused
    from actions.services import action_decide, address_change, exchange_request, refund_request
    from common.actors import Actor
    from drafts.models import DeadLetter, Draft
    from drafts.services import draft_apply, draft_reject
    from fixtures.demo import demo_inquiries_seed
    from orders.models import Customer
    from tickets.services import ticket_create

    demo_inquiries_seed()
    operator = get_user_model().objects.get(username="operator")
    generated = list(Draft.objects.filter(status="GENERATED").order_by("pk"))
    draft_apply(
        draft_id=generated[0].pk,
        final_body=generated[0].body + " 추가로 확인해 드렸습니다.",
        actor=operator,
        override_reason="검토함",
    )
    draft_reject(draft_id=generated[1].pk, actor=operator)

    c003 = Customer.objects.select_related("user").get(pk="C003")
    c005 = Customer.objects.select_related("user").get(pk="C005")
    c004 = Customer.objects.select_related("user").get(pk="C004")
    agent = Actor.customer_agent
    pending = refund_request(
        customer=c003, order_id="HR20260721001", reason_category="DEFECT", reason="사이즈가 달라요", actor=agent(c003)
    ).record
    approved = refund_request(
        customer=c004,
        order_id="HR20260717011",
        reason_category="CHANGE_OF_MIND",
        reason="마음이 바뀌었어요",
        actor=agent(c004),
    ).record
    rejected = refund_request(
        customer=c005, order_id="HR20260716011", reason_category="DEFECT", reason="소리가 안 나요", actor=agent(c005)
    ).record
    action_decide(number=approved.number, approve=True, actor=operator)
    action_decide(number=rejected.number, approve=False, actor=operator, note="사진 확인 필요")
    address_change(
        customer=c003, order_id="HR20260726002", new_address="서울특별시 중구 세종대로 110", actor=agent(c003)
    )
    exchange_request(
        customer=c005,
        order_id="HR20260716014",
        new_option="블랙/260",
        reason_category="DEFECT",
        reason="사이즈 불량",
        actor=agent(c005),
    )
    with pytest.raises(Refused):  # past the window
        refund_request(
            customer=c003,
            order_id="HR20260628003",
            reason_category="CHANGE_OF_MIND",
            reason="그냥요",
            actor=agent(c003),
        )

    _, key = token_issue(user=c003.user, actor=c003.user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    for message in ("내 주문 보여줘", "HR20260628003 환불해 주세요 단순변심이에요", "상담원 연결해 주세요"):
        assert api.post("/api/chat/", {"message": message}, format="json").status_code == 200

    ticket = customer_inquiry(c005)
    DeadLetter.objects.create(ticket=ticket, source_message=ticket.messages.first(), error="worker lost")
    Draft.objects.filter(ticket=ticket).update(status=Draft.Status.FAILED)

    # Working as a team: a ticket taken, given away and re-prioritised; one handed out by round robin; one an
    # operator answered and the customer left, closed by the sweep (every kind of event the desk writes).
    from tickets.services import (
        operator_availability_set,
        ticket_assign,
        ticket_priority_change,
        ticket_reply_add,
        tickets_auto_close,
    )

    supervisor = get_user_model().objects.get(username="supervisor")
    ticket_assign(ticket_id=ticket.pk, assignee=operator, actor=operator)
    ticket_assign(ticket_id=ticket.pk, assignee=supervisor, actor=supervisor)
    ticket_priority_change(ticket_id=ticket.pk, priority="URGENT", actor=supervisor)
    settings.CS_AUTO_ASSIGN = "round_robin"
    operator_availability_set(available=True, actor=operator)
    settings.CS_NOW = "2026-07-10T10:00:00+09:00"
    left = ticket_create(
        customer=c004, category="배송", subject="배송 문의", body="언제 오나요?", source="API", author=c004.user
    )
    ticket_reply_add(ticket=left, body="내일 도착합니다.", actor=supervisor)
    settings.CS_NOW = None
    settings.CS_AUTO_ASSIGN = ""
    assert tickets_auto_close() == 1
    return {"pending": pending}


def test_every_operator_page_reads_korean(world, client):
    from django.contrib.auth import get_user_model

    client: Client
    client.force_login(get_user_model().objects.get(username="operator"))
    codes, names = _choice_codes() - _logins(), _english_model_names()
    seen: set[str] = set()
    shapes: dict[str, int] = {}
    queue = ["/admin/", "/admin/metrics/"]
    findings: dict[str, set[str]] = {}
    while queue:
        path = queue.pop(0)
        response = client.get(path, HTTP_ACCEPT_LANGUAGE=ENGLISH_BROWSER)
        assert response.status_code in (200, 302, 403), (path, response.status_code)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        parser = _Text()
        parser.feed(response.content.decode())
        problems = leaks(" | ".join(parser.chunks), codes=codes, model_names=names)
        if problems and os.environ.get("WALK_DUMP"):
            Path(os.environ["WALK_DUMP"], _shape(path).replace("/", "_")).write_text(" | ".join(parser.chunks))
        if problems:
            findings.setdefault(_shape(path), set()).update(problems)
        for href in parser.links:
            href = _canonical(path, href)
            if href is None or href in seen:
                continue
            seen.add(href)
            shape = _shape(href)
            shapes[shape] = shapes.get(shape, 0) + 1
            if shapes[shape] <= PER_SHAPE:
                queue.append(href)
    assert len(seen) > 40, sorted(seen)  # the crawl reached the desk's pages, not only the index
    assert not findings, "\n".join(f"{page}: {', '.join(sorted(p))}" for page, p in sorted(findings.items()))


def test_every_model_an_operator_sees_is_named_in_korean(operator_user):
    seen = [m for m in admin.site._registry if operator_user.has_perm(f"{m._meta.app_label}.view_{m._meta.model_name}")]
    assert len(seen) > 10
    english = [
        f"{m._meta.label}: {m._meta.verbose_name!s} / {m._meta.verbose_name_plural!s}"
        for m in seen
        if not (HANGUL.search(str(m._meta.verbose_name)) and HANGUL.search(str(m._meta.verbose_name_plural)))
    ]
    assert not english


def test_the_team_desk_reads_korean_on_the_ticket_page_and_list(shop, client, settings):
    """Every event the team desk writes (담당자 변경 by a person and by round robin, 우선순위 변경, a reply by someone
    other than the assignee, 자동 종료), the SLA words and the side panel, on one page, through the same checker."""
    from django.contrib.auth import get_user_model

    from orders.models import Customer
    from tickets.services import (
        operator_availability_set,
        ticket_assign,
        ticket_create,
        ticket_priority_change,
        ticket_reply_add,
        tickets_auto_close,
    )

    settings.CS_AI_DRAFTS_ENABLED = False
    users = get_user_model().objects
    operator, supervisor = users.get(username="operator"), users.get(username="supervisor")
    c003 = Customer.objects.select_related("user").get(pk="C003")
    settings.CS_AUTO_ASSIGN = "round_robin"
    operator_availability_set(available=True, actor=operator)
    settings.CS_NOW = "2026-07-10T10:00:00+09:00"
    ticket = ticket_create(
        customer=c003, category="결제", subject="결제 문의", body="?", source="API", author=c003.user
    )
    ticket_assign(ticket_id=ticket.pk, assignee=supervisor, actor=supervisor)
    ticket_priority_change(ticket_id=ticket.pk, priority="URGENT", actor=supervisor)
    ticket_reply_add(ticket=ticket, body="확인했습니다.", actor=operator)  # not the assignee
    settings.CS_NOW = None
    assert tickets_auto_close() == 1
    client.force_login(operator)
    codes, names = _choice_codes() - _logins(), _english_model_names()
    for path in (
        f"/admin/tickets/ticket/{ticket.pk}/change/",
        "/admin/tickets/ticket/",
        "/admin/tickets/operatorstatus/",
    ):
        response = client.get(path, HTTP_ACCEPT_LANGUAGE=ENGLISH_BROWSER)
        parser = _Text()
        parser.feed(response.content.decode())
        text = " | ".join(parser.chunks)
        assert leaks(text, codes=codes, model_names=names) == [], path
    page = client.get(f"/admin/tickets/ticket/{ticket.pk}/change/").content.decode()
    for words in (
        "담당자 변경",
        "순번제 자동 배정",
        "우선순위 변경",
        "높음 → 긴급",
        "자동 종료",
        "담당자가 답변",
    ):
        assert words in page, words
