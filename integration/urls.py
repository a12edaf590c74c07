from django.urls import path

from integration import apis

urlpatterns = [
    path("auth/shop-session/", apis.ShopSessionApi.as_view(), name="api-shop-session"),
    path("integration/customers/<str:customer_id>/", apis.CustomerUpsertApi.as_view(), name="api-int-customer"),
    path("integration/products/<str:product_id>/", apis.ProductUpsertApi.as_view(), name="api-int-product"),
    path("integration/orders/<str:order_id>/", apis.OrderUpsertApi.as_view(), name="api-int-order"),
    path("integration/events/", apis.EventListApi.as_view(), name="api-int-events"),
    path("integration/actions/<str:action_id>/result/", apis.ActionResultApi.as_view(), name="api-int-action-result"),
]
