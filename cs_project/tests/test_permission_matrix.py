"""Least privilege: who reaches what. Six roles × every `/api/ops/` endpoint and every admin page that shows
customer data, with the expected status of each cell written out below.

Roles: anonymous; a customer (c003, token); staff with no permissions; view-only staff (every `view_*` of the
desk's apps, nothing else); the demo `operator` (views + `drafts.review` + `actions.decide` + `tickets.reply_ticket`
+ a few changes); the demo `supervisor` (the operator's, and `tickets.assign_ticket`); the demo `admin` superuser.

Writes are sent with an invalid body: a role that passes the permission gate gets 400 from validation, so the
matrix changes nothing (asserted at the end) while still proving who may write. Assignment is the exception: who
may assign depends on whom to (one's own tickets, or someone else), so those rows send real requests on tickets
of their own and the end states are asserted.
"""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt, AccessLog
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AuthToken
from accounts.services import token_issue
from actions.models import ActionEvent, ActionRecord
from actions.tests.factories import defect_refund
from chat.models import Conversation, ToolCall
from cs_project.tests.helpers import customer_inquiry
from diagnostics.models import ServiceEvent
from drafts.models import DeadLetter, Draft
from llm.models import LLMCall
from orders.models import Customer, Order
from orders.services import OPERATOR_APPS
from tickets.models import Ticket

pytestmark = pytest.mark.django_db(transaction=True)

ROLES = ("anonymous", "customer", "staff", "viewer", "operator", "supervisor", "superuser")


@pytest.fixture
def world(shop_knowledge, offline_model):
    """One of everything the pages show: a ticket with its live draft and diagnosis, a pending refund with its
    events, a chat conversation with tool calls, a dead letter, model calls, service events, a token, a failed
    login."""
    from tickets.services import ticket_create

    c003 = Customer.objects.select_related("user").get(pk="C003")
    c005 = Customer.objects.select_related("user").get(pk="C005")
    ticket = customer_inquiry(c005)
    draft = Draft.objects.get(ticket=ticket, status="GENERATED")
    assert draft.diagnosis  # the error inquiry carries an operator-only diagnosis
    record = defect_refund("사이즈가 달라요(상품하자)")
    _, key = token_issue(user=c003.user, actor=c003.user)
    customer_api = APIClient()
    customer_api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert customer_api.post("/api/chat/", {"message": "내 주문 보여줘"}, format="json").status_code == 200
    dead = DeadLetter.objects.create(ticket=ticket, source_message=draft.source_message, error="test")
    AccessAttempt.objects.create(
        username="c003", ip_address="10.0.0.1", user_agent="x", failures_since_start=1, attempt_time=timezone.now()
    )

    User = get_user_model()
    users = {
        "customer": c003.user,
        "staff": User.objects.create_user("staff-bare", password="x", is_staff=True),
        "viewer": User.objects.create_user("staff-viewer", password="x", is_staff=True),
        "operator": User.objects.get(username="operator"),
        "supervisor": User.objects.get(username="supervisor"),
        "superuser": User.objects.get(username="admin"),
    }
    users["viewer"].user_permissions.add(
        *Permission.objects.filter(content_type__app_label__in=OPERATOR_APPS, codename__startswith="view_")
    )
    # One ticket per assignment row (a row's requests change it): to take, to give to someone else, to release.
    from tickets.services import ticket_assign

    assignable = {}
    for name in ("take", "give", "release"):
        assignable[name] = ticket_create(
            customer=c005, category="배송", subject=name, body="언제 와요?", source="API", author=c005.user
        )
    ticket_assign(ticket_id=assignable["release"].pk, assignee=users["operator"], actor=users["operator"])
    return {
        "ticket": ticket,
        "draft": draft,
        "record": record,
        "dead": dead,
        "users": users,
        "assignable": assignable,
    }


def _api(role: str, users: dict) -> APIClient:
    client = APIClient()
    if role != "anonymous":
        _, key = token_issue(user=users[role], actor=users[role])
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def _table(rows: dict, probe) -> dict:
    return {name: tuple(probe(role, name, request) for role in ROLES) for name, request in rows.items()}


def test_ops_api_matrix(world):
    t, d, r = world["ticket"].number, world["draft"].pk, world["record"].number
    take, give, release = (world["assignable"][name].number for name in ("take", "give", "release"))
    bad = {"tags": "not-a-list"}
    endpoints = {
        "GET tickets": ("get", "/api/ops/tickets/", None),
        "GET ticket": ("get", f"/api/ops/tickets/{t}/", None),
        "POST apply": ("post", f"/api/ops/drafts/{d}/apply/", bad),
        "POST reject": ("post", f"/api/ops/drafts/{d}/reject/", bad),
        "POST decide": ("post", f"/api/ops/actions/{r}/decide/", {}),
        "POST priority": ("post", f"/api/ops/tickets/{t}/priority/", {"priority": "ASAP"}),
        "POST presence": ("post", f"/api/ops/tickets/{t}/presence/", {"typing": "yes"}),
        "POST take (me)": ("post", f"/api/ops/tickets/{take}/assign/", {"assignee": "me"}),
        "POST give (someone else)": ("post", f"/api/ops/tickets/{give}/assign/", {"assignee": "admin"}),
        "POST release (own)": ("post", f"/api/ops/tickets/{release}/assign/", {"assignee": None}),
        "GET customer": ("get", "/api/ops/customers/C003/", None),
        "GET order": ("get", "/api/ops/orders/HR20260721001/", None),
        "GET draft": ("get", f"/api/ops/drafts/{d}/", None),
        "POST customer export": ("post", "/api/ops/customers/C003/export/", {}),
        "GET staff schema": ("get", "/api/ops/schema/?format=json", None),
        "GET staff docs": ("get", "/api/ops/docs/", None),
        "GET public schema": ("get", "/api/schema/?format=json", None),
    }
    expected = {  # anonymous, customer, staff, viewer, operator, supervisor, superuser
        "GET tickets": (401, 403, 403, 200, 200, 200, 200),
        "GET ticket": (401, 403, 403, 200, 200, 200, 200),
        "POST apply": (401, 403, 403, 403, 400, 400, 400),
        "POST reject": (401, 403, 403, 403, 400, 400, 400),
        "POST decide": (401, 403, 403, 403, 400, 400, 400),
        "POST priority": (401, 403, 403, 403, 400, 400, 400),
        # "I have this ticket open": whoever may read the ticket (it changes nothing about it).
        "POST presence": (401, 403, 403, 400, 400, 400, 400),
        # Anyone who answers tickets takes one for themselves; taking it from someone else needs assign_ticket
        # (the supervisor takes it from the operator, then the superuser from the supervisor).
        "POST take (me)": (401, 403, 403, 403, 200, 200, 200),
        # Giving a ticket to someone else needs tickets.assign_ticket: the operator may not, the supervisor may.
        "POST give (someone else)": (401, 403, 403, 403, 403, 200, 200),
        # The operator releases their own ticket (the others then find nothing to release).
        "POST release (own)": (401, 403, 403, 403, 200, 200, 200),
        # A customer's own data, each read recorded in the access log (privacy): whoever may view it.
        "GET customer": (401, 403, 403, 200, 200, 200, 200),
        "GET order": (401, 403, 403, 200, 200, 200, 200),
        "GET draft": (401, 403, 403, 200, 200, 200, 200),
        # An export without a reason is refused (400) for everyone allowed to export at all.
        "POST customer export": (401, 403, 403, 400, 400, 400, 400),
        "GET staff schema": (401, 403, 200, 200, 200, 200, 200),
        "GET staff docs": (401, 403, 200, 200, 200, 200, 200),
        "GET public schema": (200, 200, 200, 200, 200, 200, 200),
    }
    clients = {role: _api(role, world["users"]) for role in ROLES}
    bodies = {}

    def probe(role, name, request):
        method, path, body = request
        response = (
            getattr(clients[role], method)(path, body, format="json")
            if body is not None
            else (getattr(clients[role], method)(path))
        )
        bodies[(role, name)] = response
        return response.status_code

    assert _table(endpoints, probe) == expected

    # Every refusal of a signed-in user is the JSON error shape with a stable code.
    for (role, name), response in bodies.items():
        if response.status_code == 403 and endpoints[name][1].startswith(
            ("/api/ops/tickets/", "/api/ops/drafts/", "/api/ops/actions/", "/api/ops/customers/", "/api/ops/orders/")
        ):
            assert response.json()["code"] == "permission_denied" and response.json()["detail"], (role, name)
    # Nothing changed but the assignments, which ended where the last allowed request put them.
    assert Draft.objects.get(pk=d).status == "GENERATED"
    assert ActionRecord.objects.get(pk=world["record"].pk).status == "PENDING"
    assert Ticket.objects.get(pk=world["ticket"].pk).priority == "HIGH"  # 오류 inquiry, unchanged
    held = {name: Ticket.objects.get(pk=t.pk).assignee for name, t in world["assignable"].items()}
    assert {name: user.username if user else None for name, user in held.items()} == {
        "take": "admin",
        "give": "admin",
        "release": None,
    }
    assert [
        (e.actor_label, e.payload["before"], e.payload["after"])
        for e in world["assignable"]["give"].events.filter(type="ASSIGNED").order_by("id")
    ] == [("supervisor", None, "admin")]
    # The public schema documents no staff endpoint; the staff schema documents all of them.
    public = bodies[("anonymous", "GET public schema")].json()["paths"]
    staff = bodies[("staff", "GET staff schema")].json()["paths"]
    assert not [p for p in public if p.startswith("/api/ops/")]
    assert {
        "/api/ops/tickets/",
        "/api/ops/tickets/{ticket_id}/",
        "/api/ops/drafts/{draft_id}/apply/",
        "/api/ops/drafts/{draft_id}/reject/",
        "/api/ops/actions/{action_id}/decide/",
        "/api/ops/tickets/{ticket_id}/assign/",
        "/api/ops/tickets/{ticket_id}/priority/",
        "/api/ops/tickets/{ticket_id}/presence/",
        "/api/ops/customers/{customer_id}/",
        "/api/ops/customers/{customer_id}/export/",
        "/api/ops/orders/{order_id}/",
        "/api/ops/drafts/{draft_id}/",
    } <= set(staff)
    assert "/api/auth/logout/" in public and "/api/chat/" in staff


def _admin_pages(world) -> dict[str, str]:
    def change(model, pk) -> str:
        return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[pk])

    def changelist(model, query: str = "") -> str:
        return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist") + query

    conversation = Conversation.objects.get()
    return {
        "tickets": changelist(Ticket),
        "ticket (review page)": change(Ticket, world["ticket"].pk),
        "drafts": changelist(Draft),
        "draft": change(Draft, world["draft"].pk),
        "dead letters": changelist(DeadLetter),
        "dead letter": change(DeadLetter, world["dead"].pk),
        "actions": changelist(ActionRecord, f"?status__exact={ActionRecord.Status.PENDING}"),
        "action": change(ActionRecord, world["record"].pk),
        "action events": changelist(ActionEvent),
        "action event": change(ActionEvent, ActionEvent.objects.first().pk),
        "conversations": changelist(Conversation),
        "conversation": change(Conversation, conversation.pk),
        "tool calls": changelist(ToolCall),
        "tool call": change(ToolCall, ToolCall.objects.first().pk),
        "orders": changelist(Order),
        "order": change(Order, "HR20260721001"),
        "customers": changelist(Customer),
        "customer": change(Customer, "C003"),
        "service events": changelist(ServiceEvent),
        "service event": change(ServiceEvent, ServiceEvent.objects.first().pk),
        "model calls": changelist(LLMCall),
        "model call": change(LLMCall, LLMCall.objects.first().pk),
        "login tokens": changelist(AuthToken),
        "login token": change(AuthToken, AuthToken.objects.first().pk),
        "users": changelist(get_user_model()),
        "user": change(get_user_model(), world["users"]["customer"].pk),
        "failed logins": changelist(AccessAttempt),
        "failed login": change(AccessAttempt, AccessAttempt.objects.first().pk),
        "login log": changelist(AccessLog),
        "login log entry": change(AccessLog, AccessLog.objects.first().pk),
        "metrics dashboard": reverse("metrics:dashboard"),
        "metrics dashboard (JSON)": reverse("metrics:dashboard") + "?format=json",
    }


def test_admin_pages_matrix(world):
    # anonymous and the customer are sent to the login page (302); staff without a view permission get 403.
    desk = (302, 302, 403, 200, 200, 200, 200)  # the desk's own data: the operator's view_* permissions
    accounts = (302, 302, 403, 403, 403, 403, 200)  # users, tokens, login failures: superuser only
    expected = {
        "tickets": desk,
        "ticket (review page)": desk,
        "drafts": desk,
        "draft": desk,
        "dead letters": desk,
        "dead letter": desk,
        "actions": desk,
        "action": desk,
        "action events": desk,
        "action event": desk,
        "conversations": desk,
        "conversation": desk,
        "tool calls": desk,
        "tool call": desk,
        "orders": desk,
        "order": desk,
        "customers": desk,
        "customer": desk,
        "service events": desk,
        "service event": desk,
        "model calls": desk,
        "model call": desk,
        "login tokens": accounts,
        "login token": accounts,
        "users": accounts,
        "user": accounts,
        "failed logins": accounts,
        "failed login": accounts,
        "login log": accounts,
        "login log entry": accounts,
        # metrics.view_dashboard: the operator's (and the viewer's) view_* permissions include it; is_staff does not.
        "metrics dashboard": desk,
        "metrics dashboard (JSON)": desk,
    }
    clients = {}
    for role in ROLES:
        clients[role] = Client()
        if role != "anonymous":
            clients[role].force_login(world["users"][role])  # also writes django-axes' login log

    def probe(role, name, path):
        return clients[role].get(path).status_code

    assert _table(_admin_pages(world), probe) == expected
