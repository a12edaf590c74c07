from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from common.apis import CustomerThrottle, IsCustomer
from common.errors import NotFound
from common.numbering import parse_number
from tickets.models import Ticket, TicketMessage


class TicketOutputSerializer(serializers.ModelSerializer):
    ticket_id = serializers.CharField(source="number")
    category_display = serializers.CharField(source="get_category_display")
    status_display = serializers.CharField(source="get_status_display")

    class Meta:
        model = Ticket
        fields = ("ticket_id", "category", "category_display", "subject", "status", "status_display", "created_at")


class TicketMessageSerializer(serializers.ModelSerializer):
    author_display = serializers.CharField(source="get_author_type_display")

    class Meta:
        model = TicketMessage
        fields = ("author_type", "author_display", "body", "created_at")


class TicketListApi(APIView):
    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema(responses={200: TicketOutputSerializer(many=True)}, summary="내 문의 티켓")
    def get(self, request):
        tickets = Ticket.objects.filter(customer=request.customer).order_by("-id")[:100]
        return Response(TicketOutputSerializer(tickets, many=True).data)


def customer_ticket_get(*, customer, ticket_id: str) -> Ticket:
    pk = parse_number("T", ticket_id)
    ticket = Ticket.objects.filter(pk=pk, customer=customer).first() if pk else None
    if ticket is None:
        raise NotFound("티켓을 찾을 수 없습니다.")
    return ticket


class TicketDetailApi(APIView):
    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema_serializer(component_name="TicketDetail")

    class OutputSerializer(TicketOutputSerializer):
        messages = TicketMessageSerializer(many=True, source="visible_messages")

        class Meta(TicketOutputSerializer.Meta):
            fields = (*TicketOutputSerializer.Meta.fields, "messages")

    @extend_schema(responses={200: OutputSerializer}, summary="티켓과 메시지 (본인 티켓만)")
    def get(self, request, ticket_id: str):
        ticket = customer_ticket_get(customer=request.customer, ticket_id=ticket_id)
        # System notes are for operators; customers see their own words and operator replies.
        ticket.visible_messages = ticket.messages.exclude(author_type=TicketMessage.Author.SYSTEM)
        return Response(self.OutputSerializer(ticket).data)
