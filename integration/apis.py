"""Integration endpoints: validate → service → serialize. Bearer API key; each service checks the scope."""

from __future__ import annotations

import re

from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_serializer,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import Actor
from common.apis import FieldConflict
from common.events import EVENT_TYPE_LABELS
from common.fields import AmountField, StrictBooleanField, StrictCharField, StrictIntegerField, StrictRegexField
from common.numbering import number_pattern
from integration.authentication import IntegrationKeyAuthentication, IsIntegration
from integration.errors import InvalidInput, MissingReference
from integration.schemas import CUSTOMER_ID_RE, ORDER_ID_RE, PRODUCT_ID_RE, CustomerIn, OrderIn, ProductIn, UpsertResult
from integration.services import access, results, sessions, sync, webhooks

TAG = ["integration"]


class _IntegrationApi(APIView):
    authentication_classes = [IntegrationKeyAuthentication]
    permission_classes = [IsIntegration]
    throttle_classes: list = []


def _id_parameter(name: str, pattern: re.Pattern) -> OpenApiParameter:
    """The shop's id in the path, with the form the desk accepts (any other answers 400)."""
    return OpenApiParameter(name, str, OpenApiParameter.PATH, pattern=f"^{pattern.pattern}$")


# PUT one object of `kind`, named by `<kind>_id` in the path (no docstring: it would become the operations' text).
class _UpsertApi(_IntegrationApi):
    kind = ""

    def put(self, request, **path_ids: str):
        try:
            result = sync.shop_upsert(
                integration=request.integration,
                kind=self.kind,
                external_id=path_ids[f"{self.kind}_id"],
                data=request.data if isinstance(request.data, dict) else {},
                actor=Actor.system(f"shop:{request.integration.name}"),
            )
        except MissingReference as exc:  # well-formed; send what it names first, then the same request works
            raise FieldConflict(exc.fields, code=exc.code) from None
        except InvalidInput as exc:
            raise ValidationError(exc.fields) from None
        body = {"applied": result.applied, "version": result.version}
        if result.reason:
            body["reason"] = result.reason
        return Response(body, status=status.HTTP_200_OK)


def _upsert_schema(kind: str, body: type[serializers.Serializer], summary: str, id_pattern: re.Pattern):
    """The OpenAPI description of one kind's upsert: its body, its id in the path."""
    return extend_schema_view(
        put=extend_schema(
            tags=TAG,
            request=body,
            responses={200: UpsertResult},
            summary=summary,
            parameters=[_id_parameter(f"{kind}_id", id_pattern)],
        )
    )


@_upsert_schema("customer", CustomerIn, "고객 업서트(버전)", CUSTOMER_ID_RE)
class CustomerUpsertApi(_UpsertApi):
    kind = "customer"


@_upsert_schema("product", ProductIn, "상품 업서트(버전)", PRODUCT_ID_RE)
class ProductUpsertApi(_UpsertApi):
    kind = "product"


@_upsert_schema("order", OrderIn, "주문 업서트(버전)", ORDER_ID_RE)
class OrderUpsertApi(_UpsertApi):
    kind = "order"


@extend_schema_serializer(component_name="IntegrationEventData")
class EventDataSerializer(serializers.Serializer):
    """What an event's `data` may hold, with the same types the shop API takes (an amount is a JSON integer,
    which `AmountField` accepts back). Which keys each type carries: README, "3. Events flow out"."""

    action_id = serializers.CharField(required=False, help_text="A00012")
    ticket_id = serializers.CharField(required=False, help_text="T00007")
    order_id = serializers.CharField(required=False, allow_null=True)
    customer_id = serializers.CharField(required=False)
    kind = serializers.CharField(required=False, help_text="REFUND · CANCEL")
    status = serializers.CharField(required=False)
    amount = AmountField(required=False, allow_null=True, help_text="원 단위 정수")
    reason_category = serializers.CharField(required=False, allow_blank=True)
    old_address = serializers.CharField(required=False)
    new_address = serializers.CharField(required=False)
    old_option = serializers.CharField(required=False)
    new_option = serializers.CharField(required=False)
    category = serializers.CharField(required=False)
    subject = serializers.CharField(required=False)
    source = serializers.CharField(required=False)
    excerpt = serializers.CharField(
        required=False, help_text="ticket.replied: 상담원 답변의 앞부분(개인정보 가림, 120자 이내)"
    )
    thread_url = serializers.URLField(required=False, help_text="ticket.replied: 고객이 답변을 읽는 주소")
    notify = serializers.BooleanField(
        required=False,
        help_text="ticket.replied: 고객이 답변 알림을 켜 두었는지 (false면 고객이 알림을 끈 것: 알리지 마세요)",
    )


class EventListApi(_IntegrationApi):
    @extend_schema_serializer(component_name="IntegrationEvent")
    class OutputSerializer(serializers.Serializer):
        id = serializers.CharField(source="event_id")
        type = serializers.CharField()
        created_at = serializers.DateTimeField(help_text="RFC 3339, 시간대 포함")
        data = EventDataSerializer(help_text="웹훅 본문의 data와 같은 모양")

        def to_representation(self, instance):
            out = super().to_representation(instance)
            out["data"] = instance.data  # as stored and as the webhook sends it, key for key
            return out

    @extend_schema(
        tags=TAG,
        parameters=[
            OpenApiParameter("after", str, description="이 이벤트 ID 다음부터"),
            OpenApiParameter("limit", int, description="1–500, 기본 100"),
        ],
        responses={200: inline_serializer("IntegrationEventPage", {"events": OutputSerializer(many=True)})},
        summary="이벤트 목록(웹훅 없는 연동용)",
        description=(
            "웹훅으로 보내는 것과 같은 이벤트를 오래된 것부터. 종류(`type`)와 `data`: "
            + " · ".join(f"`{code}` {label}" for code, label in EVENT_TYPE_LABELS.items())
            + ". `ticket.replied`(상담원이 답변함: ticket_id, customer_id, order_id, excerpt, thread_url, "
            "notify)를 받으면 쇼핑몰이 자기 방식(앱 푸시, 알림톡 …)으로 고객에게 알릴 수 있다. "
            "`notify: false`면 고객이 알림을 끈 것이다."
        ),
    )
    def get(self, request):
        try:
            limit = max(1, min(500, int(request.query_params.get("limit", 100))))
        except ValueError:
            raise ValidationError({"limit": ["정수여야 합니다."]}) from None
        events = webhooks.event_list(
            integration=request.integration, after=request.query_params.get("after") or None, limit=limit
        )
        return Response({"events": self.OutputSerializer(events, many=True).data})


class ActionResultApi(_IntegrationApi):
    @extend_schema_serializer(component_name="IntegrationActionResultInput")
    class InputSerializer(serializers.Serializer):
        ok = StrictBooleanField()
        external_ref = StrictCharField(
            max_length=100,
            help_text="쇼핑몰의 처리번호. 앞뒤 공백은 지우고 연속된 공백은 하나로 보아 비교·저장합니다: "
            "같은 보고를 다시 보내면 changed=false.",
        )
        amount = AmountField(
            required=False,
            allow_null=True,
            help_text="실제 환불 금액(원). 주문 결제 금액 이하여야 합니다(넘으면 400 amount_exceeds_order). "
            "없으면 주문 금액.",
        )
        message = StrictCharField(max_length=500, required=False, allow_blank=True, default="")

    @extend_schema_serializer(component_name="IntegrationActionResult")
    class OutputSerializer(serializers.Serializer):
        action_id = serializers.CharField(source="number")
        status = serializers.CharField()
        status_display = serializers.CharField(source="status_label")
        order_id = serializers.CharField()

    @extend_schema(
        tags=TAG,
        request=InputSerializer,
        responses={200: OutputSerializer},
        summary="환불·취소 처리 결과 보고",
        parameters=[
            OpenApiParameter(
                "action_id",
                str,
                OpenApiParameter.PATH,
                pattern=f"^{number_pattern('A')}$",
                description="이벤트의 action_id 그대로: A와 다섯 자리 숫자(예: A00012), 99999 다음은 앞자리 0 없이"
                "(A100000). 다른 형태(A12, 12, a00012)는 404.",
            )
        ],
    )
    def post(self, request, action_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        record, changed = results.action_result_report(
            integration=request.integration, action_id=action_id, **data.validated_data
        )
        return Response({**self.OutputSerializer(record).data, "changed": changed})


class ShopSessionApi(APIView):
    """A customer arrives from the shop already signed in: the shop's backend signed who they are."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema_serializer(component_name="ShopSessionInput")
    class InputSerializer(serializers.Serializer):
        integration = StrictCharField(max_length=50)
        customer_id = StrictRegexField(r"^[A-Za-z0-9_-]{1,16}$")
        expires_at = StrictIntegerField(min_value=0, max_value=2**63 - 1)
        signature = StrictRegexField(r"^[0-9a-fA-F]{64}$")

    def finalize_response(self, request, response, *args, **kwargs):
        """CORS: only an origin the named integration allows (a preflight: one some active integration
        allows); its own list, nothing wider."""
        response = super().finalize_response(request, response, *args, **kwargs)
        origin = request.headers.get("Origin", "")
        if request.method == "OPTIONS":
            if origin and access.origin_allowed_anywhere(origin):
                response["Access-Control-Allow-Origin"] = origin
                response["Access-Control-Allow-Methods"] = "POST"
                response["Access-Control-Allow-Headers"] = "Content-Type"
                response["Access-Control-Max-Age"] = "600"
        elif origin and isinstance(request.data, dict) and request.data.get("integration"):
            if access.origin_allowed_for(request.data["integration"], origin):
                response["Access-Control-Allow-Origin"] = origin
        response["Vary"] = "Origin"
        return response

    @extend_schema(
        tags=TAG,
        request=InputSerializer,
        responses={
            200: inline_serializer(
                "ShopSessionToken", {"token": serializers.CharField(), "customer_id": serializers.CharField()}
            )
        },
        summary="쇼핑몰 서명 로그인",
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        _, key = sessions.shop_session_open(
            integration_name=data.validated_data["integration"],
            customer_id=data.validated_data["customer_id"],
            expires_at=data.validated_data["expires_at"],
            signature=data.validated_data["signature"],
        )
        return Response({"token": key, "customer_id": data.validated_data["customer_id"]})
