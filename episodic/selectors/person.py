"""What a person sees of their episodic tiers at /memory/memories: every typed memory and episode they
own, whichever agent wrote it, filtered and searched (these reads are the person's, not an agent's, so
they count no access)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet

from episodic import providers
from episodic.models import Episode, TypedMemory
from episodic.selectors.search import hybrid_search

SEARCH_LIMIT = 25


@dataclass(frozen=True)
class MemoryFilters:
    tier: str = "typed"  # typed | episodes
    memory_type: str = ""
    agent_id: str = ""
    since: datetime | None = None
    until: datetime | None = None  # exclusive


def person_memories(*, owner: User, filters: MemoryFilters) -> QuerySet[Any]:
    """Newest first, by the tier's own date (an episode's occurred_at, a typed memory's created_at)."""
    queryset: QuerySet[Any]
    if filters.tier == "episodes":
        queryset, date_field = Episode.objects.filter(owner=owner).select_related("agent"), "occurred_at"
    else:
        queryset = TypedMemory.objects.filter(owner=owner, deprecated_at__isnull=True).select_related("agent")
        date_field = "created_at"
        if filters.memory_type:
            queryset = queryset.filter(memory_type=filters.memory_type)
    if filters.agent_id:
        queryset = queryset.filter(agent_id=filters.agent_id)
    if filters.since is not None:
        queryset = queryset.filter(**{f"{date_field}__gte": filters.since})
    if filters.until is not None:
        queryset = queryset.filter(**{f"{date_field}__lt": filters.until})
    return queryset.order_by(f"-{date_field}")


def person_memories_search(*, owner: User, filters: MemoryFilters, query: str) -> list[Any]:
    """The same rows, by meaning and words (hybrid search), best first."""
    vector = providers.embed_query(owner_id=owner.pk, text=query)
    rows = person_memories(owner=owner, filters=filters)
    return [hit.item for hit in hybrid_search(rows, query=query, vector=vector, limit=SEARCH_LIMIT)]


def person_memory_get(*, owner: User, tier: str, memory_id: Any) -> Any | None:
    return person_memories(owner=owner, filters=MemoryFilters(tier=tier)).filter(pk=memory_id).first()
