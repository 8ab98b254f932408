"""The ledger app keeps conversation-scoped state in Redis; PostgreSQL holds only what must outlive
Redis: a persisted copy of a conversation's working memory."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class WorkingMemorySnapshot(models.Model):
    """The working memory of one conversation, saved by `persist` and put back by `load`.

    `fields` maps each field name to its value exactly as Redis held it (the JSON-encoded string), so a
    load restores the hash byte for byte."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    conversation_id = models.CharField(max_length=256)
    fields = models.JSONField(default=dict)
    ttl_seconds = models.PositiveIntegerField()
    size_bytes = models.PositiveIntegerField()
    persisted_by = models.ForeignKey(
        "accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    persisted_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "conversation_id"], name="wm_snapshot_unique_conversation")
        ]

    def __str__(self) -> str:
        return f"working memory of {self.conversation_id} ({self.owner_id})"
