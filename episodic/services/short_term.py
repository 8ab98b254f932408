"""Writes of short-term memory (the reference short-term memory): key -> JSON value per agent and
session, with a TTL; and the read of one entry, which counts an access. The reads that do not count
(live entries, a listing) are in episodic.selectors.short_term."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from accounts.models import Agent
from episodic.models import ShortTermMemory
from episodic.selectors.short_term import short_term_get, short_term_live
from episodic.services.reads import reads_record


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
    """The live entry, its read counted (touch_access) by an UPDATE of the live row only, so a reader
    never resurrects an entry that expired between the check and the count."""
    found = short_term_live(agent=agent).filter(session_id=session_id, key=key)
    if not reads_record(queryset=found):
        return None
    return found.first()


def short_term_read_session(*, agent: Agent, session_id: str, limit: int) -> list[ShortTermMemory]:
    """The session's newest live entries (at most `limit`), each read counted: context assembly hands
    them to the model, which is a read like any other."""
    entries = list(short_term_live(agent=agent).filter(session_id=session_id).order_by("-updated_at")[:limit])
    reads_record(queryset=short_term_live(agent=agent).filter(pk__in=[entry.pk for entry in entries]))
    return entries


def short_term_refresh(
    *, agent: Agent, session_id: str, key: str, ttl_seconds: int | None = None
) -> ShortTermMemory | None:
    """refresh_ttl: the entry lives ttl_seconds (its own, or the new one given) from now."""
    entry = short_term_get(agent=agent, session_id=session_id, key=key)
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
