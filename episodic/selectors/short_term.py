"""Reads of short-term memory. An agent sees only its own entries; every read filters on expires_at, so
an expired entry is gone for readers at once, before the expired_cleanup job deletes it. These do not
count an access (a listing is not a read of each entry); episodic.services.short_term.short_term_read does."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Agent
from episodic.models import ShortTermMemory


def short_term_live(*, agent: Agent, now: datetime | None = None) -> QuerySet[ShortTermMemory]:
    return ShortTermMemory.objects.filter(owner_id=agent.owner_id, agent=agent, expires_at__gt=now or timezone.now())


def short_term_get(*, agent: Agent, session_id: str, key: str) -> ShortTermMemory | None:
    return short_term_live(agent=agent).filter(session_id=session_id, key=key).first()


def short_term_list(*, agent: Agent, session_id: str | None = None) -> list[ShortTermMemory]:
    """The agent's live entries (a listing does not count as reading each one)."""
    queryset = short_term_live(agent=agent)
    if session_id is not None:
        queryset = queryset.filter(session_id=session_id)
    return list(queryset.order_by("session_id", "key"))
