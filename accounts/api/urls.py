"""Routes of the accounts app, all under /api/v1/ (it has no reference-service paths)."""

from django.urls import path

from accounts.api import settings, views
from memory_site.api.routing import by_method

api_urlpatterns = [
    path("agents/me", views.AgentMeApi.as_view(), name="agent-me"),
    path("agents", by_method(get=views.AgentListApi, post=views.AgentCreateApi), name="agents"),
    path(
        "agents/<uuid:agent_id>", by_method(get=views.AgentDetailApi, patch=views.AgentUpdateApi), name="agent-detail"
    ),
    path("keys", by_method(get=views.ApiKeyListApi, post=views.ApiKeyCreateApi), name="keys"),
    path("keys/<str:prefix>/revoke", views.ApiKeyRevokeApi.as_view(), name="key-revoke"),
    path("usage", views.UsageSummaryApi.as_view(), name="usage"),
    path(
        "settings/memory",
        by_method(get=settings.MemorySettingsGetApi, put=settings.MemorySettingsUpdateApi),
        name="api-settings-memory",
    ),
]
