"""Persistent contexts: named collections of versioned entries, with snapshots and an access log
(the multi-tier reference)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from episodic.models.pools import _default_acl
from memory_site.models import Embedded, SearchableContent, Timestamped, embedding_hnsw_index, search_gin_index


class PersistentContext(Timestamped):
    class Type(models.TextChoices):
        AGENT_MEMORY = "agent_memory"
        KNOWLEDGE_BASE = "knowledge_base"
        SHARED_CONTEXT = "shared_context"
        TOOL_CACHE = "tool_cache"
        PROJECT_CONTEXT = "project_context"

    class Scope(models.TextChoices):
        AGENT = "agent", "the creating agent (and agents granted access)"
        TEAM = "team", "agents granted access"
        ACCOUNT = "account", "all agents of the owner"
        GLOBAL = "global", "all agents of the owner"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey("accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    name = models.CharField(max_length=200)
    context_type = models.CharField(max_length=20, choices=Type.choices, default=Type.AGENT_MEMORY)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.AGENT)
    description = models.TextField(blank=True, default="")
    access_control = models.JSONField(
        default=_default_acl, blank=True, help_text='Per-agent grants: {"read": [agent ids], "write": [agent ids]}'
    )
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="context_unique_name")]

    def __str__(self) -> str:
        return self.name


class ContextEntry(SearchableContent, Embedded, Timestamped):
    class EntryType(models.TextChoices):
        FACT = "fact"
        OBSERVATION = "observation"
        REFLECTION = "reflection"
        DECISION = "decision"
        PLAN = "plan"
        TOOL_OUTPUT = "tool_output"
        CONVERSATION_SUMMARY = "conversation_summary"

    class SourceType(models.TextChoices):
        AGENT = "agent"
        USER = "user"
        SYSTEM = "system"
        TOOL = "tool"
        WORKFLOW = "workflow"

    class MemoryType(models.TextChoices):
        FACTUAL = "factual"
        EXPERIENTIAL = "experiential"
        WORKING = "working"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    context = models.ForeignKey(PersistentContext, on_delete=models.CASCADE, related_name="entries")
    agent = models.ForeignKey("accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    key = models.CharField(max_length=256, blank=True, default="", help_text="Optional name (the tiers router's key).")
    entry_type = models.CharField(max_length=24, choices=EntryType.choices, default=EntryType.FACT)
    source_type = models.CharField(max_length=10, choices=SourceType.choices, default=SourceType.AGENT)
    memory_type = models.CharField(max_length=12, choices=MemoryType.choices, default=MemoryType.FACTUAL)
    content = models.TextField()
    metadata = models.JSONField(default=dict, blank=True)
    importance = models.FloatField(default=0.5, validators=[MinValueValidator(0), MaxValueValidator(1)])
    confidence = models.FloatField(default=1.0, validators=[MinValueValidator(0), MaxValueValidator(1)])
    version = models.PositiveIntegerField(default=1)
    previous_version = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="newer_versions"
    )
    # Only the newest version of an entry is current: reads and searches see current entries only.
    is_current = models.BooleanField(default=True)
    archived_at = models.DateTimeField(null=True, blank=True, help_text="Set by context rot (or by hand).")
    merged_into = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="merged_entries",
        help_text="Set by dedup: this entry is a near-duplicate kept for the audit trail.",
    )
    deprecated_at = models.DateTimeField(null=True, blank=True)
    # Where a machine-made entry came from ("short_term:<id>"): makes consolidation's insert idempotent.
    source_ref = models.CharField(max_length=300, blank=True, default="")
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "context entries"
        constraints = [
            models.UniqueConstraint(
                fields=["context", "source_ref"], name="context_entry_unique_source", condition=~models.Q(source_ref="")
            ),
        ]
        indexes = [
            # Every read: the live entries of a context.
            models.Index(
                fields=["context", "-created_at"],
                name="context_entry_live",
                condition=models.Q(is_current=True, archived_at__isnull=True, deprecated_at__isnull=True),
            ),
            models.Index(fields=["owner", "key"], name="context_entry_key", condition=~models.Q(key="")),
            # Semantic search over long-term memory and dedup's nearest-neighbour probe; both read live
            # entries only, and a row that dedup or context rot retires leaves the index (no insert).
            embedding_hnsw_index(
                name="context_entry_embedding_hnsw",
                condition=models.Q(is_current=True, archived_at__isnull=True, deprecated_at__isnull=True),
            ),
            # The keyword half of the long-term search (hybrid_search).
            search_gin_index(name="context_entry_search_gin"),
        ]

    def __str__(self) -> str:
        return f"{self.entry_type}: {self.content[:60]}"


class ContextSnapshot(models.Model):
    """Every entry of a context (all versions, archived and merged ones included) at one moment."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    context = models.ForeignKey(PersistentContext, on_delete=models.CASCADE, related_name="snapshots")
    agent = models.ForeignKey("accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    label = models.CharField(max_length=200, blank=True, default="")
    context_state = models.JSONField(default=dict, help_text="The context's own fields.")
    entries = models.JSONField(default=list)
    entry_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.context_id} @ {self.created_at:%Y-%m-%d %H:%M}"


class ContextAccessLog(models.Model):
    class Action(models.TextChoices):
        READ = "read"
        SEARCH = "search"
        WRITE = "write"
        SNAPSHOT = "snapshot"
        RESTORE = "restore"
        ARCHIVE = "archive"
        UNARCHIVE = "unarchive"
        GRANT = "grant"
        REVOKE = "revoke"

    id = models.BigAutoField(primary_key=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    context = models.ForeignKey(PersistentContext, on_delete=models.CASCADE, related_name="access_logs")
    agent = models.ForeignKey("accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=12, choices=Action.choices)
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["context", "-created_at"], name="context_log_recent")]

    def __str__(self) -> str:
        return f"{self.action} {self.context_id}"
