"""Consolidation: short-term entries read at least MAINTENANCE_CONSOLIDATION_MIN_ACCESS times become
long-term entries (with embeddings) in the agent's own memory context, importance min(1, 0.4 + 0.1 x
reads); expired entries read fewer times are deleted."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from django.conf import settings
from django.db import transaction

from accounts.models import Agent
from episodic import providers
from episodic.models import ContextEntry, ShortTermMemory
from episodic.services.contexts import agent_memory_context
from episodic.services.maintenance.report import Report, batches, delete_in_batches
from memory_site import events

# What each kind of short-term entry becomes in long-term memory.
PROMOTED_AS = {
    ShortTermMemory.Type.TASK_CONTEXT: (ContextEntry.EntryType.PLAN, ContextEntry.MemoryType.FACTUAL),
    ShortTermMemory.Type.CONVERSATION: (
        ContextEntry.EntryType.CONVERSATION_SUMMARY,
        ContextEntry.MemoryType.EXPERIENTIAL,
    ),
    ShortTermMemory.Type.TOOL_RESULT: (ContextEntry.EntryType.TOOL_OUTPUT, ContextEntry.MemoryType.FACTUAL),
    ShortTermMemory.Type.REFLECTION: (ContextEntry.EntryType.REFLECTION, ContextEntry.MemoryType.EXPERIENTIAL),
    ShortTermMemory.Type.OBSERVATION: (ContextEntry.EntryType.OBSERVATION, ContextEntry.MemoryType.EXPERIENTIAL),
}


def _entry_text(entry: ShortTermMemory) -> str:
    value = entry.value if isinstance(entry.value, str) else json.dumps(entry.value, ensure_ascii=False, sort_keys=True)
    return f"{entry.key}: {value}"


def consolidation(report: Report, now: datetime, *, session_id: str | None = None, agent: Agent | None = None) -> None:
    minimum = settings.MAINTENANCE_CONSOLIDATION_MIN_ACCESS
    scope = ShortTermMemory.objects.all()
    if agent is not None:
        scope = scope.filter(owner_id=agent.owner_id, agent=agent)
    if session_id is not None:
        scope = scope.filter(session_id=session_id)
    promotable = scope.filter(promoted_to__isnull=True, access_count__gte=minimum).select_related("agent")
    report.counts.setdefault("promoted", 0)
    for batch in batches(promotable, settings.MAINTENANCE_BATCH_SIZE):
        if report.dry_run:
            for e in batch:
                report.add("promoted", action=f"promote {e.session_id}/{e.key} ({e.access_count} reads)")
            continue
        vectors: Sequence[list[float] | None] | None = None
        if len({e.owner_id for e in batch}) == 1:
            vectors = providers.embed_documents(owner_id=batch[0].owner_id, texts=[_entry_text(e) for e in batch])
        if vectors is None:  # several owners in the batch (or the embedder is down): one at a time
            vectors = [providers.embed_query(owner_id=e.owner_id, text=_entry_text(e)) for e in batch]
        name = providers.get_embedder().name
        for e, vector in zip(batch, vectors, strict=True):
            context = agent_memory_context(agent=e.agent)
            entry_type, memory_type = PROMOTED_AS.get(e.memory_type, PROMOTED_AS[ShortTermMemory.Type.TASK_CONTEXT])
            with transaction.atomic():
                # source_ref is unique per context: a second (or concurrent) run finds the entry made.
                entry, _ = ContextEntry.objects.get_or_create(
                    context=context,
                    source_ref=f"short_term:{e.pk}",
                    defaults={
                        "owner_id": e.owner_id,
                        "agent": e.agent,
                        "key": e.key,
                        "content": _entry_text(e),
                        "entry_type": entry_type,
                        "memory_type": memory_type,
                        "source_type": ContextEntry.SourceType.AGENT,
                        "importance": min(1.0, 0.4 + 0.1 * e.access_count),
                        "metadata": {
                            "session_id": e.session_id,
                            "key": e.key,
                            "value": e.value,
                            "short_term_type": e.memory_type,
                            "reads": e.access_count,
                        },
                        "embedding": vector,
                        "embedding_model": name if vector is not None else "",
                    },
                )
                if ShortTermMemory.objects.filter(pk=e.pk, promoted_to__isnull=True).update(promoted_to=entry):
                    report.add("promoted")
                    events.memory_event_emit(
                        owner_id=e.owner_id,
                        type=events.MEMORY_CONSOLIDATED,
                        payload={
                            "short_term_id": str(e.pk),
                            "context_entry_id": str(entry.pk),
                            "agent_id": str(e.agent_id) if e.agent_id else None,
                            "session_id": e.session_id,
                            "key": e.key,
                            "reads": e.access_count,
                        },
                    )
    forgettable = scope.filter(expires_at__lte=now, access_count__lt=minimum, promoted_to__isnull=True)
    delete_in_batches(
        report, "deleted", forgettable, lambda e: f"delete expired {e.session_id}/{e.key} ({e.access_count} reads)"
    )
