"""Writes of typed memories (create, delete) and the reads that count: every read of a typed memory by
an agent (a query, a session's timeline, an entity's facts, one memory) goes through here and counts an
access of each memory returned.

The embedding is computed before any transaction (STYLE habit 6); a null one is filled in later by
the embedding_backfill job.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.models import User

from accounts.models import Agent
from accounts.services import memory_require_enabled
from episodic import providers
from episodic.models import TypedMemory
from episodic.selectors import typed_memories as selectors
from episodic.selectors.search import Hit
from episodic.services.reads import reads_record
from memory_site.lib.errors import InvalidFieldError

DEFAULT_SCOPES = {
    TypedMemory.Type.EPISODIC: TypedMemory.Scope.AGENT,
    TypedMemory.Type.SEMANTIC: TypedMemory.Scope.GLOBAL,
    TypedMemory.Type.PROCEDURAL: TypedMemory.Scope.GLOBAL,
    TypedMemory.Type.CONTROL: TypedMemory.Scope.GLOBAL,
}
REQUIRED_FIELDS = {TypedMemory.Type.EPISODIC: ("session_id",)}
# The per-type fields of the typed-memory reference; a field of another type is refused rather than silently stored.
TYPE_FIELDS = {
    TypedMemory.Type.EPISODIC: {"session_id", "sequence_number"},
    TypedMemory.Type.SEMANTIC: {"entity_id"},
    TypedMemory.Type.PROCEDURAL: {"steps", "trigger_conditions"},
    TypedMemory.Type.CONTROL: {"error_pattern", "severity", "source_trajectory_id"},
}
_ALL_TYPE_FIELDS = set().union(*TYPE_FIELDS.values())


class MissingField(InvalidFieldError):
    def __init__(self, field_name: str, memory_type: str) -> None:
        super().__init__(field_name, f"{field_name} is required for {memory_type} memories.")


class ForeignField(InvalidFieldError):
    def __init__(self, field_name: str, memory_type: str) -> None:
        super().__init__(field_name, f"{field_name} does not belong to {memory_type} memories.")


class EmptyTeam(InvalidFieldError):
    def __init__(self) -> None:
        super().__init__("shared_with", "A team memory names at least one agent in shared_with.")


def typed_memory_create(
    *,
    owner: User,
    agent: Agent,
    memory_type: str,
    content: str,
    scope: str | None = None,
    **fields: Any,
) -> TypedMemory:
    memory_require_enabled(owner=owner)  # paused memory keeps nothing new (409)
    for required in REQUIRED_FIELDS.get(TypedMemory.Type(memory_type), ()):
        if not fields.get(required):
            raise MissingField(required, memory_type)
    own_fields = TYPE_FIELDS.get(TypedMemory.Type(memory_type))
    if own_fields is not None:
        given = {name for name, value in fields.items() if value not in (None, "", [])}
        for name in sorted((_ALL_TYPE_FIELDS - own_fields) & given):
            raise ForeignField(name, memory_type)
    if scope == TypedMemory.Scope.TEAM and not fields.get("shared_with"):
        raise EmptyTeam()
    vector = providers.embed_query(owner_id=owner.pk, text=content)  # before the transaction
    return TypedMemory.objects.create(
        owner=owner,
        agent=agent,
        memory_type=memory_type,
        content=content,
        scope=scope or DEFAULT_SCOPES.get(memory_type, TypedMemory.Scope.ACCOUNT),  # type: ignore[call-overload]
        embedding=vector,
        embedding_model=providers.get_embedder().name if vector is not None else "",
        **fields,
    )


def typed_memory_edit(*, memory: TypedMemory, content: str) -> TypedMemory:
    """A person's correction: the new text replaces the old and is embedded again at once, so search finds
    the new text and never the old (the full-text column is generated from `content`). With the embedder
    down the vector is cleared, not kept stale: keyword search finds the new text and the backfill job
    embeds it later."""
    content = content.strip()
    if not content:
        raise InvalidFieldError("content", "A memory cannot be empty; forget it instead.")
    vector = providers.embed_query(owner_id=memory.owner_id, text=content)  # before the transaction
    memory.content = content
    memory.embedding = vector
    memory.embedding_model = providers.get_embedder().name if vector is not None else ""
    memory.save(update_fields=["content", "embedding", "embedding_model", "updated_at"])
    return memory


def typed_memory_delete(*, memory: TypedMemory) -> None:
    memory.delete()


# --- reads that count ----------------------------------------------------------------------------------


def _counted(memories: list[TypedMemory]) -> None:
    reads_record(queryset=TypedMemory.objects.filter(pk__in=[memory.pk for memory in memories]))


def typed_memory_query(
    *, agent: Agent, query: str, memory_types: list[str] | None = None, top_k: int = 10
) -> list[Hit[TypedMemory]]:
    hits = selectors.typed_query(agent=agent, query=query, memory_types=memory_types, top_k=top_k)
    _counted([hit.item for hit in hits])
    return hits


def typed_memory_session_timeline(*, agent: Agent, session_id: str) -> list[TypedMemory]:
    memories = selectors.typed_session_timeline(agent=agent, session_id=session_id)
    _counted(memories)
    return memories


def typed_memory_entity_facts(*, agent: Agent, entity_id: str) -> list[TypedMemory]:
    memories = selectors.typed_entity_facts(agent=agent, entity_id=entity_id)
    _counted(memories)
    return memories


def typed_memory_read(*, agent: Agent, memory_id: uuid.UUID) -> TypedMemory | None:
    """The memory as it was before this read was counted (None when the agent may not see it)."""
    memory = selectors.typed_get(agent=agent, memory_id=memory_id)
    if memory is not None:
        _counted([memory])
    return memory
