"""API views that compose several apps (a face: it may read every floor below it)."""

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from actions.models import ActionRecord
from actions.policy import customer_status_message
from actions.selectors import action_record_list
from common.apis import CustomerThrottle, IsCustomer
from tickets.apis import TicketOutputSerializer
from tickets.selectors import customer_ticket_list

REQUESTS_LIMIT = 100


class RequestListApi(APIView):
    """The customer's action records and tickets, newest first."""

    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema_serializer(component_name="CustomerActionRecord")
    class ActionSerializer(serializers.ModelSerializer):
        action_id = serializers.CharField(source="number")
        kind_display = serializers.CharField(source="get_kind_display")
        status_display = serializers.CharField(source="status_label")
        detail = serializers.CharField(source="summary")
        status_message = serializers.SerializerMethodField(help_text="이 상태에서 고객이 읽는 안내 한 줄")

        def get_status_message(self, record: ActionRecord) -> str:
            return customer_status_message(record.kind, record.status)

        class Meta:
            model = ActionRecord
            fields = (
                "action_id",
                "kind",
                "kind_display",
                "order_id",
                "status",
                "status_display",
                "status_message",
                "detail",
                "created_at",
            )

    @extend_schema_serializer(component_name="CustomerRequests")
    class OutputSerializer(serializers.Serializer):
        actions = serializers.ListField()
        tickets = serializers.ListField()

    @extend_schema(responses={200: OutputSerializer}, summary="내 처리 기록과 문의")
    def get(self, request):
        records = action_record_list(customer=request.customer)[:REQUESTS_LIMIT]
        tickets = customer_ticket_list(customer=request.customer)[:REQUESTS_LIMIT]
        return Response(
            {
                "actions": self.ActionSerializer(records, many=True).data,
                "tickets": TicketOutputSerializer(tickets, many=True).data,
            }
        )
