"""Memory pools and workflow pools: JSON documents shared between agents, written with optimistic
concurrency (the multi-tier reference)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from memory_site.models import Timestamped


class VersionedData(Timestamped):
    """A JSON document written with optimistic concurrency: every write names the version it read and
    lands only while that is still the stored version (a conditional UPDATE), else 409."""

    data = models.JSONField(default=dict, blank=True)
    version = models.PositiveBigIntegerField(default=1)
    read_count = models.PositiveBigIntegerField(default=0)
    write_count = models.PositiveBigIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

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
    access_control = models.JSONField(
        default=_default_acl, blank=True, help_text='{"read": [agent ids], "write": [agent ids], "public_read": bool}'
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "pool_id"], name="pool_unique_id")]
        indexes = [
            models.Index(fields=["expires_at"], name="pool_expires", condition=models.Q(expires_at__isnull=False))
        ]

    def __str__(self) -> str:
        return self.pool_id


class WorkflowPool(VersionedData):
    """A workflow run's shared context pool (the multi-tier reference's SharedContextPool): the run's nodes read and
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
