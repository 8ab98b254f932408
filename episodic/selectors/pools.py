"""Reads of memory pools and workflow pools. Expired pools are invisible at once, before the
expired_cleanup job deletes them. Access to a memory pool (`pool_accessible_by`), over the owner's agents only:
- read: the creating agent, agents in `read` or `write`, every agent when `public_read` is on or the
  scope is `account` / `global`;
- write: the creating agent and agents in `write`; for `account` / `global` pools whose `write` list
  is empty, every agent. An `agent_private` pool is its creator's alone unless it grants access.
A workflow run's pools are shared by every agent of the owner (the run's nodes)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypeVar

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Agent
from episodic.models import MemoryPool, VersionedData, WorkflowPool

Level = Literal["read", "write"]
V = TypeVar("V", bound=VersionedData)


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


def pools_live(queryset: QuerySet[V]) -> QuerySet[V]:
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
    return pools_live(MemoryPool.objects.filter(owner_id=agent.owner_id))


def pool_get(*, agent: Agent, pool_id: str, level: Level = "read") -> MemoryPool | None:
    """The pool when the agent may use it at `level`; None otherwise (the API answers 404 either way,
    so a pool's existence never leaks)."""
    pool = pools_of(agent=agent).filter(pool_id=pool_id).first()
    return pool if pool is not None and pool_accessible_by(pool, agent, level) else None


def pool_list(*, agent: Agent) -> list[MemoryPool]:
    return [pool for pool in pools_of(agent=agent).order_by("pool_id") if pool_accessible_by(pool, agent)]


def workflow_pools(*, owner_id: int) -> QuerySet[WorkflowPool]:
    """A run's pools are shared by every agent of the owner (the run's nodes)."""
    return pools_live(WorkflowPool.objects.filter(owner_id=owner_id))


def workflow_pool_get(*, owner_id: int, run_id: str, pool_type: str) -> WorkflowPool | None:
    return workflow_pools(owner_id=owner_id).filter(workflow_run_id=run_id, pool_type=pool_type).first()


def workflow_run_pools(*, owner_id: int, run_id: str) -> list[WorkflowPool]:
    return list(workflow_pools(owner_id=owner_id).filter(workflow_run_id=run_id).order_by("pool_type"))
