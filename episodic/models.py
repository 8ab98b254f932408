"""Episodes (summaries of conversations) and typed memories (seed 001); short-term memory, memory
pools, workflow pools and persistent contexts with their entries (seed 002)."""

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
    # Set by dedup: a near-duplicate kept for the audit trail, invisible to reads.
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged_memories"
    )
    deprecated_at = models.DateTimeField(null=True, blank=True)
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


# --- short-term memory, pools, contexts (seed 002) ---------------------------------------------------


class ShortTermMemory(models.Model):
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
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

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


class VersionedData(models.Model):
    """A JSON document written with optimistic concurrency: every write names the version it read and
    lands only while that is still the stored version (a conditional UPDATE), else 409."""

    data = models.JSONField(default=dict, blank=True)
    version = models.PositiveBigIntegerField(default=1)
    read_count = models.PositiveBigIntegerField(default=0)
    write_count = models.PositiveBigIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


def _default_acl() -> dict[str, object]:
    return {"read": [], "write": [], "public_read": False}


class MemoryPool(VersionedData):
    class Type(models.TextChoices):
        SHARED = "shared"
        AGENT_PRIVATE = "agent_private"
        TEAM_SHARED = "team_shared"
        TASK_SCOPED = "task_scoped"

    class Scope(models.TextChoices):
        GLOBAL = "global"
        ACCOUNT = "account"
        TEAM = "team"
        AGENT = "agent"
        TASK = "task"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey("accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    pool_id = models.CharField(max_length=200)
    pool_type = models.CharField(max_length=20, choices=Type.choices, default=Type.SHARED)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.ACCOUNT)
    task_id = models.CharField(max_length=200, blank=True, default="")
    access_control = models.JSONField(default=_default_acl, blank=True, help_text='{"read": [agent ids], '
                                      '"write": [agent ids], "public_read": bool}')  # fmt: skip

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "pool_id"], name="pool_unique_id")]
        indexes = [
            models.Index(fields=["expires_at"], name="pool_expires", condition=models.Q(expires_at__isnull=False))
        ]

    def __str__(self) -> str:
        return self.pool_id


class WorkflowPool(VersionedData):
    """A workflow run's shared context pool (seed 002's SharedContextPool): the run's nodes read and
    write one JSON document per pool type."""

    class Type(models.TextChoices):
        SHARED_MEMORY = "shared_memory"
        TOOL_CACHE = "tool_cache"
        BLACKBOARD = "blackboard"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    workflow_run_id = models.CharField(max_length=200)
    pool_type = models.CharField(max_length=20, choices=Type.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "workflow_run_id", "pool_type"], name="workflow_pool_unique")
        ]
        indexes = [
            models.Index(
                fields=["expires_at"], name="workflow_pool_expires", condition=models.Q(expires_at__isnull=False)
            )
        ]

    def __str__(self) -> str:
        return f"{self.workflow_run_id}/{self.pool_type}"


class PersistentContext(models.Model):
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
    access_control = models.JSONField(default=_default_acl, blank=True, help_text='Per-agent grants: {"read": '
                                      '[agent ids], "write": [agent ids]}')  # fmt: skip
    archived_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="context_unique_name")]

    def __str__(self) -> str:
        return self.name


class ContextEntry(models.Model):
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
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged_entries",
        help_text="Set by dedup: this entry is a near-duplicate kept for the audit trail.",
    )  # fmt: skip
    deprecated_at = models.DateTimeField(null=True, blank=True)
    # Where a machine-made entry came from ("short_term:<id>"): makes consolidation's insert idempotent.
    source_ref = models.CharField(max_length=300, blank=True, default="")
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    search_vector = models.GeneratedField(
        expression=SearchVector("content", config="english"), output_field=SearchVectorField(), db_persist=True
    )
    embedding = VectorField(dimensions=settings.EMBEDDING_DIM, null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

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
                fields=["context", "-created_at"], name="context_entry_live",
                condition=models.Q(is_current=True, archived_at__isnull=True, deprecated_at__isnull=True),
            ),
            models.Index(fields=["owner", "key"], name="context_entry_key", condition=~models.Q(key="")),
            # Semantic search over long-term memory and dedup's nearest-neighbour probe; both read live
            # entries only, and a row that dedup or context rot retires leaves the index (no insert).
            HnswIndex(name="context_entry_embedding_hnsw", fields=["embedding"], m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"],
                      condition=models.Q(is_current=True, archived_at__isnull=True, deprecated_at__isnull=True)),
            GinIndex(fields=["search_vector"], name="context_entry_search_gin"),
        ]  # fmt: skip

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
