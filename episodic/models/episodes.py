"""Episodes: summaries of an agent's conversations (the typed-memory reference)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from memory_site.models import Created, Embedded, SearchableText, embedding_hnsw_index, search_gin_index


class Episode(SearchableText, Embedded, Created):
    class Type(models.TextChoices):
        CONVERSATION = "conversation"
        TASK = "task"
        CORRECTION = "correction"
        PREFERENCE = "preference"
        DECISION = "decision"
        ERROR = "error"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    user_id = models.CharField(max_length=200, blank=True, default="", help_text="The end user the agent talks to.")
    conversation_id = models.CharField(max_length=256)
    summary = models.TextField()
    keywords = models.JSONField(default=list, blank=True)
    topic = models.CharField(max_length=200, blank=True, default="")
    importance = models.FloatField(default=0.5, validators=[MinValueValidator(0), MaxValueValidator(1)])
    episode_type = models.CharField(max_length=20, choices=Type.choices, default=Type.CONVERSATION)
    metadata = models.JSONField(default=dict, blank=True, help_text="key_decisions, entities, tools")
    occurred_at = models.DateTimeField(help_text="When the conversation happened.")
    expires_at = models.DateTimeField()
    # What full-text search reads: summary, topic and keywords (kept by the service that writes them).
    search_text = models.TextField(blank=True, default="")

    class Meta:
        indexes = [
            models.Index(fields=["owner", "-occurred_at"], name="episode_owner_recent"),
            models.Index(fields=["owner", "conversation_id"], name="episode_owner_conversation"),
            models.Index(fields=["owner", "user_id"], name="episode_owner_user"),
            models.Index(fields=["expires_at"], name="episode_expires"),
            # episode_search and the context assembly's episodes layer (hybrid_search, owner-filtered
            # with iterative scan).
            embedding_hnsw_index(name="episode_embedding_hnsw"),
            search_gin_index(name="episode_search_gin"),
        ]

    def __str__(self) -> str:
        return f"{self.conversation_id}: {self.summary[:60]}"
