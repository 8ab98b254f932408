"""Reads of episodes. Every query is filtered by owner; an expired episode is invisible at once, before
the expired_cleanup job deletes it."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from accounts import selectors as account_selectors
from accounts.models import Agent
from episodic import providers
from episodic.models import Episode
from episodic.selectors.search import Hit, hybrid_search


def episodes_visible(*, owner: User) -> QuerySet[Episode]:
    return Episode.objects.filter(owner=owner, expires_at__gt=timezone.now())


def _episode_filters(
    queryset: QuerySet[Episode],
    *,
    agent_id: uuid.UUID | None = None,
    user_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> QuerySet[Episode]:
    if agent_id is not None:
        queryset = queryset.filter(agent_id=agent_id)
    if user_id:
        queryset = queryset.filter(user_id=user_id)
    if since is not None:
        queryset = queryset.filter(occurred_at__gte=since)
    if until is not None:
        queryset = queryset.filter(occurred_at__lte=until)
    return queryset


def episode_recent(*, owner: User, limit: int = 20, offset: int = 0, **filters: Any) -> list[Episode]:
    queryset = _episode_filters(episodes_visible(owner=owner), **filters).order_by("-occurred_at", "-created_at")
    return list(queryset[offset : offset + limit])


def episode_count(*, owner: User, **filters: Any) -> int:
    return _episode_filters(episodes_visible(owner=owner), **filters).count()


def episode_search(
    *, owner: User, query: str, limit: int = 10, min_similarity: float | None = None, **filters: Any
) -> list[Hit[Episode]]:
    vector = providers.embed_query(owner_id=owner.pk, text=query)  # outside the search transaction
    queryset = _episode_filters(episodes_visible(owner=owner), **filters)
    return hybrid_search(queryset, query=query, vector=vector, limit=limit, min_similarity=min_similarity)


def episodes_by_conversation(*, owner: User, conversation_id: str) -> list[Episode]:
    return list(episodes_visible(owner=owner).filter(conversation_id=conversation_id).order_by("occurred_at"))


def episode_get(*, owner: User, episode_id: uuid.UUID) -> Episode | None:
    return episodes_visible(owner=owner).filter(pk=episode_id).first()


def agent_by_id_or_name(*, owner: User, value: str) -> Agent | None:
    """The reference paths name an agent by its id or by its name."""
    agent = account_selectors.agent_get(owner=owner, agent_id=value)
    return agent or account_selectors.agent_list(owner=owner).filter(name=value).first()
