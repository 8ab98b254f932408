from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from memory_site.api.routing import by_method
from webhooks.api import views as v

api_urlpatterns: list[URLPattern | URLResolver] = [
    path("webhooks", by_method(get=v.EndpointListApi, post=v.EndpointCreateApi)),
    path(
        "webhooks/<str:endpoint_id>",
        by_method(get=v.EndpointDetailApi, patch=v.EndpointUpdateApi, delete=v.EndpointDeleteApi),
    ),
    path("webhooks/<str:endpoint_id>/deliveries", v.DeliveryListApi.as_view()),
    path("webhooks/<str:endpoint_id>/deliveries/<str:delivery_id>/replay", v.DeliveryReplayApi.as_view()),
    path("webhooks/<str:endpoint_id>/test", v.EndpointTestApi.as_view()),
]
