"""Memory-event webhooks: an owner's endpoints, the outbox of events, and every delivery attempt."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models

from memory_site.events import EVENT_TYPES

SNIPPET_CHARS = 500


class Endpoint(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.URLField(max_length=2000)
    event_types = ArrayField(
        models.CharField(max_length=40, choices=[(t, t) for t in EVENT_TYPES]),
        help_text="The event types sent here; memory.recalled only when listed (opt-in).",
    )
    active = models.BooleanField(default=True)
    # Standard Webhooks `whsec_<base64>`; shown to the owner once, at creation.
    secret = models.CharField(max_length=100)
    failing_since = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [models.Index(fields=["owner", "created_at"], name="webhook_endpoint_owner")]

    def __str__(self) -> str:
        return self.url


class Event(models.Model):
    """The outbox: written in the transaction of the change it reports, only when an endpoint listens."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    type = models.CharField(max_length=40, db_index=True)
    payload = models.JSONField(default=dict)
    # The endpoints listening when it was written: the sweep resends to those that never got an attempt.
    endpoint_ids = ArrayField(models.UUIDField(), default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set once its delivery tasks reached the broker; null rows older than a minute are sent again.
    dispatched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(
                fields=["created_at"], name="webhook_event_undispatched", condition=models.Q(dispatched_at__isnull=True)
            )
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.id}"


class Delivery(models.Model):
    """One attempt to deliver one event to one endpoint."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    attempt = models.PositiveIntegerField()
    status_code = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    response_snippet = models.CharField(max_length=SNIPPET_CHARS, blank=True, default="")
    error = models.CharField(max_length=500, blank=True, default="")
    # When the next attempt is due; null after a success, a replay, or once the retry window is over.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "deliveries"
        constraints = [
            # Two senders of the same attempt (the retry task and the sweep): the second insert fails.
            models.UniqueConstraint(fields=["event", "endpoint", "attempt"], name="webhook_delivery_attempt_once")
        ]
        indexes = [
            models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_endpoint"),
            models.Index(
                fields=["next_attempt_at"],
                name="webhook_delivery_due",
                condition=models.Q(next_attempt_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} -> {self.endpoint_id} #{self.attempt}"

    @property
    def succeeded(self) -> bool:
        return self.delivered_at is not None
