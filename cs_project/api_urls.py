from django.urls import path
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.apis import AuthLoginApi, AuthLogoutApi
from actions.apis import OpsActionDecideApi
from chat.apis import ChatTurnApi, ConversationDetailApi
from common import converters
from cs_project.apis import RequestListApi
from cs_project.live import LiveChangesApi
from drafts.apis import OpsDraftApplyApi, OpsDraftRejectApi
from orders.apis import CustomerNoticesApi, OrderListApi, ProductDetailApi
from orders.models import PRODUCT_ID_PATTERN
from tickets.apis import (
    OpsTicketAssignApi,
    OpsTicketDetailApi,
    OpsTicketListApi,
    OpsTicketPresenceApi,
    OpsTicketPriorityApi,
    OpsTicketReplyApi,
    TicketDetailApi,
    TicketListCreateApi,
    TicketMessageCreateApi,
    TicketRatingApi,
)

converters.register(product_pattern=PRODUCT_ID_PATTERN)


class PingApi(APIView):
    """Authenticated constant answer: a client's check that its token works (and the benchmarks' baseline
    for what the framework alone costs per request)."""

    @extend_schema(responses={200: inline_serializer("Ping", {"ok": serializers.BooleanField()})}, summary="인증 확인")
    def get(self, request):
        return Response({"ok": True})


urlpatterns = [
    path("ping/", PingApi.as_view(), name="api-ping"),
    path("auth/token/", AuthLoginApi.as_view(), name="api-token"),
    path("auth/logout/", AuthLogoutApi.as_view(), name="api-logout"),
    path("chat/", ChatTurnApi.as_view(), name="api-chat"),
    path("chat/<uuid:conversation_id>/", ConversationDetailApi.as_view(), name="api-chat-detail"),
    path("orders/", OrderListApi.as_view(), name="api-orders"),
    path("products/<product_id:product_id>/", ProductDetailApi.as_view(), name="api-product"),
    path("requests/", RequestListApi.as_view(), name="api-requests"),
    path("live/", LiveChangesApi.as_view(), name="api-live"),
    path("tickets/", TicketListCreateApi.as_view(), name="api-tickets"),
    path("tickets/<ticket_number:ticket_id>/", TicketDetailApi.as_view(), name="api-ticket-detail"),
    path("tickets/<ticket_number:ticket_id>/messages/", TicketMessageCreateApi.as_view(), name="api-ticket-messages"),
    path("tickets/<ticket_number:ticket_id>/rating/", TicketRatingApi.as_view(), name="api-ticket-rating"),
    path("me/notices/", CustomerNoticesApi.as_view(), name="api-me-notices"),
    # Staff only, and each view names the Django permissions it needs (common.apis.IsStaff); services check again.
    # Documented in the staff schema (/api/ops/schema/), not the public one.
    path("ops/tickets/", OpsTicketListApi.as_view(), name="api-ops-tickets"),
    path("ops/tickets/<ticket_number:ticket_id>/", OpsTicketDetailApi.as_view(), name="api-ops-ticket-detail"),
    path("ops/tickets/<ticket_number:ticket_id>/reply/", OpsTicketReplyApi.as_view(), name="api-ops-ticket-reply"),
    path("ops/tickets/<ticket_number:ticket_id>/assign/", OpsTicketAssignApi.as_view(), name="api-ops-ticket-assign"),
    path(
        "ops/tickets/<ticket_number:ticket_id>/presence/",
        OpsTicketPresenceApi.as_view(),
        name="api-ops-ticket-presence",
    ),
    path(
        "ops/tickets/<ticket_number:ticket_id>/priority/",
        OpsTicketPriorityApi.as_view(),
        name="api-ops-ticket-priority",
    ),
    path("ops/drafts/<id:draft_id>/apply/", OpsDraftApplyApi.as_view(), name="api-ops-draft-apply"),
    path("ops/drafts/<id:draft_id>/reject/", OpsDraftRejectApi.as_view(), name="api-ops-draft-reject"),
    path("ops/actions/<action_number:action_id>/decide/", OpsActionDecideApi.as_view(), name="api-ops-action-decide"),
]
