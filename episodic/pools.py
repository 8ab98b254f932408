"""Memory pools (data shared between an owner's agents) and workflow pools (a workflow run's shared
context), both JSON documents written with optimistic concurrency.

Every write is a conditional UPDATE (`... WHERE version = <the version the writer read>`): when another
write landed in between, nothing changes and the caller gets `StaleVersion` (409 over HTTP). A writer
that names no version gets the same guarantee by retrying: it reads, computes, and writes only over the
version it read, so two concurrent merges both land and neither is lost.

Access to a memory pool (`pool_accessible_by`), over the owner's agents only:
- read: the creating agent, agents in `read` or `write`, every agent when `public_read` is on or the
  scope is `account` / `global`;
- write: the creating agent and agents in `write`; for `account` / `global` pools whose `write` list
  is empty, every agent. An `agent_private` pool is its creator's alone unless it grants access.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeVar

from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from accounts.models import Agent
from episodic.models import MemoryPool, VersionedData, WorkflowPool
from memory_site.lib.errors import ConflictError

Level = Literal["read", "write"]
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
            data=change(row["data"]), version=F("version") + 1, write_count=F("write_count") + 1,
            last_accessed_at=now, updated_at=now,
        )  # fmt: skip
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


@dataclass(frozen=True)
class Statistics:
    entries: int  # top-level keys (or items of a top-level list)
    size_bytes: int  # the document as compact JSON
    reads: int
    writes: int
    version: int
    last_accessed_at: datetime | None


def statistics(row: VersionedData) -> Statistics:
    data = row.data
    return Statistics(
        entries=len(data) if isinstance(data, dict | list) else 1,
        size_bytes=len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()),
        reads=row.read_count,
        writes=row.write_count,
        version=row.version,
        last_accessed_at=row.last_accessed_at,
    )


# --- memory pools -------------------------------------------------------------------------------------


def _live(queryset: QuerySet[V]) -> QuerySet[V]:
    return queryset.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))


def pool_accessible_by(pool: MemoryPool, agent: Agent, level: Level = "read") -> bool:
    if pool.owner_id != agent.owner_id:
        return False
    agent_id = str(agent.pk)
    acl = pool.access_control or {}
    writers = [str(a) for a in acl.get("write", [])]
    if pool.created_by_id == agent.pk or agent_id in writers:
        return True
    open_scope = pool.scope in (MemoryPool.Scope.ACCOUNT, MemoryPool.Scope.GLOBAL)
    if level == "write":
        return open_scope and not writers and pool.pool_type != MemoryPool.Type.AGENT_PRIVATE
    readers = [str(a) for a in acl.get("read", [])]
    if agent_id in readers:
        return True
    return pool.pool_type != MemoryPool.Type.AGENT_PRIVATE and (bool(acl.get("public_read")) or open_scope)


def pools_of(*, agent: Agent) -> QuerySet[MemoryPool]:
    """The owner's live pools (callers check access per pool)."""
    return _live(MemoryPool.objects.filter(owner_id=agent.owner_id))


def pool_get(*, agent: Agent, pool_id: str, level: Level = "read") -> MemoryPool | None:
    """The pool when the agent may use it at `level`; None otherwise (the API answers 404 either way,
    so a pool's existence never leaks)."""
    pool = pools_of(agent=agent).filter(pool_id=pool_id).first()
    return pool if pool is not None and pool_accessible_by(pool, agent, level) else None


def pool_list(*, agent: Agent) -> list[MemoryPool]:
    return [pool for pool in pools_of(agent=agent).order_by("pool_id") if pool_accessible_by(pool, agent)]


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
        owner_id=agent.owner_id, pool_id=pool_id,
        defaults={"created_by": agent, "pool_type": pool_type, "scope": scope, "data": {} if data is None else data,
                  "access_control": acl, "task_id": task_id, "expires_at": expires_at},
    )  # fmt: skip
    if not created:
        raise PoolExists()
    return pool


def pool_write(*, pool: MemoryPool, data: Any, expected_version: int | None) -> MemoryPool:
    return data_write(MemoryPool.objects.filter(owner_id=pool.owner_id), pk=pool.pk, data=data,
                      expected_version=expected_version)  # fmt: skip


def pool_merge(*, pool: MemoryPool, patch: dict[str, Any], expected_version: int | None) -> MemoryPool:
    return data_merge(MemoryPool.objects.filter(owner_id=pool.owner_id), pk=pool.pk, patch=patch,
                      expected_version=expected_version)  # fmt: skip


def pool_read(*, pool: MemoryPool) -> MemoryPool | None:
    return data_read(_live(MemoryPool.objects.filter(owner_id=pool.owner_id)), pk=pool.pk)


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


def workflow_pools(*, owner_id: int) -> QuerySet[WorkflowPool]:
    """A run's pools are shared by every agent of the owner (the run's nodes)."""
    return _live(WorkflowPool.objects.filter(owner_id=owner_id))


def workflow_pool_get(*, owner_id: int, run_id: str, pool_type: str) -> WorkflowPool | None:
    return workflow_pools(owner_id=owner_id).filter(workflow_run_id=run_id, pool_type=pool_type).first()


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
