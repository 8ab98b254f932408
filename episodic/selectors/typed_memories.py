"""Reads of typed memories, filtered by what the calling agent may see (`typed_visible`). These return
rows without counting the read: the API reads through episodic.services.typed_memories, which counts it."""

from __future__ import annotations

import uuid

from django.db.models import F, Q, QuerySet

from accounts.models import Agent
from episodic import providers
from episodic.models import TypedMemory
from episodic.selectors.search import Hit, hybrid_search


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
