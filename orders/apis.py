from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import Actor
from common.apis import CustomerThrottle, IsCustomer, IsStaff
from common.errors import NotFound
from common.fields import StrictBooleanField, StrictCharField
from common.redaction import mask_email
from orders.models import Customer, Order, Product
from orders.services import customer_notices_set
from privacy.access import ObjectType, Surface, access_record_now, api_view_note
from privacy.policy import EXPORT_REASON_MAX, export_reason_clean

# What the customer and the staff both read of an order, after its id and whose or which product it is.
ORDER_FIELDS = (
    "product_name",
    "option",
    "quantity",
    "amount",
    "status",
    "status_display",
    "shipping_address",
    "ordered_at",
    "shipped_at",
    "delivered_at",
)


# The fields of ORDER_FIELDS that are not the order's own columns (no docstring: the API schema would show it).
class OrderFieldsSerializer(serializers.ModelSerializer):
    product_name = serializers.CharField(source="product.name")
    option = serializers.CharField(source="option.label")
    status_display = serializers.CharField(source="get_status_display")


class OrderListApi(APIView):
    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema_serializer(component_name="Order")
    class OutputSerializer(OrderFieldsSerializer):
        product_id = serializers.CharField(source="product.product_id")

        class Meta:
            model = Order
            fields = ("order_id", "product_id", *ORDER_FIELDS)

    @extend_schema(responses={200: OutputSerializer(many=True)}, summary="내 주문")
    def get(self, request):
        orders = Order.objects.filter(customer=request.customer).select_related("product", "option")
        return Response(self.OutputSerializer(orders.order_by("-ordered_at", "order_id"), many=True).data)


class ProductDetailApi(APIView):
    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema_serializer(component_name="Product")
    class OutputSerializer(serializers.ModelSerializer):
        @extend_schema_serializer(component_name="ProductOption")
        class OptionSerializer(serializers.Serializer):
            label = serializers.CharField()
            stock = serializers.IntegerField()
            in_stock = serializers.SerializerMethodField()

            def get_in_stock(self, obj) -> bool:
                return obj.stock > 0

        options = OptionSerializer(many=True)

        class Meta:
            model = Product
            fields = ("product_id", "name", "price", "options")

    @extend_schema(responses={200: OutputSerializer}, summary="상품 옵션과 재고")
    def get(self, request, product_id: str):
        product = Product.objects.prefetch_related("options").filter(pk=product_id).first()
        if product is None:
            raise NotFound("상품을 찾을 수 없습니다.")
        return Response(self.OutputSerializer(product).data)


class CustomerNoticesApi(APIView):
    """The customer's own answer-notice switch. Off: no e-mail when an operator answers, and the shop's
    `ticket.replied` event says `notify: false` (the shop decides what that means for its own channels)."""

    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema_serializer(component_name="CustomerNotices")
    class OutputSerializer(serializers.Serializer):
        email_notices = serializers.BooleanField(help_text="상담원 답변을 메일로 알림")
        email = serializers.CharField(allow_null=True, help_text="알림을 받을 주소(가림 처리), 없으면 null")

    @extend_schema_serializer(component_name="CustomerNoticesInput")
    class InputSerializer(serializers.Serializer):
        email_notices = StrictBooleanField()

    def _out(self, customer) -> dict:
        return self.OutputSerializer(
            {"email_notices": customer.email_notices, "email": mask_email(customer.email) if customer.email else None}
        ).data

    @extend_schema(responses={200: OutputSerializer}, summary="내 답변 알림 설정")
    def get(self, request):
        return Response(self._out(request.customer))

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer}, summary="답변 알림 켜기·끄기")
    def put(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        customer = customer_notices_set(
            customer=request.customer,
            email_notices=data.validated_data["email_notices"],
            actor=Actor.customer(request.customer.pk, request.user),
        )
        return Response(self._out(customer))


# --- staff: a customer's data, each view or export recorded in the access log (privacy) --------------------------
CUSTOMER_VIEW = ("orders.view_customer",)
ORDER_VIEW = ("orders.view_order",)
CUSTOMER_EXPORT = ("orders.view_customer", "orders.view_order")


@extend_schema_serializer(component_name="OpsOrder")
class OpsOrderSerializer(OrderFieldsSerializer):
    customer_id = serializers.CharField()

    class Meta:
        model = Order
        fields = ("order_id", "customer_id", *ORDER_FIELDS)


@extend_schema_serializer(component_name="OpsCustomer")
class OpsCustomerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Customer
        fields = ("customer_id", "name", "phone", "email", "created_at")


def _customer(customer_id: str) -> Customer:
    customer = Customer.objects.filter(pk=customer_id).first()
    if customer is None:
        raise NotFound("고객을 찾을 수 없습니다.")
    return customer


class OpsCustomerDetailApi(APIView):
    permission_classes = [IsStaff]
    required_permissions = CUSTOMER_VIEW

    @extend_schema(responses={200: OpsCustomerSerializer}, summary="[운영] 고객 정보 (열람 기록이 남습니다)")
    def get(self, request, customer_id: str):
        customer = _customer(customer_id)
        api_view_note(request, object_type=ObjectType.CUSTOMER, customer_id=customer.pk, object_id=customer.pk)
        return Response(OpsCustomerSerializer(customer).data)


class OpsOrderDetailApi(APIView):
    permission_classes = [IsStaff]
    required_permissions = ORDER_VIEW

    @extend_schema(responses={200: OpsOrderSerializer}, summary="[운영] 주문 정보와 배송지 (열람 기록이 남습니다)")
    def get(self, request, order_id: str):
        order = Order.objects.select_related("product", "option").filter(pk=order_id).first()
        if order is None:
            raise NotFound("주문을 찾을 수 없습니다.")
        api_view_note(request, object_type=ObjectType.ORDER, customer_id=order.customer_id, object_id=order.pk)
        return Response(OpsOrderSerializer(order).data)


class OpsCustomerExportApi(APIView):
    """A customer's profile and orders in one document, for a stated purpose: the reason is required and is
    recorded, with who and when, before the data leaves."""

    permission_classes = [IsStaff]
    required_permissions = CUSTOMER_EXPORT

    @extend_schema_serializer(component_name="OpsCustomerExportInput")
    class InputSerializer(serializers.Serializer):
        reason = StrictCharField(
            max_length=EXPORT_REASON_MAX,
            help_text="내보내는 사유 (필수, 접속기록에 남습니다). 예: 고객 열람 요구 대응",
        )

    @extend_schema_serializer(component_name="OpsCustomerExport")
    class OutputSerializer(serializers.Serializer):
        customer = OpsCustomerSerializer()
        orders = OpsOrderSerializer(many=True)

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer},
        summary="[운영] 고객 정보 내보내기 (사유 필수, 기록됨)",
    )
    def post(self, request, customer_id: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        reason = export_reason_clean(data.validated_data["reason"])
        if not reason:
            raise ValidationError({"reason": ["내보내는 사유를 적어 주세요."]})
        customer = _customer(customer_id)
        access_record_now(
            request,
            surface=Surface.API,
            object_type=ObjectType.CUSTOMER,
            customer_id=customer.pk,
            object_id=customer.pk,
            reason=reason,
        )
        orders = Order.objects.filter(customer=customer).select_related("product", "option").order_by("order_id")
        return Response(self.OutputSerializer({"customer": customer, "orders": orders}).data)
