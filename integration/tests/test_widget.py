"""The widget: the launcher script, and a frame only the integration's allowed origins may embed."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from integration import policy
from integration.tests.factories import CUSTOMER_ID, make_integration, seed_shop

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("origins", "expected"),
    [
        ([], "'none'"),
        (["https://shop.example"], "https://shop.example"),
        (["https://Shop.example/", "http://127.0.0.1:8080"], "https://shop.example http://127.0.0.1:8080"),
        (["*", "https://*.example", "javascript:alert(1)", "https://a.example/path"], "'none'"),
    ],
)
def test_frame_ancestors_is_exactly_the_allowed_list_never_wider(origins, expected):
    assert policy.frame_ancestors(origins) == expected


def test_widget_js_is_served_as_javascript():
    response = Client().get("/widget.js")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/javascript")
    assert b"/widget/" in response.content and b"data-integration" in response.content


def test_the_frame_carries_the_integrations_frame_ancestors_and_no_x_frame_options():
    make_integration(allowed_origins=["https://shop.example"])
    response = Client().get("/widget/myshop/")
    assert response.status_code == 200
    assert response["Content-Security-Policy"] == "frame-ancestors https://shop.example"
    assert "X-Frame-Options" not in response


def test_an_integration_without_origins_cannot_be_framed_and_an_unknown_one_is_404():
    make_integration()
    assert Client().get("/widget/myshop/")["Content-Security-Policy"] == "frame-ancestors 'none'"
    assert Client().get("/widget/nope/").status_code == 404


def test_cors_on_the_shop_session_follows_the_allowed_origins():
    issued = make_integration(allowed_origins=["https://shop.example"])
    seed_shop(issued)
    client = Client()
    allowed = client.options("/api/auth/shop-session/", HTTP_ORIGIN="https://shop.example")
    refused = client.options("/api/auth/shop-session/", HTTP_ORIGIN="https://evil.example")
    assert allowed["Access-Control-Allow-Origin"] == "https://shop.example"
    assert "Access-Control-Allow-Origin" not in refused
    expires_at = int(time.time()) + 300
    body = {
        "integration": "myshop",
        "customer_id": CUSTOMER_ID,
        "expires_at": expires_at,
        "signature": policy.session_signature(issued.signing_secret, CUSTOMER_ID, expires_at),
    }
    evil = client.post(
        "/api/auth/shop-session/", body, content_type="application/json", HTTP_ORIGIN="https://evil.example"
    )
    assert "Access-Control-Allow-Origin" not in evil
    ok = client.post(
        "/api/auth/shop-session/",
        body
        | {
            "expires_at": expires_at + 1,
            "signature": policy.session_signature(issued.signing_secret, CUSTOMER_ID, expires_at + 1),
        },
        content_type="application/json",
        HTTP_ORIGIN="https://shop.example",
    )
    assert ok.status_code == 200 and ok["Access-Control-Allow-Origin"] == "https://shop.example"
