from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from common.apis import CustomerThrottle, IsCustomer, TicketMessageThrottle
from common.budget import model_budget_charge
from common.errors import InvalidState
from common.fields import StrictCharField
from orders.selectors import customer_order_get
from tickets.models import Ticket, TicketMessage
from tickets.selectors import customer_ticket_get, customer_ticket_list, customer_visible_messages
from tickets.services import BODY_MAX, SUBJECT_MAX, ticket_create, ticket_message_add, ticket_seen_by_customer

# Customers may send the code or the Korean label people read (배송, 교환/반품, 결제, 계정, 오류, 기타 …).
CATEGORY_INPUT_CHOICES = [*Ticket.Category.values, *Ticket.Category.labels]


class TicketOutputSerializer(serializers.ModelSerializer):
    ticket_id = serializers.CharField(source="number")
    category_display = serializers.CharField(source="get_category_display")
    status_display = serializers.CharField(source="get_status_display")
    unread = serializers.IntegerField(
        default=0, read_only=True, help_text="고객이 마지막으로 연 뒤 온 상담원 답변 수 (목록에서만)"
    )
    chat_conversation_id = serializers.UUIDField(read_only=True, allow_null=True, help_text="이 문의를 연 채팅 대화")

    class Meta:
        model = Ticket
        fields = (
            "ticket_id",
            "category",
            "category_display",
            "subject",
            "status",
            "status_display",
            "unread",
            "chat_conversation_id",
            "created_at",
            "updated_at",
        )


class TicketMessageSerializer(serializers.ModelSerializer):
    author_display = serializers.CharField(source="get_author_type_display")

    class Meta:
        model = TicketMessage
        fields = ("author_type", "author_display", "body", "created_at")


class TicketDetailApi(APIView):
    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema_serializer(component_name="TicketDetail")
    class OutputSerializer(TicketOutputSerializer):
        messages = TicketMessageSerializer(many=True, source="visible_messages")

        class Meta(TicketOutputSerializer.Meta):
            fields = (*TicketOutputSerializer.Meta.fields, "messages")

    @extend_schema(
        responses={200: OutputSerializer}, summary="티켓과 메시지 (본인 티켓만; 연 시각까지의 답변은 읽음 처리)"
    )
    def get(self, request, ticket_id: str):
        ticket = customer_ticket_get(customer=request.customer, ticket_id=ticket_id)
        ticket_seen_by_customer(ticket=ticket, actor=request.user)
        ticket.visible_messages = customer_visible_messages(ticket)
        return Response(self.OutputSerializer(ticket).data)


class TicketListCreateApi(APIView):
    """GET: the customer's tickets. POST: open an inquiry — stored first; the reply draft for an operator
    is prepared after commit."""

    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema_serializer(component_name="TicketCreateInput")
    class InputSerializer(serializers.Serializer):
        category = serializers.ChoiceField(
            choices=CATEGORY_INPUT_CHOICES,
            required=False,
            default=Ticket.Category.OTHER,
            help_text="분류 코드(DELIVERY …) 또는 한국어 이름(배송, 교환/반품, 결제, 계정, 오류, 기타 …)",
        )
        subject = StrictCharField(max_length=SUBJECT_MAX, required=False, allow_blank=True, default="")
        body = StrictCharField(max_length=BODY_MAX, trim_whitespace=True)
        order_id = StrictCharField(max_length=20, required=False, allow_blank=True, default="")

    @extend_schema(responses={200: TicketOutputSerializer(many=True)}, summary="내 문의 티켓")
    def get(self, request):
        tickets = customer_ticket_list(customer=request.customer)[:100]
        return Response(TicketOutputSerializer(tickets, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: TicketDetailApi.OutputSerializer}, summary="문의 접수")
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        order = None
        if values["order_id"]:
            order = customer_order_get(customer=request.customer, order_id=values["order_id"])
        # The inquiry starts the draft pipeline: its model calls count against the customer's budget.
        model_budget_charge(customer_id=request.customer.pk, calls=settings.CS_MODEL_BUDGET_DRAFT_COST)
        ticket = ticket_create(
            customer=request.customer,
            category=values["category"],
            subject=values["subject"] or values["body"][:40],
            body=values["body"],
            source=Ticket.Source.API,
            author=request.user,
            order=order,
        )
        ticket.visible_messages = customer_visible_messages(ticket)
        return Response(TicketDetailApi.OutputSerializer(ticket).data, status=201)


class TicketMessageCreateApi(APIView):
    """A follow-up on the customer's own ticket; reopens it and asks for a fresh draft."""

    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle, TicketMessageThrottle]

    @extend_schema_serializer(component_name="TicketMessageCreateInput")
    class InputSerializer(serializers.Serializer):
        body = StrictCharField(max_length=BODY_MAX, trim_whitespace=True)

    @extend_schema(
        request=InputSerializer, responses={201: TicketDetailApi.OutputSerializer}, summary="문의에 추가 메시지"
    )
    def post(self, request, ticket_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ticket = customer_ticket_get(customer=request.customer, ticket_id=ticket_id)
        if ticket.status == Ticket.Status.CLOSED:
            raise InvalidState("종료된 문의입니다. 새 문의로 접수해 주세요.", code="ticket_closed")
        model_budget_charge(customer_id=request.customer.pk, calls=settings.CS_MODEL_BUDGET_DRAFT_COST)
        ticket_message_add(ticket=ticket, body=data.validated_data["body"], author=request.user)
        ticket_seen_by_customer(ticket=ticket, actor=request.user)  # they are reading the thread they answer
        ticket.refresh_from_db()
        ticket.visible_messages = customer_visible_messages(ticket)
        return Response(TicketDetailApi.OutputSerializer(ticket).data, status=201)
