"""The ticket APIs: customers' own inquiries (/api/tickets/) and the staff desk (/api/ops/tickets/)."""

from __future__ import annotations

import re
from datetime import datetime

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import Actor
from common.apis import CustomerThrottle, IsCustomer, IsStaff, TicketMessageThrottle, UsernameField
from common.budget import model_budget_charge
from common.business_hours import after_hours_notice, business_calendar
from common.errors import InvalidState
from common.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from orders.selectors import customer_order_get
from privacy.access import Action, ObjectType, Surface, access_note, api_view_note
from tickets.api_parts import ops_ticket_parts
from tickets.models import Ticket, TicketMessage
from tickets.policy import CSAT_COMMENT_MAX, CSAT_MAX, CSAT_MIN, OVERRIDE_REASON_MAX, SLA_STATE_LABELS, can_rate
from tickets.presence import presence_beat, presence_leave, presence_list
from tickets.selectors import (
    UNASSIGNED,
    SlaView,
    customer_ticket_get,
    customer_ticket_list,
    customer_visible_messages,
    operator_get,
    sla_snapshot,
    ticket_get,
    ticket_list,
    ticket_rating_of,
    ticket_sla,
)
from tickets.services import (
    BODY_MAX,
    REPLY_PERMISSION,
    SUBJECT_MAX,
    ticket_assign,
    ticket_create,
    ticket_message_add,
    ticket_priority_change,
    ticket_rate,
    ticket_reply_send,
    ticket_seen_by_customer,
)

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
    conversation_id = serializers.UUIDField(
        source="chat_conversation_id",
        read_only=True,
        allow_null=True,
        help_text="이 문의를 연 채팅 대화(상담원 답변이 이 대화에도 이어 붙는다); chat_conversation_id와 같다",
    )
    rating = serializers.SerializerMethodField(help_text="고객 평가 {score, comment}, 아직 없으면 null")
    can_rate = serializers.SerializerMethodField(help_text="지금 평가할 수 있는지: 답변완료·종료이고 아직 평가 전")

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
            "conversation_id",
            "rating",
            "can_rate",
            "created_at",
            "updated_at",
        )

    @extend_schema_field(
        inline_serializer(
            "TicketRatingShown",
            {"score": serializers.IntegerField(), "comment": serializers.CharField()},
            allow_null=True,
        )
    )
    def get_rating(self, ticket) -> dict | None:
        rating = ticket_rating_of(ticket)
        return {"score": rating.score, "comment": rating.comment} if rating is not None else None

    def get_can_rate(self, ticket) -> bool:
        return can_rate(status=ticket.status, rated=ticket_rating_of(ticket) is not None)


class TicketRatingApi(APIView):
    """The customer rates their answered or closed ticket (CSAT), once."""

    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema_serializer(component_name="TicketRatingInput")
    class InputSerializer(serializers.Serializer):
        score = StrictIntegerField(
            min_value=CSAT_MIN,
            max_value=CSAT_MAX,
            help_text="1(매우 불만족)–5(매우 만족)",
            error_messages={
                "min_value": "점수는 1부터 5 사이의 정수여야 합니다.",
                "max_value": "점수는 1부터 5 사이의 정수여야 합니다.",
            },
        )
        comment = StrictCharField(
            max_length=CSAT_COMMENT_MAX, required=False, allow_blank=True, default="", trim_whitespace=True
        )

    @extend_schema_serializer(component_name="TicketRating")
    class OutputSerializer(serializers.Serializer):
        score = serializers.IntegerField()
        comment = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        responses={201: OutputSerializer},
        summary="문의 평가 (답변완료·종료된 내 문의, 한 번만)",
        description=(
            "400: 점수가 1–5 정수가 아니거나 의견이 500자를 넘음. 409 `not_answered`: 아직 상담원 답변 전. "
            "409 `already_rated`: 이미 평가함. 2점 이하도 문의를 다시 열지 않는다(팀이 지표에서 확인)."
        ),
    )
    def post(self, request, ticket_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ticket = customer_ticket_get(customer=request.customer, ticket_id=ticket_id)
        rating = ticket_rate(
            ticket=ticket,
            score=data.validated_data["score"],
            comment=data.validated_data["comment"],
            actor=Actor.customer(request.customer.pk, request.user),
        )
        return Response(self.OutputSerializer(rating).data, status=201)


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

    @extend_schema_serializer(component_name="TicketCreated")
    class CreatedSerializer(TicketDetailApi.OutputSerializer):
        after_hours_notice = serializers.CharField(
            allow_null=True,
            read_only=True,
            help_text="운영시간 밖에 접수되면 상담원이 언제부터 답변하는지 알리는 문장 (운영시간 중이면 null)",
        )

        class Meta(TicketDetailApi.OutputSerializer.Meta):
            fields = (*TicketDetailApi.OutputSerializer.Meta.fields, "after_hours_notice")

    @extend_schema(request=InputSerializer, responses={201: CreatedSerializer}, summary="문의 접수")
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
        # Outside business hours the customer is told when a person will answer.
        ticket.after_hours_notice = after_hours_notice(ticket.created_at, business_calendar())
        return Response(self.CreatedSerializer(ticket).data, status=201)


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


# --- the staff desk: /api/ops/tickets/ ---------------------------------------------------------------------
# What each staff endpoint shows or changes, as Django permissions (the same ones the admin checks). Apps above
# add what they show to these endpoints (tickets.api_parts) together with the permissions it needs.
TICKET_READ = ("tickets.view_ticket",)
CONVERSATION_READ = (*TICKET_READ, "tickets.view_ticketmessage")
# An own reply: the operator reads the ticket and may answer customers. The same people take and release their
# own tickets and set priorities (assigning someone else is checked by the service: tickets.assign_ticket).
TICKET_REPLY = ("tickets.view_ticket", REPLY_PERMISSION)
ME = "me"  # the assignee filter's and the assign call's word for the caller


def _with_parts(permissions: tuple[str, ...]) -> tuple[str, ...]:
    return (*permissions, *(p for part in ops_ticket_parts() for p in part.permissions))


class OpsPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


class OpsPaginationParams(serializers.Serializer):
    limit = serializers.IntegerField(required=False, min_value=1, max_value=OpsPagination.max_limit)
    offset = serializers.IntegerField(required=False, min_value=0)


class OpsMessageSerializer(serializers.Serializer):
    message_id = serializers.IntegerField(source="pk")
    author_type = serializers.CharField()
    author_display = serializers.CharField(source="get_author_type_display")
    body = serializers.CharField()
    created_at = serializers.DateTimeField()


_DATETIME = serializers.DateTimeField()


def _moment(value: datetime | None) -> str | None:
    """As every other time in the API: ISO 8601 in Asia/Seoul."""
    return _DATETIME.to_representation(value) if value is not None else None


class OpsTicketSerializer(serializers.ModelSerializer):
    ticket_id = serializers.CharField(source="number")
    customer_id = serializers.CharField()
    category_display = serializers.CharField(source="get_category_display")
    status_display = serializers.CharField(source="get_status_display")
    tags = serializers.SerializerMethodField()
    priority_display = serializers.CharField(source="get_priority_display")
    assignee = UsernameField("assignee", help_text="담당 상담원의 로그인 이름 (없으면 null)")
    first_response_due_at = serializers.SerializerMethodField(help_text="첫 답변 기한 (영업시간 기준)")
    next_response_due_at = serializers.SerializerMethodField(
        help_text="고객 추가 문의에 대한 다음 답변 기한 (기다리는 추가 문의가 없으면 null)"
    )
    resolution_due_at = serializers.SerializerMethodField(
        help_text="해결 기한. 고객 답변을 기다리는 동안(답변완료)에는 시계가 멈추므로 null"
    )
    sla_state = serializers.SerializerMethodField(help_text="ok(기한 내) · at_risk(기한 임박) · breached(기한 초과)")
    sla_state_display = serializers.SerializerMethodField()
    sla_paused = serializers.SerializerMethodField(help_text="true: 고객 답변을 기다리는 중이라 SLA 시계가 멈춤")

    class Meta:
        model = Ticket
        fields = (
            "ticket_id",
            "customer_id",
            "category",
            "category_display",
            "subject",
            "status",
            "status_display",
            "source",
            "order_id",
            "tags",
            "priority",
            "priority_display",
            "assignee",
            "first_response_due_at",
            "next_response_due_at",
            "resolution_due_at",
            "sla_state",
            "sla_state_display",
            "sla_paused",
            "created_at",
            "updated_at",
        )

    def get_tags(self, ticket: Ticket) -> list[str]:
        tags = getattr(ticket, "tag_list", None)
        return [t.name for t in (tags if tags is not None else ticket.tags.all())]

    def _sla(self, ticket: Ticket) -> SlaView:
        """One clock reading for the whole response (the context is shared by every row of a page)."""
        view = getattr(ticket, "_sla_view", None)
        if view is None:
            snapshot = self.context.setdefault("sla_snapshot", sla_snapshot()) if self.context is not None else None
            view = ticket._sla_view = ticket_sla(ticket, snapshot or sla_snapshot())
        return view

    def get_first_response_due_at(self, ticket: Ticket) -> datetime | None:
        return _moment(self._sla(ticket).first_response_due_at)

    def get_next_response_due_at(self, ticket: Ticket) -> datetime | None:
        return _moment(self._sla(ticket).next_response_due_at)

    def get_resolution_due_at(self, ticket: Ticket) -> datetime | None:
        return _moment(self._sla(ticket).resolution_due_at)

    @extend_schema_field({"type": "string", "enum": list(SLA_STATE_LABELS)})
    def get_sla_state(self, ticket: Ticket) -> str:
        return self._sla(ticket).state

    def get_sla_state_display(self, ticket: Ticket) -> str:
        return self._sla(ticket).label

    def get_sla_paused(self, ticket: Ticket) -> bool:
        return self._sla(ticket).paused


class _PartFields:
    """Adds the fields apps above registered (tickets.api_parts) for the list or the detail."""

    part_view = "list"

    def get_fields(self):
        fields = super().get_fields()
        for part in ops_ticket_parts():
            fields.update(part.list_fields() if self.part_view == "list" else part.detail_fields())
        return fields


@extend_schema_serializer(component_name="OpsPresent")
class PresentSerializer(serializers.Serializer):
    username = serializers.CharField()
    name = serializers.CharField(help_text="사람이 읽는 이름 (예: 김상담)")
    typing = serializers.BooleanField(help_text="true: 답변 작성 중, false: 보는 중")
    words = serializers.CharField(help_text="화면에 쓰는 문장 (예: 김상담님이 작성 중)")


# A staff read of tickets needs its own permissions and those of the fields the apps above add (no docstring:
# the API schema would show it on every operation).
class _OpsTicketReadApi(APIView):
    permission_classes = [IsStaff]
    read_permissions: tuple[str, ...] = ()

    @property
    def required_permissions(self) -> tuple[str, ...]:
        return _with_parts(self.read_permissions)


class OpsTicketListApi(_OpsTicketReadApi):
    read_permissions = TICKET_READ

    @extend_schema_serializer(component_name="OpsTicketListItem")
    class OutputSerializer(_PartFields, OpsTicketSerializer):
        part_view = "list"

    class FilterSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=Ticket.Status.choices, required=False)
        category = serializers.ChoiceField(choices=Ticket.Category.choices, required=False)
        assignee = StrictCharField(
            required=False,
            max_length=150,
            help_text="me(내 티켓) · none(미배정) · 상담원 로그인 이름. 없는 이름은 400",
        )

        def validate_assignee(self, value: str):
            if value == ME:
                return self.context["request"].user
            if value == UNASSIGNED:
                return UNASSIGNED
            user = operator_get(username=value)
            if user is None:
                raise ValidationError("me, none 또는 상담원 로그인 이름이어야 합니다.")
            return user

    @extend_schema_serializer(component_name="OpsTicketPage")
    class PageSerializer(serializers.Serializer):
        count = serializers.IntegerField()
        next = serializers.URLField(allow_null=True)
        previous = serializers.URLField(allow_null=True)
        results = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        parameters=[FilterSerializer, OpsPaginationParams],
        responses={200: PageSerializer},
        operation_id="ops_tickets_list",
        summary="[운영] 문의 목록 (limit/offset)",
    )
    def get(self, request):
        # As documented: a filter or a page given empty is an error, not "no filter" (form semantics), and a
        # limit/offset that is not a number in range is an error, not silently the default.
        params = request.query_params
        problems = {}
        for name in ("status", "category", "assignee", "limit", "offset"):
            values = params.getlist(name)
            if len(values) > 1:
                problems[name] = ["한 번만 보낼 수 있습니다."]
            elif values == [""]:
                problems[name] = ["값이 비어 있습니다."]
            elif name in ("limit", "offset") and values and not re.fullmatch(r"[0-9]+", values[0]):
                problems[name] = ["0 이상의 정수여야 합니다."]
        if problems:
            raise ValidationError(problems)
        OpsPaginationParams(data=params).is_valid(raise_exception=True)
        filters = self.FilterSerializer(data=params, context={"request": request})
        filters.is_valid(raise_exception=True)
        tickets = ticket_list(**filters.validated_data)
        for part in ops_ticket_parts():
            tickets = part.list_queryset(tickets)
        paginator = OpsPagination()
        page = paginator.paginate_queryset(tickets, request, view=self)
        access_note(request, surface=Surface.API, action=Action.LIST, object_type=ObjectType.TICKET)
        return paginator.get_paginated_response(self.OutputSerializer(page, many=True).data)


class OpsTicketDetailApi(_OpsTicketReadApi):
    read_permissions = CONVERSATION_READ

    @extend_schema_serializer(component_name="OpsTicketDetail")
    class OutputSerializer(_PartFields, OpsTicketSerializer):
        part_view = "detail"
        messages = OpsMessageSerializer(many=True, source="message_list")
        present = PresentSerializer(
            many=True, source="present_list", help_text="지금 이 문의를 열어 둔 다른 상담원 (보는 중 / 작성 중)"
        )

        class Meta(OpsTicketSerializer.Meta):
            fields = (*OpsTicketSerializer.Meta.fields, "messages", "present")

    @extend_schema(responses={200: OutputSerializer}, summary="[운영] 문의 대화와 초안 전체")
    def get(self, request, ticket_id: str):
        ticket = ticket_get(ticket_id=ticket_id)
        ticket.message_list = list(ticket.messages.order_by("id"))
        ticket.present_list = presence_list(ticket_id=ticket.pk, exclude_user_id=request.user.pk)
        context = {}
        for part in ops_ticket_parts():
            context.update(part.detail_load(ticket, request))
        data = self.OutputSerializer(ticket, context=context).data
        api_view_note(request, object_type=ObjectType.TICKET, customer_id=ticket.customer_id, object_id=ticket.pk)
        return Response(data)


MESSAGE_ID_MAX = 2**63 - 1  # a BigAutoField


class LastSeenMessageIdField(StrictIntegerField):
    """The newest message the operator had on screen while writing (optional): a customer message or another
    operator's reply after it holds the send as 409 ticket_changed. Each endpoint says in help_text what is held."""

    def __init__(self, **kwargs):
        super().__init__(required=False, allow_null=True, default=None, min_value=0, max_value=MESSAGE_ID_MAX, **kwargs)


TICKET_CHANGED_EXAMPLE = {
    "code": "ticket_changed",
    "detail": "김상담님이 14:02에 먼저 답변했습니다. 작성하신 내용은 아래에 그대로 있습니다. 새 내용을 확인한 뒤 "
    "다시 보내 주세요.",
    "messages": [
        {
            "message_id": 42,
            "author_type": "OPERATOR",
            "author_display": "상담원",
            "author": "operator",
            "author_name": "김상담",
            "body": "주문하신 상품은 내일 도착합니다.",
            "created_at": "2026-07-27T14:02:10+09:00",
        }
    ],
    "body": "확인해 보니 내일 도착 예정입니다.",
}


@extend_schema_serializer(component_name="OpsChangedMessage")
class ChangedMessageSerializer(serializers.Serializer):
    message_id = serializers.IntegerField()
    author_type = serializers.CharField()
    author_display = serializers.CharField()
    author = serializers.CharField(allow_null=True, help_text="상담원의 로그인 이름 (고객이면 null)")
    author_name = serializers.CharField(help_text="사람이 읽는 이름: 김상담 / 고객")
    body = serializers.CharField()
    created_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="OpsReplyHeld")
class ReplyHeldSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="reply_blocked (override_reason으로 발송 가능) · ticket_changed · ticket_closed · unknown_tag · "
        "empty_reply · reply_too_long · override_reason_too_long · reply_unchecked"
    )
    detail = serializers.CharField(help_text="보내지 않은 사유 (한국어)")
    messages = ChangedMessageSerializer(
        many=True, required=False, help_text="ticket_changed일 때만: 화면에 없던 새 메시지와 작성자"
    )
    body = serializers.CharField(required=False, help_text="ticket_changed일 때만: 보내지 않은 답변 (그대로)")


class OpsTicketReplyApi(APIView):
    """The operator's own reply on any ticket (after a rejected or failed draft, or with drafts off)."""

    permission_classes = [IsStaff]
    required_permissions = TICKET_REPLY

    @extend_schema_serializer(component_name="OpsTicketReplyInput")
    class InputSerializer(serializers.Serializer):
        body = StrictCharField(max_length=BODY_MAX, trim_whitespace=True, help_text="고객에게 보낼 답변")
        tags = serializers.ListField(child=StrictCharField(max_length=40), required=False, default=list)
        close = StrictBooleanField(required=False, default=False, help_text="true면 답변 후 문의를 종료")
        override_reason = StrictCharField(
            required=False,
            allow_blank=True,
            default="",
            max_length=OVERRIDE_REASON_MAX,
            help_text="예외 발송 사유. 답변이 고객의 처리 기록에 없는 환불·취소를 약속할 때만 필요하며, "
            "사유와 보낸 사람이 티켓의 시스템 메모로 기록됩니다.",
        )
        last_seen_message_id = LastSeenMessageIdField(
            help_text="답변을 쓰는 동안 화면에 있던 가장 최근 메시지 번호. 그 뒤에 고객 메시지나 다른 상담원의 "
            "답변이 있으면 보내지 않고 409 ticket_changed로 그 메시지들과 작성한 내용을 돌려줍니다.",
        )

    @extend_schema_serializer(component_name="OpsTicketReply")
    class OutputSerializer(OpsTicketSerializer):
        message = OpsMessageSerializer(source="reply_message")

        class Meta(OpsTicketSerializer.Meta):
            fields = (*OpsTicketSerializer.Meta.fields, "message")

    @extend_schema(
        request=InputSerializer,
        responses={
            201: OutputSerializer,
            409: OpenApiResponse(
                ReplyHeldSerializer,
                description="보내지 않음. reply_blocked: 답변이 고객의 처리 기록에 없는 환불·취소(승인완료)를 "
                "약속함 — override_reason을 보내면 기록을 남기고 발송합니다. ticket_closed: 종료된 문의. "
                "ticket_changed: last_seen_message_id 뒤에 새 고객 메시지나 다른 상담원의 답변이 있음 — "
                "messages(새 메시지와 작성자)와 body(보내지 않은 답변)가 함께 옵니다. "
                "생성된(GENERATED) 초안이 있으면 그 초안은 이 상담원의 반려로 기록됩니다.",
                examples=[
                    OpenApiExample(
                        "reply_blocked",
                        {"code": "reply_blocked", "detail": "이 답변은 보낼 수 없습니다. 고객의 처리 기록에 없는 …"},
                    ),
                    OpenApiExample("ticket_changed", TICKET_CHANGED_EXAMPLE),
                ],
            ),
        },
        operation_id="ops_ticket_reply",
        summary="[운영] 상담원 직접 답변",
    )
    def post(self, request, ticket_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ticket = ticket_get(ticket_id=ticket_id)
        message = ticket_reply_send(ticket_id=ticket.pk, actor=request.user, **data.validated_data)
        ticket = ticket_get(ticket_id=ticket_id)
        ticket.reply_message = message
        return Response(self.OutputSerializer(ticket).data, status=201)


class OpsTicketAssignApi(APIView):
    """Take, release or assign a ticket. Anyone who may answer tickets takes an unassigned one or releases their
    own; giving it to someone else (or taking someone else's) needs tickets.assign_ticket (403 otherwise)."""

    permission_classes = [IsStaff]
    required_permissions = TICKET_REPLY

    @extend_schema_serializer(component_name="OpsTicketAssignInput")
    class InputSerializer(serializers.Serializer):
        assignee = StrictCharField(
            allow_null=True, max_length=150, help_text="상담원 로그인 이름, me(나), 또는 null(담당 해제)"
        )

        def validate_assignee(self, value: str | None):
            if value is None:
                return None
            if value == ME:
                return self.context["request"].user
            user = operator_get(username=value)
            if user is None:
                raise ValidationError("상담원을 찾을 수 없습니다.")
            return user

    @extend_schema(
        request=InputSerializer,
        responses={200: OpsTicketSerializer},
        operation_id="ops_ticket_assign",
        summary="[운영] 담당자 지정·해제 (내가 맡기: assignee=me)",
    )
    def post(self, request, ticket_id: str):
        data = self.InputSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        ticket = ticket_get(ticket_id=ticket_id)
        ticket_assign(ticket_id=ticket.pk, assignee=data.validated_data["assignee"], actor=request.user)
        return Response(OpsTicketSerializer(ticket_get(ticket_id=ticket_id)).data)


class OpsTicketPriorityApi(APIView):
    """An operator sets the priority (긴급·높음·보통·낮음); the due times are counted again for it."""

    permission_classes = [IsStaff]
    required_permissions = TICKET_REPLY

    @extend_schema_serializer(component_name="OpsTicketPriorityInput")
    class InputSerializer(serializers.Serializer):
        priority = serializers.ChoiceField(choices=Ticket.Priority.choices, help_text="URGENT · HIGH · NORMAL · LOW")

    @extend_schema(
        request=InputSerializer,
        responses={200: OpsTicketSerializer},
        operation_id="ops_ticket_priority",
        summary="[운영] 우선순위 변경",
    )
    def post(self, request, ticket_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ticket = ticket_get(ticket_id=ticket_id)
        ticket_priority_change(ticket_id=ticket.pk, priority=data.validated_data["priority"], actor=request.user)
        return Response(OpsTicketSerializer(ticket_get(ticket_id=ticket_id)).data)


class OpsTicketPresenceApi(APIView):
    """The ticket page's heartbeat: "I have this ticket open (and am / am not writing)". Answers who else has
    it open. Kept for CS_PRESENCE_TTL_S (Redis with a TTL, or a table in embedded mode); it informs, it locks
    nothing (a reply's last_seen_message_id does that)."""

    permission_classes = [IsStaff]
    required_permissions = TICKET_READ

    @extend_schema_serializer(component_name="OpsTicketPresenceInput")
    class InputSerializer(serializers.Serializer):
        typing = StrictBooleanField(required=False, default=False, help_text="답변 상자에 쓰는 중이면 true")
        leaving = StrictBooleanField(required=False, default=False, help_text="페이지를 닫을 때 true")
        page = StrictCharField(
            max_length=32,
            required=False,
            default="",
            help_text="열린 페이지 하나를 가리키는 값(페이지를 열 때 받은 것)",
        )

    @extend_schema_serializer(component_name="OpsTicketPresence")
    class OutputSerializer(serializers.Serializer):
        present = PresentSerializer(many=True, help_text="지금 이 문의를 열어 둔 다른 상담원")

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer},
        operation_id="ops_ticket_presence",
        summary="[운영] 문의 보는 중 / 작성 중 알림 (하트비트)",
    )
    def post(self, request, ticket_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ticket = ticket_get(ticket_id=ticket_id)
        page = data.validated_data["page"]
        if data.validated_data["leaving"]:
            presence_leave(ticket_id=ticket.pk, user=request.user, page=page)
        else:
            presence_beat(ticket_id=ticket.pk, user=request.user, typing=data.validated_data["typing"], page=page)
        others = presence_list(ticket_id=ticket.pk, exclude_user_id=request.user.pk)
        return Response(self.OutputSerializer({"present": others}).data)
