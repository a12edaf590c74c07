"""Two OpenAPI documents: the public one leaves out /api/ops/, the staff one (staff only) has everything;
both validate without warnings and document the auth endpoints' error statuses."""

from testsupport.schema import openapi_document


def test_public_schema_has_no_staff_endpoint_and_staff_schema_has_them_all():
    public = openapi_document()["paths"]
    staff = openapi_document(staff=True)["paths"]
    assert not [p for p in public if p.startswith("/api/ops/")]
    assert sorted(p for p in staff if p.startswith("/api/ops/")) == [
        "/api/ops/actions/{action_id}/decide/",
        "/api/ops/customers/{customer_id}/",
        "/api/ops/customers/{customer_id}/export/",
        "/api/ops/drafts/{draft_id}/",
        "/api/ops/drafts/{draft_id}/apply/",
        "/api/ops/drafts/{draft_id}/reject/",
        "/api/ops/orders/{order_id}/",
        "/api/ops/tickets/",
        "/api/ops/tickets/{ticket_id}/",
        "/api/ops/tickets/{ticket_id}/assign/",
        "/api/ops/tickets/{ticket_id}/presence/",
        "/api/ops/tickets/{ticket_id}/priority/",
        "/api/ops/tickets/{ticket_id}/reply/",
    ]
    assert set(public) <= set(staff)


def test_login_and_logout_document_their_error_statuses():
    paths = openapi_document()["paths"]
    login = paths["/api/auth/token/"]["post"]
    assert {"200", "400", "429"} <= set(login["responses"])  # with every error status (common.openapi)
    assert login.get("security", []) in ([], [{}])  # anonymous: no token needed
    logout = paths["/api/auth/logout/"]["post"]
    assert {"204", "401"} <= set(logout["responses"])
    assert logout["security"] == [{"tokenAuth": []}]
