from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from webhooks.models import Delivery, Endpoint, Event
from webhooks.services.outbox import delivery_send


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    list_display = ["url", "owner", "active", "failing_since", "created_at"]
    list_filter = ["active", ("failing_since", admin.EmptyFieldListFilter)]
    search_fields = ["url", "owner__username"]
    raw_id_fields = ["owner"]
    readonly_fields = ["id", "created_at"]
    exclude = ["secret"]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["id", "type", "owner", "created_at", "dispatched_at"]
    list_filter = ["type"]
    search_fields = ["id", "owner__username"]
    raw_id_fields = ["owner"]
    readonly_fields = ["id", "owner", "type", "payload", "endpoint_ids", "created_at", "dispatched_at"]


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ["event", "endpoint", "attempt", "status_code", "latency_ms", "delivered_at", "next_attempt_at"]
    list_filter = [("delivered_at", admin.EmptyFieldListFilter), "status_code"]
    search_fields = ["event__id", "endpoint__url"]
    raw_id_fields = ["event", "endpoint"]
    readonly_fields = [f.name for f in Delivery._meta.fields]
    actions = ["replay"]

    @admin.action(description="Replay the selected deliveries")
    def replay(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        sent = sum(delivery_send(event_id=d.event_id, endpoint_id=d.endpoint_id, replay=True) for d in queryset)
        self.message_user(request, f"{sent} deliveries sent again.")
