"""What the tiers router's stats read: counts, sizes and oldest/newest per tier, as one agent sees them
(the tiers are described in episodic.services.tiers)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import redis
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Count, Max, Min, Sum
from django.db.models.functions import Length

from accounts.models import Agent
from episodic.models import Episode, MemoryPool, ShortTermMemory, TypedMemory
from episodic.selectors.contexts import entries_readable
from episodic.selectors.pools import pool_list
from episodic.selectors.short_term import short_term_live
from ledger.redis_store import working_memory_key
from memory_site.redis_client import get_redis

# Stats scan at most this many working-memory keys (Redis SCAN is bounded work per call).
_WORKING_SCAN_LIMIT = 10_000


def _span(rows: dict[str, Any]) -> dict[str, Any]:
    def iso(value: datetime | None) -> str | None:
        return value.isoformat() if value is not None else None

    return {
        "count": rows["count"],
        "size_bytes": int(rows["size"] or 0),
        "oldest": iso(rows["oldest"]),
        "newest": iso(rows["newest"]),
    }


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


def tier_stats(*, agent: Agent) -> dict[str, dict[str, Any]]:
    """Counts, sizes and oldest/newest per tier, as this agent sees them."""
    stm = short_term_live(agent=agent).aggregate(
        count=Count("pk"), oldest=Min("created_at"), newest=Max("created_at"), size=Sum(Length("key"))
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(pg_column_size(value)), 0) FROM episodic_shorttermmemory "
            "WHERE owner_id = %s AND agent_id = %s AND expires_at > now()",
            [agent.owner_id, agent.pk],
        )
        stm["size"] = int(stm["size"] or 0) + int(cursor.fetchone()[0])
    long_term = entries_readable(agent=agent).aggregate(
        count=Count("pk"), oldest=Min("created_at"), newest=Max("created_at"), size=Sum(Length("content"))
    )
    readable = [p.pk for p in pool_list(agent=agent)]
    shared = MemoryPool.objects.filter(pk__in=readable).aggregate(
        count=Count("pk"), oldest=Min("created_at"), newest=Max("created_at")
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(pg_column_size(data)), 0) FROM episodic_memorypool WHERE id = ANY(%s)", [readable]
        )
        shared["size"] = int(cursor.fetchone()[0])
    return {
        "working": _working_stats(agent),
        "short_term": _span(stm),
        "long_term": _span(long_term),
        "shared": _span(shared),
    }


def tier_counts(*, owner: User) -> dict[str, int]:
    """A person's rows per episodic tier, whichever agent wrote them (the /memory overview)."""
    return {
        "Typed memories": TypedMemory.objects.filter(owner=owner, deprecated_at__isnull=True).count(),
        "Episodes": Episode.objects.filter(owner=owner).count(),
        "Short-term entries": ShortTermMemory.objects.filter(owner=owner).count(),
    }
