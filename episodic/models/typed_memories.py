"""Typed memories: facts, procedures, corrections and the rest, one row each (the typed-memory reference)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from memory_site.models import Embedded, SearchableContent, Timestamped, embedding_hnsw_index, search_gin_index


class TypedMemory(SearchableContent, Embedded, Timestamped):
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
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    # Set by dedup: a near-duplicate kept for the audit trail, invisible to reads.
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged_memories"
    )
    deprecated_at = models.DateTimeField(null=True, blank=True)

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
            # typed_query, the context assembly's typed layer (hybrid_search) and dedup's
            # nearest-neighbour probe.
            embedding_hnsw_index(name="typed_embedding_hnsw"),
            search_gin_index(name="typed_search_gin"),
        ]

    def __str__(self) -> str:
        return f"{self.memory_type}: {self.content[:60]}"
