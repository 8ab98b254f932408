"""Short-term memory (seed 002's AgentShortTermMemory): key -> JSON value per agent and session, with a
TTL. An agent sees only its own entries; every read filters on expires_at, so an expired entry is gone
for readers at once, before the expired_cleanup job deletes it."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import F, QuerySet
from django.utils import timezone

from accounts.models import Agent
from episodic.models import ShortTermMemory


def short_term_live(*, agent: Agent, now: datetime | None = None) -> QuerySet[ShortTermMemory]:
    return ShortTermMemory.objects.filter(owner_id=agent.owner_id, agent=agent, expires_at__gt=now or timezone.now())


def short_term_write(
    *,
    agent: Agent,
    session_id: str,
    key: str,
    value: Any,
    memory_type: str = ShortTermMemory.Type.TASK_CONTEXT,
    ttl_seconds: int | None = None,
) -> ShortTermMemory:
    """Create or replace the entry (one row per owner, agent, session and key: the unique constraint
    makes concurrent first writes one row). A rewrite restarts the TTL and keeps the access count,
    unless the old entry had expired: then it is a new entry."""
    now = timezone.now()
    ttl = ttl_seconds or settings.MAINTENANCE_SHORT_TERM_TTL
    fields = {
        "value": value,
        "memory_type": memory_type,
        "ttl_seconds": ttl,
        "expires_at": now + timedelta(seconds=ttl),
    }
    expired = ShortTermMemory.objects.filter(
        owner_id=agent.owner_id, agent=agent, session_id=session_id, key=key, expires_at__lte=now
    )
    expired.update(access_count=0, last_accessed_at=None, promoted_to=None, created_at=now)
    entry, _ = ShortTermMemory.objects.update_or_create(
        owner_id=agent.owner_id, agent=agent, session_id=session_id, key=key, defaults=fields
    )
    return entry


def short_term_read(*, agent: Agent, session_id: str, key: str) -> ShortTermMemory | None:
    """The live entry, its read counted (touch_access): one UPDATE with F(), so concurrent reads all
    count and a reader never resurrects an entry that expired between the check and the count."""
    now = timezone.now()
    found = short_term_live(agent=agent, now=now).filter(session_id=session_id, key=key)
    if not found.update(access_count=F("access_count") + 1, last_accessed_at=now):
        return None
    return found.first()


def short_term_list(*, agent: Agent, session_id: str | None = None) -> list[ShortTermMemory]:
    """The agent's live entries (a listing does not count as reading each one)."""
    queryset = short_term_live(agent=agent)
    if session_id is not None:
        queryset = queryset.filter(session_id=session_id)
    return list(queryset.order_by("session_id", "key"))


def short_term_refresh(
    *, agent: Agent, session_id: str, key: str, ttl_seconds: int | None = None
) -> ShortTermMemory | None:
    """refresh_ttl: the entry lives ttl_seconds (its own, or the new one given) from now."""
    entry = short_term_live(agent=agent).filter(session_id=session_id, key=key).first()
    if entry is None:
        return None
    entry.ttl_seconds = ttl_seconds or entry.ttl_seconds
    entry.expires_at = timezone.now() + timedelta(seconds=entry.ttl_seconds)
    entry.save(update_fields=["ttl_seconds", "expires_at", "updated_at"])
    return entry


def short_term_delete(*, agent: Agent, session_id: str, key: str | None = None) -> int:
    """Delete one key, or the whole session when no key is given."""
    queryset = ShortTermMemory.objects.filter(owner_id=agent.owner_id, agent=agent, session_id=session_id)
    if key is not None:
        queryset = queryset.filter(key=key)
    deleted, _ = queryset.delete()
    return deleted
