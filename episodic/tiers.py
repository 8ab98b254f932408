"""The tiers router (seed 002's Memory::RouterService): one entry point to read and write memory by
tier, for one agent.

| tier | store | lives |
|---|---|---|
| working | the ledger app's working memory (Redis hash per session = conversation) | minutes to a day |
| short_term | ShortTermMemory (PostgreSQL, TTL) | hours |
| long_term | ContextEntry in the agent's memory context (pgvector) | until archived |
| shared | MemoryPool (pool_id = key) | until deleted or expired |

Auto-routing when no tier is given:
- write: no session -> long_term; a session and ttl_seconds <= WORKING_TIER_MAX_TTL (15 min) ->
  working; a session otherwise -> short_term. `shared` is never chosen automatically (sharing is a
  decision the writer makes).
- read: the fastest tier that holds the key wins: working, short_term (both need the session), then
  long_term (the newest current entry with that key the agent may read), then shared (a pool with that
  id the agent may read).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import redis
from django.db import connection
from django.db.models import Count, Max, Min, Sum
from django.db.models.functions import Length
from django.utils import timezone

from accounts.models import Agent
from episodic import contexts, maintenance, pools, short_term
from episodic.models import ContextEntry, MemoryPool, ShortTermMemory
from ledger import services as working_memory
from ledger.redis_store import RedisUnavailable, working_memory_key
from memory_site.lib.errors import InvalidFieldError
from memory_site.redis_client import get_redis

Tier = Literal["working", "short_term", "long_term", "shared"]
TIERS: tuple[Tier, ...] = ("working", "short_term", "long_term", "shared")
WORKING_TIER_MAX_TTL = 900
# Stats scan at most this many working-memory keys (Redis SCAN is bounded work per call).
_WORKING_SCAN_LIMIT = 10_000


MESSAGE_NEEDS_SESSION = "This tier needs a session_id."


class NeedsSession(InvalidFieldError):
    def __init__(self, tier: str) -> None:
        super().__init__("session_id", MESSAGE_NEEDS_SESSION)
        self.tier = tier


@contextmanager
def _working_tier() -> Iterator[None]:
    """The working tier's outage, said as the tiers router says it (not as working memory's own API)."""
    try:
        yield
    except RedisUnavailable as exc:
        raise RedisUnavailable() from exc


@dataclass(frozen=True)
class Found:
    tier: Tier
    key: str
    value: Any


def route_write(*, tier: Tier | None, session_id: str | None, ttl_seconds: int | None) -> Tier:
    if tier is not None:
        if tier in ("working", "short_term") and not session_id:
            raise NeedsSession(tier)
        return tier
    if not session_id:
        return "long_term"
    if ttl_seconds is not None and ttl_seconds <= WORKING_TIER_MAX_TTL:
        return "working"
    return "short_term"


def _long_term_entry(agent: Agent, key: str) -> ContextEntry | None:
    return contexts.entries_readable(agent=agent).filter(key=key).order_by("-created_at").first()


def write(
    *,
    agent: Agent,
    key: str,
    value: Any,
    tier: Tier | None = None,
    session_id: str | None = None,
    ttl_seconds: int | None = None,
    memory_type: str | None = None,
) -> Tier:
    chosen = route_write(tier=tier, session_id=session_id, ttl_seconds=ttl_seconds)
    if chosen == "working":
        assert session_id
        with _working_tier():
            working_memory.working_memory_merge(
                owner_id=agent.owner_id, conversation_id=session_id, fields={key: value}, ttl_seconds=ttl_seconds
            )
    elif chosen == "short_term":
        assert session_id
        short_term.short_term_write(agent=agent, session_id=session_id, key=key, value=value, ttl_seconds=ttl_seconds,
                                    memory_type=memory_type or ShortTermMemory.Type.TASK_CONTEXT)  # fmt: skip
    elif chosen == "long_term":
        content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
        home = contexts.agent_memory_context(agent=agent)
        current = contexts.entries_live(home.entries.all()).filter(key=key).order_by("-created_at").first()
        if current is None:
            contexts.entry_create(agent=agent, context=home, content=content, key=key, metadata={"value": value},
                                  entry_type=memory_type or ContextEntry.EntryType.FACT)  # fmt: skip
        elif current.content != content:
            contexts.entry_update_content(agent=agent, entry=current, content=content, metadata={"value": value})
    else:
        pool = pools.pool_get(agent=agent, pool_id=key, level="write")
        if pool is None:
            pools.pool_create(agent=agent, pool_id=key, data=value)
        else:
            pools.pool_write(pool=pool, data=value, expected_version=None)
    return chosen


def read(*, agent: Agent, key: str, tier: Tier | None = None, session_id: str | None = None) -> Found | None:
    order: tuple[Tier, ...] = (tier,) if tier is not None else TIERS
    for candidate in order:
        if candidate in ("working", "short_term") and not session_id:
            if tier is not None:
                raise NeedsSession(tier)
            continue
        if candidate == "working":
            assert session_id
            try:
                with _working_tier():
                    exists, value = working_memory.working_memory_field_get(
                        owner_id=agent.owner_id, conversation_id=session_id, field=key
                    )
            except RedisUnavailable:
                if tier is not None:
                    raise
                continue  # auto-routing goes on to the durable tiers
            if exists:
                return Found("working", key, value)
        elif candidate == "short_term":
            assert session_id
            entry = short_term.short_term_read(agent=agent, session_id=session_id, key=key)
            if entry is not None:
                return Found("short_term", key, entry.value)
        elif candidate == "long_term":
            found = _long_term_entry(agent, key)
            if found is not None:
                contexts.entry_touch(ids=[found.pk])
                contexts.context_read(agent=agent, context=found.context, entry_id=str(found.pk))
                return Found("long_term", key, found.metadata.get("value", found.content))
        else:
            pool = pools.pool_get(agent=agent, pool_id=key)
            if pool is not None and (pool := pools.pool_read(pool=pool)) is not None:
                return Found("shared", key, pool.data)
    return None


def semantic_search(*, agent: Agent, query: str, limit: int = 10) -> list[Any]:
    return contexts.entry_search(agent=agent, query=query, limit=limit)


def consolidate(*, agent: Agent, session_id: str) -> dict[str, int]:
    """Consolidate one session of this agent now (what the nightly job does for everyone)."""
    report = maintenance.Report(dry_run=False)
    maintenance.consolidation(report, timezone.now(), session_id=session_id, agent=agent)
    return {"promoted": report.counts.get("promoted", 0), "deleted": report.counts.get("deleted", 0)}


def _span(rows: dict[str, Any]) -> dict[str, Any]:
    def iso(value: datetime | None) -> str | None:
        return value.isoformat() if value is not None else None

    return {"count": rows["count"], "size_bytes": int(rows["size"] or 0), "oldest": iso(rows["oldest"]),
            "newest": iso(rows["newest"])}  # fmt: skip


def _working_stats(agent: Agent) -> dict[str, Any]:
    """The owner's working memories (working memory is per conversation, shared by the owner's agents)."""
    try:
        client = get_redis()
        sessions = fields = size = 0
        for name in client.scan_iter(match=working_memory_key(agent.owner_id, "*"), count=500):
            sessions += 1
            fields += int(client.hlen(name))
            size += int(client.memory_usage(name) or 0)
            if sessions >= _WORKING_SCAN_LIMIT:
                break
    except redis.RedisError as exc:
        return {"available": False, "error": type(exc).__name__}
    return {"available": True, "sessions": sessions, "count": fields, "size_bytes": size}


def stats(*, agent: Agent) -> dict[str, dict[str, Any]]:
    """Counts, sizes and oldest/newest per tier, as this agent sees them."""
    stm = short_term.short_term_live(agent=agent).aggregate(
        count=Count("pk"), oldest=Min("created_at"), newest=Max("created_at"), size=Sum(Length("key"))
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(pg_column_size(value)), 0) FROM episodic_shorttermmemory "
            "WHERE owner_id = %s AND agent_id = %s AND expires_at > now()",
            [agent.owner_id, agent.pk],
        )
        stm["size"] = int(stm["size"] or 0) + int(cursor.fetchone()[0])
    long_term = contexts.entries_readable(agent=agent).aggregate(
        count=Count("pk"), oldest=Min("created_at"), newest=Max("created_at"), size=Sum(Length("content"))
    )
    readable = [p.pk for p in pools.pool_list(agent=agent)]
    shared = MemoryPool.objects.filter(pk__in=readable).aggregate(
        count=Count("pk"), oldest=Min("created_at"), newest=Max("created_at")
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(pg_column_size(data)), 0) FROM episodic_memorypool WHERE id = ANY(%s)",
                       [readable])  # fmt: skip
        shared["size"] = int(cursor.fetchone()[0])
    return {
        "working": _working_stats(agent),
        "short_term": _span(stm),
        "long_term": _span(long_term),
        "shared": _span(shared),
    }
