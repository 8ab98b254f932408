"""The tiers router (the multi-tier reference's Memory::RouterService): one entry point to read and write memory by
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
from typing import Any, Literal

from django.utils import timezone

from accounts.models import Agent
from accounts.services import memory_require_enabled
from episodic.models import ContextEntry, ShortTermMemory
from episodic.selectors import contexts as context_selectors
from episodic.selectors import pools as pool_selectors
from episodic.selectors.search import Hit
from episodic.services import context_entries, contexts, pools, short_term
from episodic.services.maintenance.consolidation import consolidation
from episodic.services.maintenance.report import Report
from ledger import selectors as working_memory_reads
from ledger import services as working_memory
from ledger.redis_store import RedisUnavailable
from memory_site.lib.errors import InvalidFieldError

Tier = Literal["working", "short_term", "long_term", "shared"]
TIERS: tuple[Tier, ...] = ("working", "short_term", "long_term", "shared")
WORKING_TIER_MAX_TTL = 900


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


def tier_write(
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
    if chosen != "working":
        memory_require_enabled(owner=agent.owner)  # paused memory keeps nothing new (409)
    if chosen == "working":
        assert session_id
        with _working_tier():
            working_memory.working_memory_merge(
                owner_id=agent.owner_id, conversation_id=session_id, fields={key: value}, ttl_seconds=ttl_seconds
            )
    elif chosen == "short_term":
        assert session_id
        short_term.short_term_write(
            agent=agent,
            session_id=session_id,
            key=key,
            value=value,
            ttl_seconds=ttl_seconds,
            memory_type=memory_type or ShortTermMemory.Type.TASK_CONTEXT,
        )
    elif chosen == "long_term":
        content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
        home = contexts.agent_memory_context(agent=agent)
        current = context_selectors.entry_by_key(agent=agent, key=key, context=home)
        if current is None:
            context_entries.entry_create(
                agent=agent,
                context=home,
                content=content,
                key=key,
                metadata={"value": value},
                entry_type=memory_type or ContextEntry.EntryType.FACT,
            )
        elif current.content != content:
            context_entries.entry_update_content(agent=agent, entry=current, content=content, metadata={"value": value})
    else:
        pool = pool_selectors.pool_get(agent=agent, pool_id=key, level="write")
        if pool is None:
            pools.pool_create(agent=agent, pool_id=key, data=value)
        else:
            pools.pool_write(pool=pool, data=value, expected_version=None)
    return chosen


def tier_read(*, agent: Agent, key: str, tier: Tier | None = None, session_id: str | None = None) -> Found | None:
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
                    exists, value = working_memory_reads.working_memory_field_get(
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
            found = context_selectors.entry_by_key(agent=agent, key=key)
            if found is not None:
                context_entries.entry_read(agent=agent, context=found.context, entry=found)
                return Found("long_term", key, found.metadata.get("value", found.content))
        else:
            pool = pool_selectors.pool_get(agent=agent, pool_id=key)
            if pool is not None and (pool := pools.pool_read(pool=pool)) is not None:
                return Found("shared", key, pool.data)
    return None


def tier_search(*, agent: Agent, query: str, limit: int = 10) -> list[Hit[ContextEntry]]:
    return context_entries.entry_search(agent=agent, query=query, limit=limit)


def tier_consolidate(*, agent: Agent, session_id: str) -> dict[str, int]:
    """Consolidate one session of this agent now (what the nightly job does for everyone)."""
    report = Report(dry_run=False)
    consolidation(report, timezone.now(), session_id=session_id, agent=agent)
    return {"promoted": report.counts.get("promoted", 0), "deleted": report.counts.get("deleted", 0)}
