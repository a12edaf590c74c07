"""The OpenAPI schema validates, and a property-based run over it finds no 5xx on customer endpoints."""

import json

import pytest
from django.core.management import call_command
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from orders.tests.factories import orders_in_every_state

pytestmark = pytest.mark.django_db

CUSTOMER_PATHS = ("/api/chat/", "/api/orders/", "/api/products/", "/api/requests/", "/api/tickets/")


def _schema() -> dict:
    from io import StringIO

    out = StringIO()
    call_command("spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", stdout=out)
    return json.loads(out.getvalue())


def test_schema_validates_and_lists_every_endpoint():
    paths = _schema()["paths"]
    for path in (
        "/api/auth/token/",
        "/api/chat/",
        "/api/chat/{conversation_id}/",
        "/api/orders/",
        "/api/products/{product_id}/",
        "/api/requests/",
        "/api/tickets/",
        "/api/tickets/{ticket_id}/",
    ):
        assert path in paths


def _resolve(schema: dict, node: dict) -> dict:
    """Inline $refs so hypothesis-jsonschema can generate from a request body schema."""
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            return _resolve(schema, schema["components"]["schemas"][name])
        return {k: _resolve(schema, v) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(schema, v) for v in node]
    return node


def from_schema(node: dict) -> st.SearchStrategy:
    """A small JSON-Schema → strategy for the shapes our request bodies use (objects, strings, uuids)."""
    kind = node.get("type")
    if "oneOf" in node or "anyOf" in node:
        return st.one_of([from_schema(n) for n in node.get("oneOf") or node["anyOf"]])
    if kind == "object":
        props = node.get("properties", {})
        required = set(node.get("required", []))
        return st.fixed_dictionaries(
            {k: from_schema(v) for k, v in props.items() if k in required},
            optional={k: from_schema(v) for k, v in props.items() if k not in required},
        )
    if kind == "string":
        strategy = (
            st.uuids().map(str)
            if node.get("format") == "uuid"
            else st.text(min_size=node.get("minLength", 0), max_size=min(node.get("maxLength", 200), 4100))
        )
        return (st.none() | strategy) if node.get("nullable") else strategy
    if kind == "integer":
        return st.integers()
    if kind == "boolean":
        return st.booleans()
    return st.none()


junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=50),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=10,
)


def test_no_5xx_on_customer_endpoints_under_generated_input(customer, customer_api, offline_model):
    orders_in_every_state(customer)  # so that what the generated messages ask about can be found
    schema = _schema()
    chat_body = _resolve(
        schema, schema["paths"]["/api/chat/"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    )
    path_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/?#%"), max_size=20)

    @hsettings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(body=from_schema(chat_body) | junk)
    def post_chat(body):
        response = customer_api.post("/api/chat/", body, format="json")
        assert response.status_code < 500, (body, response.content)

    @hsettings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        template=st.sampled_from(sorted(p for p in schema["paths"] if p.startswith(CUSTOMER_PATHS))), value=path_text
    )
    def get_paths(template, value):
        if "get" not in schema["paths"][template]:
            return
        path = template.replace("{conversation_id}", value or "x").replace("{product_id}", value or "x")
        path = path.replace("{ticket_id}", value or "x")
        response = customer_api.get(path)
        assert response.status_code < 500, (path, response.content)

    post_chat()
    get_paths()
