"""Acceptance 5: a property-based run over EVERY /api/ endpoint and every admin change page.

Endpoints come from the URL resolver (a new endpoint is fuzzed without anyone listing it) and are called
anonymously, as a customer and as staff, with random JSON bodies (deep nesting, huge strings, non-ASCII
digits, NULs, wrong types), random query strings and random path parameters. Nothing may answer 5xx,
and every /api/ error is JSON whose keys are `code` and `detail` (plus `errors` on validation errors).

Runtime is bounded by the `api-fuzz` hypothesis profile (CS_FUZZ_EXAMPLES examples per test, default 50,
no deadline); set CS_FUZZ_EXAMPLES=2000 for a deeper run.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from urllib.parse import quote, urlencode

import pytest
from django.contrib import admin
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.services import token_issue
from cs_project.tests.helpers import customer_inquiry

pytestmark = pytest.mark.django_db

hsettings.register_profile(
    "api-fuzz",
    max_examples=int(os.environ.get("CS_FUZZ_EXAMPLES", "50")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=os.environ.get("CI") == "true",
)
PROFILE = hsettings.get_profile("api-fuzz")
ERROR_KEYS = {"code", "detail"}
METHODS = ("get", "post", "put", "patch", "delete")
PARAM = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>[^>]+)>")


@dataclass(frozen=True)
class Endpoint:
    route: str  # "/api/tickets/<ticket_number:ticket_id>/"
    methods: tuple[str, ...]

    @property
    def params(self) -> list[str]:
        return [m.group("name") for m in PARAM.finditer(self.route)]

    def path(self, values: dict[str, str]) -> str:
        return PARAM.sub(lambda m: quote(values[m.group("name")], safe=""), self.route)


def _walk(patterns, prefix: str = ""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def api_endpoints() -> list[Endpoint]:
    found = {}
    for route, callback in _walk(get_resolver().url_patterns):
        if not route.startswith("api/"):
            continue
        view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        methods = tuple(m for m in METHODS if view is not None and hasattr(view, m)) or ("get",)
        found["/" + route] = Endpoint("/" + route, methods)
    return sorted(found.values(), key=lambda e: e.route)


def test_the_resolver_finds_every_api_endpoint():
    routes = {e.route for e in api_endpoints()}
    assert "/api/chat/" in routes and "/api/ops/drafts/<id:draft_id>/apply/" in routes
    assert "/api/auth/token/" in routes and "/api/schema/" in routes
    assert len(routes) >= 17


# --- strategies -------------------------------------------------------------------------------------
UNICODE_DIGITS = ["١٢٣", "１２", "߁߂", "۱۲۳۴۵", "𝟏𝟐", "²", "Ⅻ"]
NASTY_TEXT = st.sampled_from(
    ["", " ", "\x00", "a\x00b", "\u202e", "\ud7ff", "null", "[]", "{}", "-1", "0", "1e309", "'; drop table x;--"]
    + UNICODE_DIGITS
)
text = st.text(max_size=40) | NASTY_TEXT | st.sampled_from(["가" * 5000, "x" * 100_000])
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12) | NASTY_TEXT, children, max_size=5)
    ),
    max_leaves=12,
)
FIELDS = ["message", "conversation_id", "body", "subject", "category", "order_id", "final_body", "tags", "approve",
          "note", "username", "password", "override_reason"]  # fmt: skip
bodies_json = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=5) | json_values
RAW_BODIES = [
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 50_000 + "1" + "}" * 50_000,
    "[" * 40 + "]" * 40,
    '{"message": "\\u0000", "body": "\\u0000"}',
    "{not json",
    '{"message": NaN}',
    "\xff\xfe",
    "",
]
raw_bodies = st.sampled_from(RAW_BODIES)


def path_values(name: str) -> st.SearchStrategy[str]:
    canonical = {
        "ticket_id": st.integers(1, 12).map(lambda n: f"T{n:05d}"),
        "action_id": st.integers(1, 6).map(lambda n: f"A{n:05d}"),
        "draft_id": st.integers(0, 12).map(str),
        "product_id": st.sampled_from(["P001", "P002", "P999"]),
        "conversation_id": st.uuids().map(str),
    }.get(name, st.text(max_size=12))
    junk = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20)
    return (
        canonical
        | junk
        | st.sampled_from([f"T{d}" for d in UNICODE_DIGITS] + UNICODE_DIGITS + ["99999999999999999999"])
    )


# --- fixtures ---------------------------------------------------------------------------------------
@pytest.fixture
def clients(shop_knowledge, offline_model, operator_user):
    from fixtures.demo import demo_seed  # noqa: F401  (shop_knowledge seeded the shop)
    from orders.models import Customer

    customer = Customer.objects.select_related("user").get(pk="C003")
    customer_inquiry(customer, body="결제 오류가 나요.")  # with its draft, so draft endpoints reach their services
    out = {"anonymous": APIClient()}
    for role, user in (("customer", customer.user), ("staff", operator_user)):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_issue(user=user, actor=user)[1]}")
        out[role] = client
    for client in out.values():
        client.raise_request_exception = False
    return out


def assert_error_shape(response, where: str) -> None:
    assert response.status_code < 500, (where, response.status_code, response.content[:500])
    if response.status_code >= 400:
        assert response["Content-Type"].startswith("application/json"), (where, response["Content-Type"])
        body = json.loads(response.content)
        assert isinstance(body, dict) and ERROR_KEYS <= set(body), (where, body)
        assert set(body) - ERROR_KEYS <= ({"errors"} if body["code"] == "invalid" else set()), (where, body)
        assert isinstance(body["code"], str) and isinstance(body["detail"], str) and body["detail"], (where, body)


# --- the runs ---------------------------------------------------------------------------------------
ENDPOINT_METHODS = [(e, m) for e in api_endpoints() for m in e.methods]


@dataclass(frozen=True)
class Raw:
    content: str


def send(client, method: str, path: str, body) -> object:
    if method == "get":
        return client.get(path)
    if isinstance(body, Raw):
        return getattr(client, method)(path, body.content, content_type="application/json")
    return getattr(client, method)(path, body, format="json")


@pytest.mark.parametrize(
    "endpoint, method", ENDPOINT_METHODS, ids=[f"{m.upper()} {e.route}" for e, m in ENDPOINT_METHODS]
)
def test_no_5xx_and_only_the_error_shape_on_every_api_endpoint(clients, endpoint, method):
    @PROFILE
    @given(
        data=st.data(),
        role=st.sampled_from(sorted(clients)),
        body=raw_bodies.map(Raw) | bodies_json,
        query=st.dictionaries(st.sampled_from(["status", "category", "limit", "offset", "format"]), text, max_size=3),
    )
    def run(data, role, body, query):
        path = endpoint.path({name: data.draw(path_values(name), label=name) for name in endpoint.params})
        if query:
            path += "?" + urlencode(query)
        response = send(clients[role], method, path, body)
        assert_error_shape(response, f"{role} {method.upper()} {path[:200]}")

    run()


EXISTING = {
    "ticket_id": "T00001",
    "action_id": "A00001",
    "draft_id": "1",
    "product_id": "P001",
    "conversation_id": "00000000-0000-0000-0000-000000000000",
}


@pytest.mark.parametrize("role", ["anonymous", "customer", "staff"])
def test_every_hostile_raw_body_on_every_endpoint_and_method(clients, role):
    """The hostile bodies deterministically, on every route and every method (allowed or not)."""
    for endpoint in api_endpoints():
        path = endpoint.path({name: EXISTING.get(name, "1") for name in endpoint.params})
        for method in METHODS[1:]:
            for raw in RAW_BODIES:
                assert_error_shape(send(clients[role], method, path, Raw(raw)), f"{role} {method} {path} {raw[:20]}")


def test_no_5xx_on_admin_change_pages_with_random_ids(clients, admin_client):
    admin_client.raise_request_exception = False
    models = sorted((m._meta.app_label, m._meta.model_name) for m in admin.site._registry)

    @PROFILE
    @given(
        model=st.sampled_from(models),
        object_id=st.integers(0, 30).map(str)
        | st.sampled_from(["abc", "T00001", "P001", "C003", "HR20260726002", "99999999999999999999", "-1", "1.5"])
        | st.sampled_from(UNICODE_DIGITS)
        | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=15),
    )
    def run(model, object_id):
        app_label, model_name = model
        url = f"/admin/{app_label}/{model_name}/{quote(object_id, safe='')}/change/"
        response = admin_client.get(url)
        assert response.status_code < 500, (url, response.status_code)

    run()
