"""Short-term memory: per-session key/value entries with a time to live (the multi-tier reference)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from memory_site.models import Timestamped


class ShortTermMemory(Timestamped):
    """Key -> JSON value per agent and session, alive for ttl_seconds. Every read path filters on
    expires_at, so an expired entry is invisible at once; the expired_cleanup job deletes it later."""

    class Type(models.TextChoices):
        TASK_CONTEXT = "task_context"
        CONVERSATION = "conversation"
        TOOL_RESULT = "tool_result"
        REFLECTION = "reflection"
        OBSERVATION = "observation"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("accounts.Agent", on_delete=models.CASCADE, related_name="+")
    session_id = models.CharField(max_length=256)
    key = models.CharField(max_length=256)
    value = models.JSONField()
    memory_type = models.CharField(max_length=20, choices=Type.choices, default=Type.TASK_CONTEXT)
    ttl_seconds = models.PositiveIntegerField()
    expires_at = models.DateTimeField()
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    # Set by consolidation: the long-term entry this one became (a second run skips it).
    promoted_to = models.ForeignKey("ContextEntry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        verbose_name_plural = "short-term memories"
        constraints = [
            # A second write of the same key updates the entry (the service upserts on this).
            models.UniqueConstraint(fields=["owner", "agent", "session_id", "key"], name="short_term_unique_key"),
        ]
        indexes = [
            models.Index(fields=["expires_at"], name="short_term_expires"),
            # Consolidation's scan: entries read often enough and not promoted yet.
            models.Index(
                fields=["access_count"], name="short_term_promotable", condition=models.Q(promoted_to__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}/{self.key}"
