"""Reads of the episodic app. Every query is filtered by owner; typed memories also by visibility to
the calling agent; expired episodes are invisible at once."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from django.contrib.auth.models import User
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection, transaction
from django.db.models import F, Model, Q, QuerySet
from django.utils import timezone
from pgvector.django import CosineDistance

from accounts.models import Agent
from episodic import providers
from episodic.models import Episode, TypedMemory

# Reciprocal rank fusion (Cormack et al. 2009): score = sum over lists of 1 / (RRF_K + rank).
RRF_K = 60
CANDIDATES_PER_RESULT = 4

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class Hit(Generic[M]):
    item: M
    score: float  # the fused score
    similarity: float | None  # cosine similarity to the query, when both have embeddings
    keyword: float  # full-text rank, 0 when the words do not match


def hybrid_search(
    queryset: QuerySet[M], *, query: str, vector: list[float] | None, limit: int, min_similarity: float | None = None
) -> list[Hit[M]]:
    """pgvector cosine (HNSW) and PostgreSQL full-text search over `queryset`, fused by reciprocal
    rank. Without a query vector (the embedder is down) it is keyword search alone."""
    candidates = limit * CANDIDATES_PER_RESULT
    semantic: list[tuple[Any, float]] = []
    if vector is not None:
        with transaction.atomic(), connection.cursor() as cursor:
            # The owner filter runs after the index scan; iterative scan keeps scanning until enough
            # rows pass it, so a small owner among large ones still gets its k results (pgvector 0.8).
            cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cursor.execute("SET LOCAL hnsw.ef_search = %s", [max(40, candidates)])
            semantic = list(
                queryset.filter(embedding__isnull=False)
                .annotate(distance=CosineDistance("embedding", vector))
                .order_by("distance")
                .values_list("pk", "distance")[:candidates]
            )
        semantic.sort(key=lambda row: row[1])  # relaxed order: put it right
    tsquery = SearchQuery(query, search_type="websearch", config="english")
    lexical = list(
        queryset.filter(search_vector=tsquery)
        .annotate(rank=SearchRank(F("search_vector"), tsquery))
        .order_by("-rank")
        .values_list("pk", "rank")[:candidates]
    )
    similarity = {pk: 1 - float(distance) for pk, distance in semantic}
    keyword = {pk: float(rank) for pk, rank in lexical}
    fused: dict[Any, float] = {}
    for ranking in (semantic, lexical):
        for position, (pk, _) in enumerate(ranking, start=1):
            fused[pk] = fused.get(pk, 0.0) + 1 / (RRF_K + position)
    if min_similarity is not None:
        fused = {pk: s for pk, s in fused.items() if pk in keyword or similarity.get(pk, 1.0) >= min_similarity}
    top = sorted(fused, key=lambda pk: -fused[pk])[:limit]
    rows: dict[Any, M] = {row.pk: row for row in queryset.filter(pk__in=top)}
    missing = [pk for pk in top if pk not in similarity]
    if vector is not None and missing:
        # Keyword-only hits still report how close they are in meaning.
        for pk, distance in (
            queryset.filter(pk__in=missing, embedding__isnull=False)
            .annotate(distance=CosineDistance("embedding", vector))
            .values_list("pk", "distance")
        ):
            similarity[pk] = 1 - float(distance)
    return [
        Hit(
            item=rows[pk],
            score=round(fused[pk], 6),
            similarity=similarity.get(pk),
            keyword=round(keyword.get(pk, 0.0), 6),
        )
        for pk in top
        if pk in rows
    ]


# --- episodes ---------------------------------------------------------------------------------------


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


# --- typed memories ---------------------------------------------------------------------------------


def typed_visible(*, agent: Agent) -> QuerySet[TypedMemory]:
    """What `agent` may read: its owner's account/global memories, its own agent-private ones, and team
    memories it wrote or is named in. An agent-private memory is never shown to another agent."""
    return TypedMemory.objects.filter(owner_id=agent.owner_id, deprecated_at__isnull=True).filter(
        Q(scope__in=[TypedMemory.Scope.ACCOUNT, TypedMemory.Scope.GLOBAL])
        | Q(scope=TypedMemory.Scope.AGENT, agent=agent)
        | Q(scope=TypedMemory.Scope.TEAM, agent=agent)
        | Q(scope=TypedMemory.Scope.TEAM, shared_with__contains=[str(agent.id)])
    )


def typed_query(
    *, agent: Agent, query: str, memory_types: list[str] | None = None, top_k: int = 10
) -> list[Hit[TypedMemory]]:
    queryset = typed_visible(agent=agent)
    if memory_types:
        queryset = queryset.filter(memory_type__in=memory_types)
    vector = providers.embed_query(owner_id=agent.owner_id, text=query)
    return hybrid_search(queryset, query=query, vector=vector, limit=top_k)


def typed_session_timeline(*, agent: Agent, session_id: str) -> list[TypedMemory]:
    return list(
        typed_visible(agent=agent)
        .filter(memory_type=TypedMemory.Type.EPISODIC, session_id=session_id)
        .order_by(F("sequence_number").asc(nulls_last=True), "created_at")
    )


def typed_entity_facts(*, agent: Agent, entity_id: str) -> list[TypedMemory]:
    return list(
        typed_visible(agent=agent)
        .filter(memory_type=TypedMemory.Type.SEMANTIC, entity_id=entity_id)
        .order_by("created_at")
    )


def typed_get(*, agent: Agent, memory_id: uuid.UUID) -> TypedMemory | None:
    return typed_visible(agent=agent).filter(pk=memory_id).first()
