"""Persistent contexts and their entries (seed 002's PersistentContext, ContextEntry, ContextAccessLog):
long-lived containers of long-term memory, searchable by meaning.

Access, over the owner's agents only: the creating agent and the agents named in `access_control`
("read" or "write"; write implies read); every agent when the scope is `account` or `global` (writing
too, unless the write list names writers). Every read is logged in ContextAccessLog.

An entry's `effective_relevance_score` = importance x confidence x (0.5 + 0.5 x recency), where recency
= 0.5 ** (days since the entry was last used / MAINTENANCE_STALENESS_HALF_LIFE_DAYS): an entry never loses more
than half its weight to age alone. Its staleness (what the context_rot job archives at >= 0.9) is in
`episodic.maintenance`.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q, QuerySet, Value
from django.db.models.functions import Greatest, Least
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.models import Agent
from episodic import providers
from episodic.models import ContextAccessLog, ContextEntry, ContextSnapshot, PersistentContext
from episodic.selectors import Hit, hybrid_search
from memory_site.lib.errors import ConflictError

Level = Literal["read", "write"]
Action = ContextAccessLog.Action
OPEN_SCOPES = (PersistentContext.Scope.ACCOUNT, PersistentContext.Scope.GLOBAL)


MESSAGE_CONTEXT_EXISTS = "A context with this name already exists."
MESSAGE_ENTRY_NOT_CURRENT = "Only the newest version of an entry can be edited: edit the version in `extra.current_id`."


class EntryNotCurrent(ConflictError):
    """Only the newest version of an entry can be edited (another edit landed first)."""

    message = MESSAGE_ENTRY_NOT_CURRENT

    def __init__(self, current_id: uuid.UUID) -> None:
        super().__init__(extra={"current_id": str(current_id)})
        self.current_id = current_id


class ContextExists(ConflictError):
    message = MESSAGE_CONTEXT_EXISTS


# --- access -------------------------------------------------------------------------------------------


def contexts_visible(*, agent: Agent) -> QuerySet[PersistentContext]:
    agent_id = str(agent.pk)
    return PersistentContext.objects.filter(owner_id=agent.owner_id).filter(
        Q(scope__in=OPEN_SCOPES)
        | Q(agent=agent)
        | Q(access_control__read__contains=[agent_id])
        | Q(access_control__write__contains=[agent_id])
    )


def context_accessible_by(context: PersistentContext, agent: Agent, level: Level = "read") -> bool:
    if context.owner_id != agent.owner_id:
        return False
    acl = context.access_control or {}
    writers = [str(a) for a in acl.get("write", [])]
    if context.agent_id == agent.pk or str(agent.pk) in writers:
        return True
    if level == "write":
        return context.scope in OPEN_SCOPES and not writers
    return context.scope in OPEN_SCOPES or str(agent.pk) in [str(a) for a in acl.get("read", [])]


def context_get(*, agent: Agent, context_id: uuid.UUID, level: Level = "read") -> PersistentContext | None:
    """None when the context does not exist for this agent or it may not use it at `level` (the API
    answers 404 either way)."""
    context = PersistentContext.objects.filter(owner_id=agent.owner_id, pk=context_id).first()
    return context if context is not None and context_accessible_by(context, agent, level) else None


def access_log(*, context: PersistentContext, agent: Agent | None, action: str, **detail: Any) -> None:
    ContextAccessLog.objects.create(owner_id=context.owner_id, context=context, agent=agent, action=action,
                                    detail=detail)  # fmt: skip


def context_read(*, agent: Agent, context: PersistentContext, action: str = Action.READ, **detail: Any) -> None:
    """Record a read of the context (the API calls it for every read of the context or its entries)."""
    access_log(context=context, agent=agent, action=action, **detail)


# --- contexts -----------------------------------------------------------------------------------------


def context_create(
    *,
    agent: Agent,
    name: str,
    context_type: str = PersistentContext.Type.AGENT_MEMORY,
    scope: str = PersistentContext.Scope.AGENT,
    description: str = "",
    access_control: dict[str, Any] | None = None,
) -> PersistentContext:
    context, created = PersistentContext.objects.get_or_create(
        owner_id=agent.owner_id, name=name,
        defaults={"agent": agent, "context_type": context_type, "scope": scope, "description": description,
                  "access_control": {"read": [], "write": [], **(access_control or {})}},
    )  # fmt: skip
    if not created:
        raise ContextExists()
    return context


def agent_memory_context(*, agent: Agent) -> PersistentContext:
    """The agent's own long-term memory (where consolidation and the tiers router write)."""
    context, _ = PersistentContext.objects.get_or_create(
        owner_id=agent.owner_id, name=f"agent-memory:{agent.pk}",
        defaults={"agent": agent, "context_type": PersistentContext.Type.AGENT_MEMORY,
                  "scope": PersistentContext.Scope.AGENT, "description": f"Long-term memory of {agent.name}."},
    )  # fmt: skip
    return context


def context_set_archived(*, agent: Agent, context: PersistentContext, archived: bool) -> PersistentContext:
    context.archived_at = timezone.now() if archived else None
    context.save(update_fields=["archived_at", "updated_at"])
    access_log(context=context, agent=agent, action=Action.ARCHIVE if archived else Action.UNARCHIVE)
    return context


def context_grant(*, agent: Agent, context: PersistentContext, agent_id: str, level: Level) -> PersistentContext:
    with transaction.atomic():
        locked = PersistentContext.objects.select_for_update().get(pk=context.pk)
        acl = {"read": [], "write": [], **locked.access_control}
        for name in ("read", "write") if level == "write" else ("read",):
            if agent_id not in acl[name]:
                acl[name] = [*acl[name], agent_id]
        locked.access_control = acl
        locked.save(update_fields=["access_control", "updated_at"])
        access_log(context=locked, agent=agent, action=Action.GRANT, agent_id=agent_id, level=level)
    return locked


def context_revoke(*, agent: Agent, context: PersistentContext, agent_id: str) -> PersistentContext:
    with transaction.atomic():
        locked = PersistentContext.objects.select_for_update().get(pk=context.pk)
        acl = {"read": [], "write": [], **locked.access_control}
        acl["read"] = [a for a in acl["read"] if a != agent_id]
        acl["write"] = [a for a in acl["write"] if a != agent_id]
        locked.access_control = acl
        locked.save(update_fields=["access_control", "updated_at"])
        access_log(context=locked, agent=agent, action=Action.REVOKE, agent_id=agent_id)
    return locked


def context_delete(*, context: PersistentContext) -> None:
    context.delete()


# --- entries ------------------------------------------------------------------------------------------


def entries_live(queryset: QuerySet[ContextEntry] | None = None) -> QuerySet[ContextEntry]:
    """Entries a reader sees: newest versions, not archived, not merged into another."""
    queryset = queryset if queryset is not None else ContextEntry.objects.all()
    return queryset.filter(is_current=True, archived_at__isnull=True, deprecated_at__isnull=True)


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
        owner_id=context.owner_id, context=context, agent=agent, content=content, entry_type=entry_type,
        source_type=source_type, memory_type=memory_type, importance=importance, confidence=confidence,
        metadata=metadata or {}, key=key, embedding=vector,
        embedding_model=providers.get_embedder().name if vector is not None else "",
    )  # fmt: skip
    if agent is not None:
        access_log(context=context, agent=agent, action=Action.WRITE, entry_id=str(entry.pk))
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
            owner_id=old.owner_id, context_id=old.context_id, agent=agent or old.agent, key=old.key,
            entry_type=old.entry_type, source_type=old.source_type, memory_type=old.memory_type, content=content,
            metadata=old.metadata if metadata is None else metadata, importance=old.importance,
            confidence=old.confidence, version=old.version + 1, previous_version=old, embedding=vector,
            embedding_model=providers.get_embedder().name if vector is not None else "",
            access_count=old.access_count, last_accessed_at=old.last_accessed_at,
        )  # fmt: skip
        if agent is not None:
            access_log(context=old.context, agent=agent, action=Action.WRITE, entry_id=str(new.pk),
                       previous_version=str(old.pk))  # fmt: skip
    return new


def entry_history(*, entry: ContextEntry) -> list[ContextEntry]:
    """Every version of the entry, oldest first."""
    newest = entry
    while (newer := ContextEntry.objects.filter(previous_version=newest).order_by("-version").first()) is not None:
        newest = newer
    chain = [newest]
    while chain[-1].previous_version_id is not None:
        previous = ContextEntry.objects.filter(pk=chain[-1].previous_version_id).first()
        if previous is None:
            break
        chain.append(previous)
    return chain[::-1]


def entry_adjust_importance(*, entry: ContextEntry, delta: float) -> ContextEntry:
    """boost_importance (delta > 0) / reduce_importance (delta < 0), bounded to 0..1, in one UPDATE."""
    ContextEntry.objects.filter(pk=entry.pk).update(
        importance=Least(Greatest(F("importance") + delta, Value(0.0)), Value(1.0)), updated_at=timezone.now()
    )
    entry.refresh_from_db(fields=["importance", "updated_at"])
    return entry


def entry_touch(*, ids: list[Any]) -> None:
    if ids:
        ContextEntry.objects.filter(pk__in=ids).update(access_count=F("access_count") + 1,
                                                       last_accessed_at=timezone.now())  # fmt: skip


def last_used(entry: ContextEntry) -> datetime:
    return max(t for t in (entry.last_accessed_at, entry.updated_at, entry.created_at) if t is not None)


def recency(entry: ContextEntry, now: datetime) -> float:
    days = max(0.0, (now - last_used(entry)).total_seconds() / 86400)
    return float(0.5 ** (days / settings.MAINTENANCE_STALENESS_HALF_LIFE_DAYS))


def effective_relevance_score(entry: ContextEntry, now: datetime | None = None) -> float:
    return entry.importance * entry.confidence * (0.5 + 0.5 * recency(entry, now or timezone.now()))


def entry_delete(*, entry: ContextEntry) -> None:
    entry.delete()


def entries_readable(*, agent: Agent) -> QuerySet[ContextEntry]:
    """Live entries of the unarchived contexts the agent may read."""
    contexts = contexts_visible(agent=agent).filter(archived_at__isnull=True)
    return entries_live(ContextEntry.objects.filter(owner_id=agent.owner_id, context__in=contexts))


def entry_search(
    *, agent: Agent, query: str, limit: int = 10, context: PersistentContext | None = None,
    vector: list[float] | None = None, log: bool = True,
) -> list[Hit[ContextEntry]]:  # fmt: skip
    """Semantic (pgvector HNSW) and keyword search over the entries the agent may read, fused; each
    returned entry counts an access, and each context that answered logs the search."""
    queryset = entries_readable(agent=agent)
    if context is not None:
        queryset = queryset.filter(context=context)
    if vector is None:
        vector = providers.embed_query(owner_id=agent.owner_id, text=query)
    hits = hybrid_search(queryset, query=query, vector=vector, limit=limit)
    entry_touch(ids=[h.item.pk for h in hits])
    if log:
        by_context: dict[Any, list[str]] = {}
        for hit in hits:
            by_context.setdefault(hit.item.context_id, []).append(str(hit.item.pk))
        ContextAccessLog.objects.bulk_create(
            ContextAccessLog(owner_id=agent.owner_id, context_id=context_id, agent=agent, action=Action.SEARCH,
                             detail={"query": query[:200], "entries": ids})
            for context_id, ids in by_context.items()
        )  # fmt: skip
    return hits


# --- snapshots ----------------------------------------------------------------------------------------

_SNAPSHOT_CONTEXT_FIELDS = ("context_type", "scope", "description", "access_control", "archived_at")


def _fields() -> list[Any]:
    return [f for f in ContextEntry._meta.concrete_fields if f.name != "search_vector"]


def _state(entry: ContextEntry) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for field in _fields():
        value = getattr(entry, field.attname)
        if isinstance(value, datetime):
            value = value.isoformat()
        elif isinstance(value, uuid.UUID):
            value = str(value)
        elif field.name == "embedding" and value is not None:
            value = [float(x) for x in value]
        state[field.attname] = value
    return state


def snapshot_create(*, agent: Agent | None, context: PersistentContext, label: str = "") -> ContextSnapshot:
    with transaction.atomic():
        context = PersistentContext.objects.select_for_update().get(pk=context.pk)
        entries = [_state(e) for e in ContextEntry.objects.filter(context=context).order_by("created_at", "version")]
        context_state = {
            name: (v.isoformat() if isinstance(v, datetime) else v)
            for name in _SNAPSHOT_CONTEXT_FIELDS
            for v in [getattr(context, name)]
        }
        snapshot = ContextSnapshot.objects.create(
            owner_id=context.owner_id, context=context, agent=agent, label=label, entries=entries,
            entry_count=len(entries), context_state=context_state,
        )  # fmt: skip
        access_log(context=context, agent=agent, action=Action.SNAPSHOT, snapshot_id=str(snapshot.pk),
                   entries=len(entries))  # fmt: skip
    return snapshot


def snapshot_restore(*, agent: Agent | None, snapshot: ContextSnapshot) -> ContextSnapshot:
    """Bring the context back to exactly the snapshot's state (every entry, version and timestamp).
    The state it replaces is snapshotted first, so a restore can itself be undone; the restore is
    logged. Returns that safety snapshot."""
    before = snapshot_create(agent=agent, context=snapshot.context, label=f"before restoring {snapshot.pk}")
    with transaction.atomic():
        context = PersistentContext.objects.select_for_update().get(pk=snapshot.context_id)
        ContextEntry.objects.filter(context=context).delete()
        ids = {state["id"] for state in snapshot.entries}
        known = {
            str(pk)
            for pk in ContextEntry.objects.filter(
                pk__in=[s["merged_into_id"] for s in snapshot.entries if s.get("merged_into_id")]
            ).values_list("pk", flat=True)
        }
        rows = []
        for state in snapshot.entries:
            values = dict(state)
            for name in ("created_at", "updated_at", "archived_at", "deprecated_at", "last_accessed_at"):
                values[name] = parse_datetime(values[name]) if values.get(name) else None
            if values.get("previous_version_id") not in ids:
                values["previous_version_id"] = None
            target = values.get("merged_into_id")
            if target and target not in ids and target not in known:
                values["merged_into_id"] = None
            rows.append(ContextEntry(**{k: v for k, v in values.items() if k in {f.attname for f in _fields()}}))
        # bulk_create stamps auto_now(_add) fields with the current time, on the instances too: keep the
        # snapshot's times aside and put them back.
        pks, created, updated = [r.pk for r in rows], [r.created_at for r in rows], [r.updated_at for r in rows]
        ContextEntry.objects.bulk_create(rows)
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE episodic_contextentry e SET created_at = v.c, updated_at = v.u "
                "FROM unnest(%s::uuid[], %s::timestamptz[], %s::timestamptz[]) AS v(id, c, u) WHERE e.id = v.id",
                [pks, created, updated],
            )
        for name in _SNAPSHOT_CONTEXT_FIELDS:
            value = snapshot.context_state.get(name)
            setattr(context, name, parse_datetime(value) if name == "archived_at" and value else value)
        context.save(update_fields=[*_SNAPSHOT_CONTEXT_FIELDS, "updated_at"])
        access_log(context=context, agent=agent, action=Action.RESTORE, snapshot_id=str(snapshot.pk),
                   entries=len(rows), saved_as=str(before.pk))  # fmt: skip
    return before
