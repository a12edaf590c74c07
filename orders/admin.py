from django.contrib import admin

from common.admin import ASCII_NUMBERS, AuditEventInline, ReadOnlyAdmin
from common.display import won
from orders.models import Customer, Order, OrderEvent, Product, ProductOption
from privacy.admin import AccessLoggedAdmin
from privacy.models import AccessRecord


@admin.register(Customer)
class CustomerAdmin(AccessLoggedAdmin, admin.ModelAdmin):
    access_object_type = AccessRecord.ObjectType.CUSTOMER
    list_display = ("customer_id", "name", "user", "created_at")
    search_fields = ("=customer_id", "name", "=phone", "=email", "user__username")
    list_select_related = ("user",)
    raw_id_fields = ("user",)


class ProductOptionInline(admin.TabularInline):
    model = ProductOption
    extra = 0
    fields = ("label", "stock")
    formfield_overrides = ASCII_NUMBERS


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = ("product_id", "name", "price_display", "stock_summary")
    search_fields = ("=product_id", "name")
    inlines = [ProductOptionInline]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("options")

    @admin.display(description="가격", ordering="price")
    def price_display(self, obj):
        return won(obj.price)

    @admin.display(description="옵션별 재고")
    def stock_summary(self, obj):
        return ", ".join(f"{o.label}:{o.stock}" for o in obj.options.all())


@admin.register(ProductOption)
class ProductOptionAdmin(admin.ModelAdmin):
    list_display = ("product", "label", "stock")
    formfield_overrides = ASCII_NUMBERS
    list_filter = ("product",)
    list_select_related = ("product",)
    search_fields = ("product__name", "label")


class OrderEventInline(AuditEventInline):
    """주문 이력: status, address and stock changes with who made them, read-only."""

    model = OrderEvent
    verbose_name = "주문 이력"
    verbose_name_plural = "주문 이력"

    status_labels = dict(Order.Status.choices)


@admin.register(Order)
class OrderAdmin(AccessLoggedAdmin, ReadOnlyAdmin):
    """Orders change only through services (tools, decisions); here they are browsed."""

    access_object_type = AccessRecord.ObjectType.ORDER

    list_display = ("order_id", "customer", "product", "option", "quantity", "amount_display", "status", "delivered_at")
    list_filter = ("status",)
    search_fields = ("=order_id", "=customer__customer_id", "customer__name", "product__name")
    list_select_related = ("customer", "product", "option")
    show_full_result_count = False
    date_hierarchy = "ordered_at"
    inlines = [OrderEventInline]

    def get_fields(self, request, obj=None):
        return [("amount_display" if f == "amount" else f) for f in super().get_fields(request, obj)]

    def get_readonly_fields(self, request, obj=None):
        return [*super().get_readonly_fields(request, obj), "amount_display"]

    @admin.display(description="결제금액", ordering="amount")
    def amount_display(self, obj):
        return won(obj.amount)
