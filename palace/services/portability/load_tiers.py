"""Writers for the other tiers: episodes, typed memories, short-term entries, memory and workflow pools,
persistent contexts and their entries. Rows without a unique natural key in the schema (episodes,
typed memories, context entries) are matched on the fields that make them the same memory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from episodic.models import (
    ContextEntry,
    Episode,
    MemoryPool,
    PersistentContext,
    ShortTermMemory,
    TypedMemory,
    WorkflowPool,
)
from episodic.services.episodes import _search_text as episode_search_text
from palace.services.portability.rows import BadRow, Row

if TYPE_CHECKING:
    from palace.services.portability.load import Loader


def _seen(loader: Loader, kind: str, key: tuple[Any, ...], stored: Any) -> bool:
    """True when `key` is stored already (or came earlier in the file); remembers it otherwise."""
    keys = loader.ref(kind, lambda: ((k, True) for k in stored()))
    if key in keys:
        return True
    keys[key] = True
    return False


def episode_write(loader: Loader, row: Row) -> None:
    agent = loader.agent(row.text("agent", None, null=True))
    episode = Episode(
        owner=loader.owner,
        agent=agent,
        user_id=row.text("user_id", ""),
        conversation_id=row.text("conversation_id"),
        summary=row.text("summary", blank=False),
        keywords=row.names("keywords", []),
        topic=row.text("topic", ""),
        importance=row.real("importance", 0.5),
        episode_type=row.choice("episode_type", Episode.Type.choices, Episode.Type.CONVERSATION),
        metadata=row.mapping("metadata", {}),
        occurred_at=row.when("occurred_at"),
        expires_at=row.when("expires_at"),
    )
    episode.search_text = episode_search_text(episode.summary, episode.topic, episode.keywords)
    key = (episode.conversation_id, episode.episode_type, episode.summary, episode.occurred_at)
    stored = Episode.objects.filter(owner=loader.owner).values_list(
        "conversation_id", "episode_type", "summary", "occurred_at"
    )
    if not _seen(loader, "episode key", key, stored.iterator):
        loader.vector(row, episode)
        loader.queue(episode)


def typed_memory_write(loader: Loader, row: Row) -> None:
    agent = loader.agent(row.text("agent", blank=False))
    memory = TypedMemory(
        owner=loader.owner,
        agent=agent,
        memory_type=row.choice("memory_type", TypedMemory.Type.choices),
        scope=row.choice("scope", TypedMemory.Scope.choices),
        shared_with=loader.agent_ids(row.names("shared_with", [])),
        content=row.text("content", blank=False),
        session_id=row.text("session_id", None, null=True),
        sequence_number=row.any("sequence_number", None),
        entity_id=row.text("entity_id", None, null=True),
        steps=row.items("steps", []),
        trigger_conditions=row.items("trigger_conditions", []),
        error_pattern=row.text("error_pattern", ""),
        severity=row.text("severity", ""),
        source_trajectory_id=row.text("source_trajectory_id", ""),
        metadata=row.mapping("metadata", {}),
        deprecated_at=row.when("deprecated_at", None, null=True),
    )
    if memory.sequence_number is not None and not isinstance(memory.sequence_number, int):
        raise BadRow("'sequence_number' must be a whole number.")
    key = (agent.pk if agent else None, memory.memory_type, memory.content, memory.session_id, memory.entity_id)
    stored = TypedMemory.objects.filter(owner=loader.owner).values_list(
        "agent_id", "memory_type", "content", "session_id", "entity_id"
    )
    if not _seen(loader, "typed key", key, stored.iterator):
        loader.vector(row, memory)
        loader.queue(memory)


def short_term_write(loader: Loader, row: Row) -> None:
    ShortTermMemory.objects.update_or_create(
        owner=loader.owner,
        agent=loader.agent(row.text("agent", blank=False)),
        session_id=row.text("session_id", blank=False),
        key=row.text("key", blank=False),
        defaults={
            "value": row.any("value"),
            "memory_type": row.choice("memory_type", ShortTermMemory.Type.choices),
            "ttl_seconds": row.number("ttl_seconds"),
            "expires_at": row.when("expires_at"),
        },
    )


def _acl(loader: Loader, row: Row) -> dict[str, Any]:
    acl = dict(row.mapping("access_control", {}))
    for grant in ("read", "write"):
        acl[grant] = loader.agent_ids(Row(acl).names(grant, []))
    return acl


def memory_pool_write(loader: Loader, row: Row) -> None:
    MemoryPool.objects.update_or_create(
        owner=loader.owner,
        pool_id=row.text("pool_id", blank=False),
        defaults={
            "created_by": loader.agent(row.text("created_by", None, null=True)),
            "pool_type": row.choice("pool_type", MemoryPool.Type.choices),
            "scope": row.choice("scope", MemoryPool.Scope.choices),
            "task_id": row.text("task_id", ""),
            "access_control": _acl(loader, row),
            "data": row.mapping("data", {}),
            "version": row.number("version", 1),
            "expires_at": row.when("expires_at", None, null=True),
        },
    )


def workflow_pool_write(loader: Loader, row: Row) -> None:
    WorkflowPool.objects.update_or_create(
        owner=loader.owner,
        workflow_run_id=row.text("workflow_run_id", blank=False),
        pool_type=row.choice("pool_type", WorkflowPool.Type.choices),
        defaults={
            "data": row.mapping("data", {}),
            "version": row.number("version", 1),
            "expires_at": row.when("expires_at", None, null=True),
        },
    )


def context_write(loader: Loader, row: Row) -> None:
    context, _ = PersistentContext.objects.update_or_create(
        owner=loader.owner,
        name=row.text("name", blank=False),
        defaults={
            "agent": loader.agent(row.text("agent", None, null=True)),
            "context_type": row.choice("context_type", PersistentContext.Type.choices),
            "scope": row.choice("scope", PersistentContext.Scope.choices),
            "description": row.text("description", ""),
            "access_control": _acl(loader, row),
            "archived_at": row.when("archived_at", None, null=True),
        },
    )
    _contexts(loader)[context.name] = context.pk


def _contexts(loader: Loader) -> dict[Any, Any]:
    return loader.ref("context", lambda: PersistentContext.objects.filter(owner=loader.owner).values_list("name", "pk"))


def context_entry_write(loader: Loader, row: Row) -> None:
    name = row.text("context")
    if name not in _contexts(loader):
        raise BadRow(f"no context {name!r} before this line.")
    entry = ContextEntry(
        owner=loader.owner,
        context_id=_contexts(loader)[name],
        agent=loader.agent(row.text("agent", None, null=True)),
        key=row.text("key", ""),
        entry_type=row.choice("entry_type", ContextEntry.EntryType.choices),
        source_type=row.choice("source_type", ContextEntry.SourceType.choices),
        memory_type=row.choice("memory_type", ContextEntry.MemoryType.choices),
        content=row.text("content", blank=False),
        metadata=row.mapping("metadata", {}),
        importance=row.real("importance", 0.5),
        confidence=row.real("confidence", 1.0),
        version=row.number("version", 1),
        archived_at=row.when("archived_at", None, null=True),
        deprecated_at=row.when("deprecated_at", None, null=True),
        source_ref=row.text("source_ref", ""),
    )
    key = (entry.context_id, entry.key, entry.version, entry.content)
    stored = ContextEntry.objects.filter(owner=loader.owner, is_current=True).values_list(
        "context_id", "key", "version", "content"
    )
    if not _seen(loader, "entry key", key, stored.iterator):
        loader.vector(row, entry)
        loader.queue(entry)


WRITERS: Final = {
    "episode": episode_write,
    "typed_memory": typed_memory_write,
    "short_term": short_term_write,
    "memory_pool": memory_pool_write,
    "workflow_pool": workflow_pool_write,
    "context": context_write,
    "context_entry": context_entry_write,
}
