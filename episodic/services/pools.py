"""Writes of memory pools (data shared between an owner's agents) and workflow pools (a workflow run's
shared context), both JSON documents written with optimistic concurrency; and their reads, which count.

Every write is a conditional UPDATE (`... WHERE version = <the version the writer read>`): when another
write landed in between, nothing changes and the caller gets `StaleVersion` (409 over HTTP). A writer
that names no version gets the same guarantee by retrying: it reads, computes, and writes only over the
version it read, so two concurrent merges both land and neither is lost. Who may use a pool is in
episodic.selectors.pools.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from accounts.models import Agent
from episodic.models import MemoryPool, VersionedData, WorkflowPool
from episodic.selectors.pools import Level, pools_live, workflow_pool_get, workflow_pools
from memory_site.lib.errors import ConflictError

V = TypeVar("V", bound=VersionedData)
# A writer that names no version retries this many times when others keep writing in between.
UNVERSIONED_RETRIES = 20


MESSAGE_POOL_EXISTS = "A memory pool with this id already exists."
MESSAGE_STALE_VERSION = "The pool changed since the version you read: read it again and retry."


class StaleVersion(ConflictError):
    message = MESSAGE_STALE_VERSION

    def __init__(self, current: int) -> None:
        super().__init__(extra={"current_version": current})  # the number kept a number
        self.current = current


class PoolExists(ConflictError):
    message = MESSAGE_POOL_EXISTS


def merge_patch(target: Any, patch: Any) -> Any:
    """JSON Merge Patch (RFC 7396): objects merge key by key, a null deletes a key, anything else
    replaces the value."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _versioned_update(
    queryset: QuerySet[V], *, pk: Any, expected_version: int | None, change: Callable[[Any], Any]
) -> V:
    """Apply `change` to the stored data over the version read; see the module docstring."""
    for _ in range(UNVERSIONED_RETRIES):
        row = queryset.filter(pk=pk).values("data", "version").first()
        if row is None:
            raise queryset.model.DoesNotExist
        if expected_version is not None and row["version"] != expected_version:
            raise StaleVersion(row["version"])
        now = timezone.now()
        landed = queryset.filter(pk=pk, version=row["version"]).update(
            data=change(row["data"]),
            version=F("version") + 1,
            write_count=F("write_count") + 1,
            last_accessed_at=now,
            updated_at=now,
        )
        if landed:
            return queryset.get(pk=pk)
        if expected_version is not None:
            raise StaleVersion(queryset.filter(pk=pk).values_list("version", flat=True).first() or 0)
    raise StaleVersion(queryset.filter(pk=pk).values_list("version", flat=True).first() or 0)


def data_write(queryset: QuerySet[V], *, pk: Any, data: Any, expected_version: int | None) -> V:
    return _versioned_update(queryset, pk=pk, expected_version=expected_version, change=lambda _: data)


def data_merge(queryset: QuerySet[V], *, pk: Any, patch: dict[str, Any], expected_version: int | None) -> V:
    return _versioned_update(
        queryset, pk=pk, expected_version=expected_version, change=lambda data: merge_patch(data, patch)
    )


def data_read(queryset: QuerySet[V], *, pk: Any) -> V | None:
    """The document, its read counted (F(), so concurrent reads all count)."""
    if not queryset.filter(pk=pk).update(read_count=F("read_count") + 1, last_accessed_at=timezone.now()):
        return None
    return queryset.filter(pk=pk).first()


# --- memory pools -------------------------------------------------------------------------------------


def pool_create(
    *,
    agent: Agent,
    pool_id: str,
    pool_type: str = MemoryPool.Type.SHARED,
    scope: str = MemoryPool.Scope.ACCOUNT,
    data: Any = None,
    access_control: dict[str, Any] | None = None,
    task_id: str = "",
    expires_at: datetime | None = None,
) -> MemoryPool:
    acl = {"read": [], "write": [], "public_read": False, **(access_control or {})}
    pools = MemoryPool.objects.filter(owner_id=agent.owner_id, pool_id=pool_id)
    # An expired pool not yet cleaned up gives its id back.
    pools.filter(expires_at__lte=timezone.now()).delete()
    pool, created = MemoryPool.objects.get_or_create(
        owner_id=agent.owner_id,
        pool_id=pool_id,
        defaults={
            "created_by": agent,
            "pool_type": pool_type,
            "scope": scope,
            "data": {} if data is None else data,
            "access_control": acl,
            "task_id": task_id,
            "expires_at": expires_at,
        },
    )
    if not created:
        raise PoolExists()
    return pool


def pool_write(*, pool: MemoryPool, data: Any, expected_version: int | None) -> MemoryPool:
    return data_write(
        MemoryPool.objects.filter(owner_id=pool.owner_id), pk=pool.pk, data=data, expected_version=expected_version
    )


def pool_merge(*, pool: MemoryPool, patch: dict[str, Any], expected_version: int | None) -> MemoryPool:
    return data_merge(
        MemoryPool.objects.filter(owner_id=pool.owner_id), pk=pool.pk, patch=patch, expected_version=expected_version
    )


def pool_read(*, pool: MemoryPool) -> MemoryPool | None:
    return data_read(pools_live(MemoryPool.objects.filter(owner_id=pool.owner_id)), pk=pool.pk)


def _acl_update(pool: MemoryPool, change: Callable[[dict[str, Any]], dict[str, Any]]) -> MemoryPool:
    # The ACL is read and written under a row lock: two grants at once both land.
    with transaction.atomic():
        locked = MemoryPool.objects.select_for_update().get(pk=pool.pk)
        locked.access_control = change({"read": [], "write": [], "public_read": False, **locked.access_control})
        locked.save(update_fields=["access_control", "updated_at"])
    return locked


def pool_grant(*, pool: MemoryPool, agent_id: str, level: Level) -> MemoryPool:
    """Let an agent read, or read and write (write implies read)."""

    def change(acl: dict[str, Any]) -> dict[str, Any]:
        for name in ("read", "write") if level == "write" else ("read",):
            if agent_id not in acl[name]:
                acl[name] = [*acl[name], agent_id]
        return acl

    return _acl_update(pool, change)


def pool_revoke(*, pool: MemoryPool, agent_id: str) -> MemoryPool:
    def change(acl: dict[str, Any]) -> dict[str, Any]:
        acl["read"] = [a for a in acl["read"] if a != agent_id]
        acl["write"] = [a for a in acl["write"] if a != agent_id]
        return acl

    return _acl_update(pool, change)


def pool_delete(*, pool: MemoryPool) -> None:
    pool.delete()


# --- workflow pools -----------------------------------------------------------------------------------


def workflow_pool_ensure(
    *, owner_id: int, run_id: str, pool_type: str, expires_at: datetime | None = None
) -> WorkflowPool:
    # An expired pool not yet cleaned up gives its place back (as in pool_create): else the write and
    # merge, which see live pools only, would answer DoesNotExist until the expired_cleanup job ran.
    WorkflowPool.objects.filter(
        owner_id=owner_id, workflow_run_id=run_id, pool_type=pool_type, expires_at__lte=timezone.now()
    ).delete()
    pool, _ = WorkflowPool.objects.get_or_create(
        owner_id=owner_id, workflow_run_id=run_id, pool_type=pool_type, defaults={"expires_at": expires_at}
    )
    return pool


def workflow_pool_write(
    *, owner_id: int, run_id: str, pool_type: str, data: Any, expected_version: int | None
) -> WorkflowPool:
    pool = workflow_pool_ensure(owner_id=owner_id, run_id=run_id, pool_type=pool_type)
    return data_write(workflow_pools(owner_id=owner_id), pk=pool.pk, data=data, expected_version=expected_version)


def workflow_pool_merge(
    *, owner_id: int, run_id: str, pool_type: str, patch: dict[str, Any], expected_version: int | None
) -> WorkflowPool:
    pool = workflow_pool_ensure(owner_id=owner_id, run_id=run_id, pool_type=pool_type)
    return data_merge(workflow_pools(owner_id=owner_id), pk=pool.pk, patch=patch, expected_version=expected_version)


def workflow_pool_read(*, owner_id: int, run_id: str, pool_type: str) -> WorkflowPool | None:
    pool = workflow_pool_get(owner_id=owner_id, run_id=run_id, pool_type=pool_type)
    return None if pool is None else data_read(workflow_pools(owner_id=owner_id), pk=pool.pk)


def workflow_pool_delete(*, pool: WorkflowPool) -> None:
    pool.delete()
