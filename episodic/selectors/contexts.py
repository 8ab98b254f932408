"""Reads of persistent contexts and their entries (the multi-tier reference's PersistentContext, ContextEntry,
ContextAccessLog), and the scores of an entry. These do not log or count the read; the API reads
through episodic.services.contexts / context_entries, which do.

Access, over the owner's agents only: the creating agent and the agents named in `access_control`
("read" or "write"; write implies read); every agent when the scope is `account` or `global` (writing
too, unless the write list names writers).

An entry's scores, both from the days since it was last used (read, edited or created):

    recency    = 0.5 ** (days / MAINTENANCE_STALENESS_HALF_LIFE_DAYS)       (1 fresh .. 0 old)
    effective_relevance_score = importance x confidence x (0.5 + 0.5 x recency)
    staleness  = age x (0.6 + 0.2 x unused + 0.2 x irrelevant)
    age        = 1 - recency
    unused     = 1 / (1 + access_count)                                    (1 never read)
    irrelevant = 1 - importance x confidence

An entry never loses more than half its relevance to age alone. The context_rot job archives entries
whose staleness reaches MAINTENANCE_CONTEXT_ROT_STALENESS: nothing used recently rots, and an entry must
be old (age >= 0.9: 3.3 half-lives, 100 days by default) and little read or unimportant to be archived.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from django.conf import settings
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Agent
from episodic.models import ContextAccessLog, ContextEntry, ContextSnapshot, PersistentContext

Level = Literal["read", "write"]
OPEN_SCOPES = (PersistentContext.Scope.ACCOUNT, PersistentContext.Scope.GLOBAL)


# --- contexts -----------------------------------------------------------------------------------------


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


def context_list(*, agent: Agent, include_archived: bool = False) -> list[PersistentContext]:
    found = contexts_visible(agent=agent)
    if not include_archived:
        found = found.filter(archived_at__isnull=True)
    return list(found.order_by("name"))


def access_log_list(*, context: PersistentContext, limit: int, offset: int = 0) -> tuple[list[ContextAccessLog], int]:
    """A page of the context's access log, newest first, and the log's length."""
    rows = ContextAccessLog.objects.filter(context=context).order_by("-created_at", "-id")
    return list(rows[offset : offset + limit]), rows.count()


def snapshot_list(*, context: PersistentContext) -> list[ContextSnapshot]:
    return list(ContextSnapshot.objects.filter(context=context).order_by("-created_at").defer("entries"))


def snapshot_get(*, context: PersistentContext, snapshot_id: uuid.UUID) -> ContextSnapshot | None:
    return ContextSnapshot.objects.filter(context=context, pk=snapshot_id).first()


# --- entries ------------------------------------------------------------------------------------------


def entries_live(queryset: QuerySet[ContextEntry] | None = None) -> QuerySet[ContextEntry]:
    """Entries a reader sees: newest versions, not archived, not merged into another."""
    queryset = queryset if queryset is not None else ContextEntry.objects.all()
    return queryset.filter(is_current=True, archived_at__isnull=True, deprecated_at__isnull=True)


def entries_readable(*, agent: Agent) -> QuerySet[ContextEntry]:
    """Live entries of the unarchived contexts the agent may read."""
    contexts = contexts_visible(agent=agent).filter(archived_at__isnull=True)
    return entries_live(ContextEntry.objects.filter(owner_id=agent.owner_id, context__in=contexts))


def entry_count(*, context: PersistentContext) -> int:
    """The context's live entries."""
    return entries_live(ContextEntry.objects.filter(context=context)).count()


def entry_page(*, context: PersistentContext, limit: int, offset: int = 0) -> tuple[list[ContextEntry], int]:
    """A page of the context's live entries, newest first, and how many there are."""
    live = entries_live(ContextEntry.objects.filter(context=context)).order_by("-created_at", "-id")
    return list(live[offset : offset + limit]), live.count()


def entry_get(*, context: PersistentContext, entry_id: uuid.UUID) -> ContextEntry | None:
    """Any version of an entry of `context`, archived and merged ones included."""
    return ContextEntry.objects.filter(context=context, pk=entry_id).first()


def entry_by_key(*, agent: Agent, key: str, context: PersistentContext | None = None) -> ContextEntry | None:
    """The newest live entry with this key in `context`, else among those the agent may read."""
    found = entries_live(context.entries.all()) if context is not None else entries_readable(agent=agent)
    return found.filter(key=key).order_by("-created_at").first()


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


# --- scores (see the module docstring) ----------------------------------------------------------------


def last_used(entry: ContextEntry) -> datetime:
    return max(t for t in (entry.last_accessed_at, entry.updated_at, entry.created_at) if t is not None)


def recency(entry: ContextEntry, now: datetime) -> float:
    days = max(0.0, (now - last_used(entry)).total_seconds() / 86400)
    return float(0.5 ** (days / settings.MAINTENANCE_STALENESS_HALF_LIFE_DAYS))


def effective_relevance_score(entry: ContextEntry, now: datetime | None = None) -> float:
    return entry.importance * entry.confidence * (0.5 + 0.5 * recency(entry, now or timezone.now()))


def staleness(entry: ContextEntry, now: datetime) -> float:
    age = 1 - recency(entry, now)
    unused = 1 / (1 + entry.access_count)
    irrelevant = 1 - entry.importance * entry.confidence
    return float(age * (0.6 + 0.2 * unused + 0.2 * irrelevant))
