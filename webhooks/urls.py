"""The person's webhook pages, under Settings → Memory."""

from __future__ import annotations

from django.urls import URLPattern, path

from webhooks import web

urlpatterns: list[URLPattern] = [
    path("settings/memory/webhooks", web.webhooks_settings, name="settings-webhooks"),
    path("settings/memory/webhooks/add", web.webhook_add, name="settings-webhook-add"),
    path("settings/memory/webhooks/<str:endpoint_id>/delete", web.webhook_delete, name="settings-webhook-delete"),
]
