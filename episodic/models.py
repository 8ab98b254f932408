"""Episodes (summaries of conversations) and typed memories (seed 001)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from pgvector.django import HnswIndex, VectorField


class Episode(models.Model):
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
    search_vector = models.GeneratedField(
        expression=SearchVector("search_text", config="english"), output_field=SearchVectorField(), db_persist=True
    )
    embedding = VectorField(dimensions=settings.EMBEDDING_DIM, null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            models.Index(fields=["owner", "-occurred_at"], name="episode_owner_recent"),
            models.Index(fields=["owner", "conversation_id"], name="episode_owner_conversation"),
            models.Index(fields=["owner", "user_id"], name="episode_owner_user"),
            models.Index(fields=["expires_at"], name="episode_expires"),
            HnswIndex(name="episode_embedding_hnsw", fields=["embedding"], m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"]),
            GinIndex(fields=["search_vector"], name="episode_search_gin"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.conversation_id}: {self.summary[:60]}"


class TypedMemory(models.Model):
    class Type(models.TextChoices):
        EPISODIC = "episodic"
        SEMANTIC = "semantic"
        PROCEDURAL = "procedural"
        CONTROL = "control"
        STANDARD = "standard"
        STRATEGY = "strategy"
        REFLECTION = "reflection"
        PROGRESS = "progress"
        FEATURE = "feature"

    class Scope(models.TextChoices):
        AGENT = "agent", "agent-private"
        TEAM = "team", "team (agents named in shared_with)"
        ACCOUNT = "account", "all agents of the owner"
        GLOBAL = "global", "all agents of the owner"

    class Severity(models.TextChoices):
        LOW = "low"
        MEDIUM = "medium"
        HIGH = "high"
        CRITICAL = "critical"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("accounts.Agent", on_delete=models.CASCADE, related_name="+")
    memory_type = models.CharField(max_length=20, choices=Type.choices)
    scope = models.CharField(max_length=10, choices=Scope.choices)
    shared_with = models.JSONField(default=list, blank=True, help_text="Agent ids, for team scope.")
    content = models.TextField()
    # NULL, not "", when absent: the partial indexes below cover only rows that have one.
    session_id = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    sequence_number = models.IntegerField(null=True, blank=True)
    entity_id = models.CharField(max_length=128, null=True, blank=True)  # noqa: DJ001
    steps = models.JSONField(default=list, blank=True)
    trigger_conditions = models.JSONField(default=list, blank=True)
    error_pattern = models.CharField(max_length=200, blank=True, default="")
    severity = models.CharField(max_length=10, choices=Severity.choices, blank=True, default="")
    source_trajectory_id = models.CharField(max_length=200, blank=True, default="")
    metadata = models.JSONField(default=dict, blank=True)
    search_vector = models.GeneratedField(
        expression=SearchVector("content", config="english"), output_field=SearchVectorField(), db_persist=True
    )
    embedding = VectorField(dimensions=settings.EMBEDDING_DIM, null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "typed memories"
        indexes = [
            models.Index(fields=["owner", "memory_type", "-created_at"], name="typed_owner_type_recent"),
            # GET /memories/typed/episodic/session/{id}: the session timeline of one owner.
            models.Index(
                fields=["owner", "session_id"], name="typed_owner_session", condition=models.Q(session_id__isnull=False)
            ),
            # GET /memories/typed/semantic/entity/{id}: all facts of one entity.
            models.Index(
                fields=["owner", "entity_id"], name="typed_owner_entity", condition=models.Q(entity_id__isnull=False)
            ),
            HnswIndex(name="typed_embedding_hnsw", fields=["embedding"], m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"]),
            GinIndex(fields=["search_vector"], name="typed_search_gin"),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.memory_type}: {self.content[:60]}"
