from django.urls import path, re_path

from common.numbering import number_pattern
from integration import apis, views

urlpatterns = [
    path("api/auth/shop-session/", apis.ShopSessionApi.as_view(), name="api-shop-session"),
    path("api/integration/customers/<str:customer_id>/", apis.CustomerUpsertApi.as_view(), name="api-int-customer"),
    path("api/integration/products/<str:product_id>/", apis.ProductUpsertApi.as_view(), name="api-int-product"),
    path("api/integration/orders/<str:order_id>/", apis.OrderUpsertApi.as_view(), name="api-int-order"),
    path("api/integration/events/", apis.EventListApi.as_view(), name="api-int-events"),
    # Only the canonical action number (A00012) resolves; any other form is the resolver's 404.
    re_path(
        rf"^api/integration/actions/(?P<action_id>{number_pattern('A')})/result/$",
        apis.ActionResultApi.as_view(),
        name="api-int-action-result",
    ),
    path("widget.js", views.widget_js, name="widget-js"),
    path("widget/<slug:name>/", views.widget_frame, name="widget-frame"),
]
