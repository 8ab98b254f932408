"""Writes of context entries: create, versioned edits, importance, delete; and the reads of entries,
which log the read in the context's access log (and, for one entry or a search hit, count its use).

The embedding is computed before any transaction (STYLE habit 6); a null one is filled in later by
the embedding_backfill job.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db import transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest, Least
from django.utils import timezone

from accounts.models import Agent
from episodic import providers
from episodic.models import ContextAccessLog, ContextEntry, PersistentContext
from episodic.selectors.contexts import entries_readable, entry_history, entry_page
from episodic.selectors.search import Hit, hybrid_search
from episodic.services.contexts import Action, access_log_record, context_read
from episodic.services.reads import reads_record
from memory_site.lib.errors import ConflictError

MESSAGE_ENTRY_NOT_CURRENT = "Only the newest version of an entry can be edited: edit the version in `extra.current_id`."


class EntryNotCurrent(ConflictError):
    """Only the newest version of an entry can be edited (another edit landed first)."""

    message = MESSAGE_ENTRY_NOT_CURRENT

    def __init__(self, current_id: uuid.UUID) -> None:
        super().__init__(extra={"current_id": str(current_id)})
        self.current_id = current_id


def entry_create(
    *,
    agent: Agent | None,
    context: PersistentContext,
    content: str,
    entry_type: str = ContextEntry.EntryType.FACT,
    source_type: str = ContextEntry.SourceType.AGENT,
    memory_type: str = ContextEntry.MemoryType.FACTUAL,
    importance: float = 0.5,
    confidence: float = 1.0,
    metadata: dict[str, Any] | None = None,
    key: str = "",
) -> ContextEntry:
    vector = providers.embed_query(owner_id=context.owner_id, text=content)  # before the transaction
    entry = ContextEntry.objects.create(
        owner_id=context.owner_id,
        context=context,
        agent=agent,
        content=content,
        entry_type=entry_type,
        source_type=source_type,
        memory_type=memory_type,
        importance=importance,
        confidence=confidence,
        metadata=metadata or {},
        key=key,
        embedding=vector,
        embedding_model=providers.get_embedder().name if vector is not None else "",
    )
    if agent is not None:
        access_log_record(context=context, agent=agent, action=Action.WRITE, entry_id=str(entry.pk))
    return entry


def entry_update_content(
    *, agent: Agent | None, entry: ContextEntry, content: str, metadata: dict[str, Any] | None = None
) -> ContextEntry:
    """A new version linked to the previous one; the previous one stays, no longer current."""
    vector = providers.embed_query(owner_id=entry.owner_id, text=content)  # before the transaction
    with transaction.atomic():
        # The row lock makes two concurrent edits of one version one success and one EntryNotCurrent,
        # never two current versions.
        old = ContextEntry.objects.select_for_update().get(pk=entry.pk)
        if not old.is_current:
            raise EntryNotCurrent(entry_history(entry=old)[-1].pk)
        old.is_current = False
        old.save(update_fields=["is_current", "updated_at"])
        new = ContextEntry.objects.create(
            owner_id=old.owner_id,
            context_id=old.context_id,
            agent=agent or old.agent,
            key=old.key,
            entry_type=old.entry_type,
            source_type=old.source_type,
            memory_type=old.memory_type,
            content=content,
            metadata=old.metadata if metadata is None else metadata,
            importance=old.importance,
            confidence=old.confidence,
            version=old.version + 1,
            previous_version=old,
            embedding=vector,
            embedding_model=providers.get_embedder().name if vector is not None else "",
            access_count=old.access_count,
            last_accessed_at=old.last_accessed_at,
        )
        if agent is not None:
            access_log_record(
                context=old.context,
                agent=agent,
                action=Action.WRITE,
                entry_id=str(new.pk),
                previous_version=str(old.pk),
            )
    return new


def entry_adjust_importance(*, entry: ContextEntry, delta: float) -> ContextEntry:
    """boost_importance (delta > 0) / reduce_importance (delta < 0), bounded to 0..1, in one UPDATE."""
    ContextEntry.objects.filter(pk=entry.pk).update(
        importance=Least(Greatest(F("importance") + delta, Value(0.0)), Value(1.0)), updated_at=timezone.now()
    )
    entry.refresh_from_db(fields=["importance", "updated_at"])
    return entry


def entry_delete(*, entry: ContextEntry) -> None:
    entry.delete()


# --- reads that log -----------------------------------------------------------------------------------


def entry_list_read(
    *, agent: Agent, context: PersistentContext, limit: int, offset: int = 0
) -> tuple[list[ContextEntry], int]:
    """A page of the context's live entries (logged as a read of the context; not counted as uses)."""
    page, count = entry_page(context=context, limit=limit, offset=offset)
    context_read(agent=agent, context=context, entries=len(page), offset=offset)
    return page, count


def entry_read(*, agent: Agent, context: PersistentContext, entry: ContextEntry) -> ContextEntry:
    """One entry, its use counted and the read logged; returned with its new count."""
    reads_record(queryset=ContextEntry.objects.filter(pk=entry.pk))
    context_read(agent=agent, context=context, entry_id=str(entry.pk))
    entry.refresh_from_db(fields=["access_count", "last_accessed_at"])
    return entry


def entry_history_read(*, agent: Agent, context: PersistentContext, entry: ContextEntry) -> list[ContextEntry]:
    versions = entry_history(entry=entry)
    context_read(agent=agent, context=context, entry_id=str(entry.pk), history=True)
    return versions


def entry_search(
    *,
    agent: Agent,
    query: str,
    limit: int = 10,
    context: PersistentContext | None = None,
    vector: list[float] | None = None,
    min_similarity: float | None = None,
) -> list[Hit[ContextEntry]]:
    """Semantic (pgvector HNSW) and keyword search over the entries the agent may read, fused (an entry
    sharing no word with the query and less similar than `min_similarity` is no hit). Each
    returned entry counts a use. The search is logged in each context that answered; a search within
    one `context` is logged there even when it finds nothing (it is still a read of that context)."""
    queryset = entries_readable(agent=agent)
    if context is not None:
        queryset = queryset.filter(context=context)
    if vector is None:
        vector = providers.embed_query(owner_id=agent.owner_id, text=query)
    hits = hybrid_search(queryset, query=query, vector=vector, limit=limit, min_similarity=min_similarity)
    reads_record(queryset=ContextEntry.objects.filter(pk__in=[hit.item.pk for hit in hits]))
    by_context: dict[Any, list[str]] = {} if context is None else {context.pk: []}
    for hit in hits:
        by_context.setdefault(hit.item.context_id, []).append(str(hit.item.pk))
    ContextAccessLog.objects.bulk_create(
        ContextAccessLog(
            owner_id=agent.owner_id,
            context_id=context_id,
            agent=agent,
            action=Action.SEARCH,
            detail={"query": query[:200], "entries": ids},
        )
        for context_id, ids in by_context.items()
    )
    return hits
