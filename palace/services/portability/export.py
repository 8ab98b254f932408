"""Stream a person's memory as JSON lines. Every query is filtered by owner and read with
`.values().iterator(chunk_size=...)`: a server-side cursor hands over a chunk at a time, so memory stays
flat however big the palace is, and no model instance is built per row (the bulk of the time at
100k drawers)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.postgres.aggregates import ArrayAgg
from django.db.models import Q
from django.utils import timezone

from accounts.models import Agent, ExclusionRule, MemorySettings
from episodic import providers
from episodic.models import (
    ContextEntry,
    Episode,
    MemoryPool,
    PersistentContext,
    ShortTermMemory,
    TypedMemory,
    WorkflowPool,
)
from palace.models import (
    ActivityEvent,
    Closet,
    Conversation,
    Drawer,
    Entity,
    PreferenceTopic,
    Relation,
    Room,
    Turn,
    Wing,
)
from palace.services.portability.format import DRAWER_FIELDS, FORMAT, SETTINGS_FIELDS, VERSION, Header

CHUNK = 2000
ROOM_FIELDS = ("number", "wing__number", "conversation__external_id", "title", "started_at", "ended_at")


def export_lines(*, owner: User, with_embeddings: bool = False) -> Iterator[str]:
    """The owner's memory, one JSON document per line (format.py). Records `memory_exported` with the
    counts once the last line is out: an export abandoned half-way is not an export."""
    header: Header = {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "embedding_model": providers.get_embedder().name,
        "embedding_dim": settings.EMBEDDING_DIM,
        "with_embeddings": with_embeddings,
    }
    yield _line(dict(header))
    agents = {pk: name for pk, name in Agent.objects.filter(owner=owner).values_list("pk", "name")}
    counts: Counter[str] = Counter()
    for row in _rows(owner, agents, with_embeddings):
        counts[row["type"]] += 1
        yield _line(row)
    ActivityEvent.objects.create(
        owner=owner, kind="memory_exported", data={"counts": dict(counts), "with_embeddings": with_embeddings}
    )


def _line(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False, default=_encode, separators=(",", ":")) + "\n"


def _encode(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "tolist"):  # a pgvector embedding (numpy array)
        return [round(float(x), 7) for x in value.tolist()]
    raise TypeError(f"cannot export {type(value).__name__}")


def _typed(kind: str, rows: Iterable[Any]) -> Iterator[dict[str, Any]]:
    for row in rows:
        yield {"type": kind, **dict(row)}


def _rows(owner: User, agents: dict[Any, str], with_embeddings: bool) -> Iterator[dict[str, Any]]:
    yield from _typed("settings", MemorySettings.objects.filter(user=owner).values(*SETTINGS_FIELDS))
    rules = ExclusionRule.objects.filter(owner=owner).order_by("created_at", "pk")
    yield from _typed("exclusion_rule", rules.values("kind", "pattern"))
    yield from _typed(
        "agent", Agent.objects.filter(owner=owner).order_by("name").values("name", "description", "config")
    )
    yield from _conversations(owner, agents)
    yield from _palace(owner, with_embeddings)
    yield from _graph(owner)
    yield from _tiers(owner, agents, with_embeddings)


def _conversations(owner: User, agents: dict[Any, str]) -> Iterator[dict[str, Any]]:
    conversations = Conversation.objects.filter(owner=owner).order_by("started_at", "external_id")
    fields = ("pk", "external_id", "agent_id", "title", "user_id", "started_at", "complete")
    for row in conversations.values(*fields).iterator(chunk_size=CHUNK):
        # One query per conversation keeps a conversation's turns on one line without holding them all.
        turns = Turn.objects.filter(conversation_id=row.pop("pk")).order_by("index")
        yield {
            "type": "conversation",
            "agent": agents.get(row.pop("agent_id")),
            **row,
            "turns": list(turns.values("index", "role", "content", "timestamp")),
        }


def _palace(owner: User, with_embeddings: bool) -> Iterator[dict[str, Any]]:
    yield from _typed(
        "wing", Wing.objects.filter(owner=owner).order_by("number").values("number", "kind", "name", "slug", "aliases")
    )
    rooms = (
        Room.objects.filter(owner=owner)
        .order_by("number")
        .annotate(linked=ArrayAgg("linked_wings__number", filter=Q(linked_wings__isnull=False), default=[]))
        .values(*ROOM_FIELDS, "keyphrases", "linked")
    )
    for row in rooms.iterator(chunk_size=CHUNK):
        yield {
            "type": "room",
            "number": row.pop("number"),
            "wing": row.pop("wing__number"),
            "conversation": row.pop("conversation__external_id"),
            **row,
            "linked": sorted(row["linked"]),
        }
    closets = Closet.objects.filter(owner=owner).order_by("room__number", "position")
    for closet in closets.values("room__number", "position", "topic", "slug").iterator(chunk_size=CHUNK):
        row = dict(closet)
        yield {"type": "closet", "room": row.pop("room__number"), **row}
    fields = ["number", "room__number", "closet__position", "conversation__external_id", "occurred_at", *DRAWER_FIELDS]
    if with_embeddings:
        fields += ["embedding", "embedding_model"]
    for row in Drawer.objects.filter(owner=owner).order_by("number").values(*fields).iterator(chunk_size=CHUNK):
        row["room"], row["closet"] = row.pop("room__number"), row.pop("closet__position")
        row["conversation"] = row.pop("conversation__external_id")
        yield {"type": "drawer", **row}


def _graph(owner: User) -> Iterator[dict[str, Any]]:
    entities = Entity.objects.filter(owner=owner).order_by("slug").values("slug", "kind", "name", "aliases")
    yield from _typed("entity", entities.iterator(chunk_size=CHUNK))
    relations = Relation.objects.filter(owner=owner).order_by("valid_from", "pk")
    fields = ("subject__slug", "predicate", "object__slug", "object_value", "valid_from", "valid_to", "confidence")
    for row in relations.values(*fields, "source_drawer__number").iterator(chunk_size=CHUNK):
        cited = row.pop("source_drawer__number")
        yield {
            "type": "relation",
            "subject": row.pop("subject__slug"),
            "object": row.pop("object__slug"),
            **row,
            "drawers": [cited] if cited is not None else [],
        }
    topics = (
        PreferenceTopic.objects.filter(owner=owner)
        .order_by("term")
        .annotate(mentioned=ArrayAgg("mentions__room__number", filter=Q(mentions__isnull=False), default=[]))
        .values("term", "rooms", "stated", "mentioned")
    )
    for row in topics.iterator(chunk_size=CHUNK):
        yield {"type": "preference_topic", **row, "mentioned": sorted(row["mentioned"])}


def _names(agents: dict[Any, str], ids: Any) -> list[str]:
    """Agent ids (as stored in shared_with and access lists) to names; agents gone since are dropped."""
    by_text = {str(pk): name for pk, name in agents.items()}
    return sorted(by_text[str(i)] for i in ids or [] if str(i) in by_text)


def _acl(agents: dict[Any, str], acl: dict[str, Any]) -> dict[str, Any]:
    return {k: (_names(agents, v) if k in ("read", "write") else v) for k, v in (acl or {}).items()}


def _tiers(owner: User, agents: dict[Any, str], with_embeddings: bool) -> Iterator[dict[str, Any]]:
    vector = ["embedding", "embedding_model"] if with_embeddings else []
    episodes = Episode.objects.filter(owner=owner).order_by("occurred_at", "pk")
    fields: tuple[str, ...] = ("agent_id", "user_id", "conversation_id", "summary", "keywords", "topic", "importance")
    more: tuple[str, ...] = ("episode_type", "metadata", "occurred_at", "expires_at", *vector)
    for row in episodes.values(*fields, *more).iterator(chunk_size=CHUNK):
        yield {"type": "episode", "agent": agents.get(row.pop("agent_id")), **row}
    # Dedup's merged copies are an audit trail invisible to every read: they stay behind.
    typed = TypedMemory.objects.filter(owner=owner, merged_into__isnull=True).order_by("created_at", "pk")
    fields = ("agent_id", "memory_type", "scope", "shared_with", "content", "session_id", "sequence_number")
    more = ("entity_id", "steps", "trigger_conditions", "error_pattern", "severity", "source_trajectory_id")
    for row in typed.values(*fields, *more, "metadata", "deprecated_at", *vector).iterator(chunk_size=CHUNK):
        row["shared_with"] = _names(agents, row["shared_with"])
        yield {"type": "typed_memory", "agent": agents.get(row.pop("agent_id")), **row}
    # Expired entries are invisible already; the cleanup job deletes them.
    short = ShortTermMemory.objects.filter(owner=owner, expires_at__gt=timezone.now()).order_by("created_at", "pk")
    fields = ("agent_id", "session_id", "key", "value", "memory_type", "ttl_seconds", "expires_at")
    for row in short.values(*fields).iterator(chunk_size=CHUNK):
        yield {"type": "short_term", "agent": agents.get(row.pop("agent_id")), **row}
    pools = MemoryPool.objects.filter(owner=owner).order_by("pool_id")
    fields = ("pool_id", "created_by_id", "pool_type", "scope", "task_id", "access_control", "data", "version")
    for row in pools.values(*fields, "expires_at").iterator(chunk_size=CHUNK):
        row["access_control"] = _acl(agents, row["access_control"])
        yield {"type": "memory_pool", "created_by": agents.get(row.pop("created_by_id")), **row}
    workflows = WorkflowPool.objects.filter(owner=owner).order_by("workflow_run_id", "pool_type")
    fields = ("workflow_run_id", "pool_type", "data", "version", "expires_at")
    yield from _typed("workflow_pool", workflows.values(*fields).iterator(chunk_size=CHUNK))
    contexts = PersistentContext.objects.filter(owner=owner).order_by("name")
    fields = ("name", "agent_id", "context_type", "scope", "description", "access_control", "archived_at")
    for row in contexts.values(*fields).iterator(chunk_size=CHUNK):
        row["access_control"] = _acl(agents, row["access_control"])
        yield {"type": "context", "agent": agents.get(row.pop("agent_id")), **row}
    # The current version of each entry: older versions and dedup's merged copies are history no read shows.
    entries = ContextEntry.objects.filter(owner=owner, is_current=True, merged_into__isnull=True)
    fields = ("context__name", "agent_id", "key", "entry_type", "source_type", "memory_type", "content", "metadata")
    more = ("importance", "confidence", "version", "archived_at", "deprecated_at", "source_ref", *vector)
    for row in entries.order_by("context__name", "created_at", "pk").values(*fields, *more).iterator(chunk_size=CHUNK):
        yield {
            "type": "context_entry",
            "context": row.pop("context__name"),
            "agent": agents.get(row.pop("agent_id")),
            **row,
        }
