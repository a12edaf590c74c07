from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import Actor
from common.apis import CustomerThrottle, IsCustomer
from common.errors import NotFound
from common.fields import StrictBooleanField
from common.redaction import mask_email
from orders.models import Order, Product
from orders.services import customer_notices_set


class OrderListApi(APIView):
    permission_classes = [IsCustomer]
    throttle_classes = [CustomerThrottle]

    @extend_schema_serializer(component_name="Order")
    class OutputSerializer(serializers.ModelSerializer):
        product_id = serializers.CharField(source="product.product_id")
        product_name = serializers.CharField(source="product.name")
        option = serializers.CharField(source="option.label")
        status_display = serializers.CharField(source="get_status_display")

        class Meta:
            model = Order
            fields = (
                "order_id",
                "product_id",
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
            actor=Actor("CUSTOMER", request.customer.pk, request.user),
        )
        return Response(self._out(customer))
