"""Forgetting, with a receipt (verifiable erasure).

`forget` removes what was asked and everything that holds its text: the drawers and the turns they
were filed from (a turn left behind would be mined back), their embeddings and full-text entries (both
live on the rows), AAAK pointers (resolved from the drawer row), knowledge-graph facts read only from
the forgotten drawers (a fact another drawer also shows loses just the citation), preference mentions
(topic counts recomputed, a topic no room mentions any more goes), episodes, typed memories and
short-term entries of a forgotten conversation (linked by its external id, which they use as
conversation / session id), working-memory snapshots and the live working memory and injection ledger
in Redis, and the rooms, closets, wings and entities left empty. One transaction per call; ids of
another owner are a 404 and nothing is deleted.

The receipt keeps only ids (never text), so `receipt_verify` can look each one up again later.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any, Final

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q

from episodic.models import (
    ContextAccessLog,
    ContextEntry,
    ContextSnapshot,
    Episode,
    MemoryPool,
    PersistentContext,
    ShortTermMemory,
    TypedMemory,
    WorkflowPool,
)
from ledger.models import WorkingMemorySnapshot
from memory_site import events
from memory_site.lib.errors import InvalidFieldError, NotFoundError
from palace.models import (
    ActivityEvent,
    Closet,
    Conversation,
    Drawer,
    Entity,
    ForgetReceipt,
    PreferenceMention,
    PreferenceTopic,
    Relation,
    RelationCitation,
    Room,
    Turn,
    Wing,
)
from palace.services import forget_redis, remine
from palace.services.forget_derived import (
    Removal,
    forget_in_snapshots,
    forget_preferences,
    forget_relations,
    forget_unmentioned_entities,
    remove_entities,
    tagged_names,
)

KINDS: Final = ("drawer", "conversation", "wing", "entity", "typed_memory", "episode", "everything")
MESSAGE_NOT_FOUND: Final = {
    "drawer": "Drawer not found.",
    "conversation": "Conversation not found.",
    "wing": "Wing not found.",
    "entity": "Entity not found.",
    "typed_memory": "Memory not found.",
    "episode": "Episode not found.",
}
MESSAGE_BAD_KIND: Final = f"One of: {', '.join(KINDS)}."
MESSAGE_NO_IDS: Final = "Name at least one id."
MESSAGE_BAD_ID: Final = "Not a valid id for this kind."

# What a receipt's removed ids name, kind -> model (redis keys are checked in Redis).
MODELS: Final[dict[str, Any]] = {
    "drawers": Drawer,
    "turns": Turn,
    "conversations": Conversation,
    "rooms": Room,
    "closets": Closet,
    "wings": Wing,
    "entities": Entity,
    "relations": Relation,
    "relation_citations": RelationCitation,
    "preference_mentions": PreferenceMention,
    "preference_topics": PreferenceTopic,
    "episodes": Episode,
    "typed_memories": TypedMemory,
    "short_term_entries": ShortTermMemory,
    "working_memory_snapshots": WorkingMemorySnapshot,
    "memory_pools": MemoryPool,
    "workflow_pools": WorkflowPool,
    "persistent_contexts": PersistentContext,
    "context_entries": ContextEntry,
    "context_snapshots": ContextSnapshot,
    "context_access_logs": ContextAccessLog,
    "activity_events": ActivityEvent,
}


def digest_of(removed_ids: dict[str, list[str]]) -> str:
    canonical = json.dumps({kind: sorted(ids) for kind, ids in removed_ids.items()}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


# --- what a request names ------------------------------------------------------------------------------


def _ints(ids: list[Any]) -> list[int]:
    try:
        return [int(i) for i in ids]
    except (TypeError, ValueError):
        raise InvalidFieldError("ids", MESSAGE_BAD_ID) from None


def _uuids(ids: list[Any]) -> list[uuid.UUID]:
    try:
        return [uuid.UUID(str(i)) for i in ids]
    except ValueError:
        raise InvalidFieldError("ids", MESSAGE_BAD_ID) from None


def _all_found(kind: str, rows: list[Any], asked: list[Any]) -> list[Any]:
    if len(rows) != len(set(asked)):
        raise NotFoundError(MESSAGE_NOT_FOUND[kind])
    return rows


def _resolve(owner: User, kind: str, ids: list[Any]) -> dict[str, list[Any]]:
    """The rows asked for, by the owner's ids: drawer/wing/entity ids are integers, typed memories and
    episodes UUIDs, conversations the agent's external ids (as in the conversation routes)."""
    if kind not in KINDS:
        raise InvalidFieldError("kind", MESSAGE_BAD_KIND)
    if kind == "everything":
        return {}
    if not ids:
        raise InvalidFieldError("ids", MESSAGE_NO_IDS)
    if kind == "drawer":
        pks = _ints(ids)
        return {"drawers": _all_found(kind, list(Drawer.objects.filter(owner=owner, pk__in=pks)), pks)}
    if kind == "conversation":
        names = [str(i) for i in ids]
        found = list(Conversation.objects.filter(owner=owner, external_id__in=names))
        return {"conversations": _all_found(kind, found, names)}
    if kind == "wing":
        pks = _ints(ids)
        return {"wings": _all_found(kind, list(Wing.objects.filter(owner=owner, pk__in=pks)), pks)}
    if kind == "entity":
        pks = _ints(ids)
        return {"entities": _all_found(kind, list(Entity.objects.filter(owner=owner, pk__in=pks)), pks)}
    keys = _uuids(ids)
    model = TypedMemory if kind == "typed_memory" else Episode
    return {kind: _all_found(kind, list(model.objects.filter(owner=owner, pk__in=keys)), keys)}


# --- the public services -------------------------------------------------------------------------------


def _rehearsed(owner: User, kind: str, ids: list[Any]) -> Removal:
    """What `forget` would remove: the same work in a transaction that is rolled back (so preview and
    deletion can never disagree). Redis is not touched."""
    asked = _resolve(owner, kind, ids)
    removal = Removal()
    with transaction.atomic():
        _remove(owner, kind, asked, removal, redis=None)
        transaction.set_rollback(True)
    return removal


def forget_preview(*, owner: User, kind: str, ids: list[Any]) -> dict[str, int]:
    """What `forget` would remove, per kind, for the confirm step."""
    return _rehearsed(owner, kind, ids).counts()


def forget_preview_named(*, owner: User, kind: str, ids: list[Any]) -> tuple[dict[str, int], dict[str, list[str]]]:
    """`forget_preview`, and the names of the wings and entities that would go (for the person's confirm
    step: "2 wings" says less than "José Álvarez, Regent's Park"), read once the rehearsal is rolled back."""
    removal = _rehearsed(owner, kind, ids)
    names = {
        "wings": sorted(
            Wing.objects.filter(owner=owner, pk__in=removal.ids.get("wings", ())).values_list("name", flat=True)
        ),
        "entities": sorted(
            Entity.objects.filter(owner=owner, pk__in=removal.ids.get("entities", ())).values_list("name", flat=True)
        ),
    }
    return removal.counts(), names


def forget(*, owner: User, kind: str, ids: list[Any], actor: str = "person") -> ForgetReceipt:
    """Forget what is named (see the module's docstring) and return the receipt. `ids` are ignored
    for "everything"."""
    asked = _resolve(owner, kind, ids)
    removal = Removal()
    with transaction.atomic():
        # Redis is cleared inside the transaction on purpose: if it is down the call fails (503) and the
        # database rolls back, rather than answering "forgotten" with copies left in Redis.
        _remove(owner, kind, asked, removal, redis=forget_redis.RedisEraser(owner_id=owner.pk))
        removed_ids = removal.sorted_ids()
        shown_ids = [] if kind == "everything" else sorted(str(i) for i in ids)
        receipt = ForgetReceipt.objects.create(
            owner=owner,
            asked={"kind": kind, "ids": shown_ids, "actor": actor},
            counts=removal.counts(),
            digest=digest_of(removed_ids),
            removed_ids=removed_ids,
        )
        ActivityEvent.objects.create(
            owner=owner,
            kind="memory_forgotten",
            data={"receipt_id": str(receipt.id), "kind": kind, "actor": actor, "counts": receipt.counts},
        )
        # Ids and counts only: what was deleted is never repeated to anyone.
        events.memory_event_emit(
            owner_id=owner.pk,
            type=events.MEMORY_DELETED,
            payload={"receipt_id": str(receipt.id), "kind": kind, "actor": actor, "counts": receipt.counts},
        )
    return receipt


def receipt_verify(*, receipt: ForgetReceipt) -> dict[str, Any]:
    """Look every removed id up again. `verified` is true when none of them exists."""
    remaining: dict[str, int] = {}
    for kind, ids in receipt.removed_ids.items():
        if kind == "redis_keys":
            left = forget_redis.keys_existing(keys=ids)
        else:
            left = MODELS[kind].objects.filter(pk__in=ids).count()
        if left:
            remaining[kind] = left
    return {"verified": not remaining, "remaining": remaining}


# --- removal ------------------------------------------------------------------------------------------


def _remove(
    owner: User, kind: str, asked: dict[str, list[Any]], removal: Removal, redis: forget_redis.RedisEraser | None
) -> None:
    if kind == "everything":
        _remove_everything(owner, removal, redis)
        return
    if kind == "typed_memory":
        _remove_rows(removal, "typed_memories", _with_merged(asked[kind]))
        return
    if kind == "episode":
        _remove_rows(removal, "episodes", asked[kind])
        return
    if kind == "entity":
        remove_entities(owner, asked["entities"], removal)
        return
    if kind == "wing":
        wings = asked["wings"]
        rooms = Room.objects.filter(owner=owner, wing__in=wings)
        conversations = list(Conversation.objects.filter(owner=owner, rooms__in=rooms).distinct())
        loose = Drawer.objects.filter(owner=owner, room__in=rooms.filter(conversation__isnull=True))
        _remove_conversations(owner, conversations, removal, redis)
        _remove_drawers(owner, list(loose), removal, redis)
        removal.add("wings", [wing.pk for wing in wings])
        Wing.objects.filter(pk__in=[wing.pk for wing in wings]).delete()
        return
    if kind == "conversation":
        _remove_conversations(owner, asked["conversations"], removal, redis)
        return
    _remove_drawers(owner, asked["drawers"], removal, redis)


def _with_merged(memories: list[TypedMemory]) -> list[TypedMemory]:
    """The memories and the near-duplicates dedup merged into them (hidden from reads, kept for the audit
    trail, but holding nearly the same text), to any depth."""
    found = {memory.pk: memory for memory in memories}
    frontier = list(found)
    while frontier:
        merged = [m for m in TypedMemory.objects.filter(merged_into_id__in=frontier) if m.pk not in found]
        found.update((m.pk, m) for m in merged)
        frontier = [m.pk for m in merged]
    return list(found.values())


def _remove_rows(removal: Removal, name: str, rows: list[Any]) -> None:
    removal.add(name, [row.pk for row in rows])
    removal.extra["embeddings"] += sum(1 for row in rows if getattr(row, "embedding", None) is not None)
    if rows:
        type(rows[0]).objects.filter(pk__in=[row.pk for row in rows]).delete()


def _remove_conversations(
    owner: User, conversations: list[Conversation], removal: Removal, redis: forget_redis.RedisEraser | None
) -> None:
    if not conversations:
        return
    names = [c.external_id for c in conversations]
    drawers = list(Drawer.objects.filter(owner=owner, conversation__in=conversations))
    _remove_drawers(owner, drawers, removal, redis, whole_conversations=True)
    _remove_rows(removal, "episodes", list(Episode.objects.filter(owner=owner, conversation_id__in=names)))
    _remove_rows(removal, "typed_memories", list(TypedMemory.objects.filter(owner=owner, session_id__in=names)))
    removal.add(
        "short_term_entries",
        ShortTermMemory.objects.filter(owner=owner, session_id__in=names).values_list("pk", flat=True),
    )
    ShortTermMemory.objects.filter(owner=owner, session_id__in=names).delete()
    snapshots = WorkingMemorySnapshot.objects.filter(owner=owner, conversation_id__in=names)
    removal.add("working_memory_snapshots", snapshots.values_list("pk", flat=True))
    snapshots.delete()
    if redis is not None:
        removal.add("redis_keys", redis.conversations(names=names))
    _redact_mining_events(owner, names, removal)
    rooms = Room.objects.filter(conversation__in=conversations)
    removal.add("rooms", rooms.values_list("pk", flat=True))
    removal.add("closets", Closet.objects.filter(room__in=rooms).values_list("pk", flat=True))
    removal.add("turns", Turn.objects.filter(conversation__in=conversations).values_list("pk", flat=True))
    removal.add("conversations", [c.pk for c in conversations])
    wings = _wings_of(rooms)
    Conversation.objects.filter(pk__in=[c.pk for c in conversations]).delete()  # rooms, turns, jobs cascade
    _remove_empty_wings(owner, wings, removal)


def _redact_mining_events(owner: User, names: list[str], removal: Removal) -> None:
    # A mining event names the wing it filed into (a name read from the conversation): the event stays
    # in the activity log, its counts too, without that name.
    events = ActivityEvent.objects.filter(owner=owner, kind="memory_mined", data__conversation_id__in=names)
    for event in events:
        event.data = {**event.data, "wing": "", "forgotten": True}
        event.save(update_fields=["data"])
        removal.extra["activity_events_redacted"] += 1


def _wings_of(rooms: Any) -> set[int]:
    return set(rooms.values_list("wing_id", flat=True)) | set(
        Room.linked_wings.through.objects.filter(room__in=rooms).values_list("wing_id", flat=True)
    )


def _remove_drawers(
    owner: User,
    drawers: list[Drawer],
    removal: Removal,
    redis: forget_redis.RedisEraser | None,
    whole_conversations: bool = False,
) -> None:
    if not drawers:
        return
    drawer_ids = [d.pk for d in drawers]
    room_ids = {d.room_id for d in drawers}
    forget_relations(owner, drawer_ids, removal)
    forget_preferences(owner, drawers, room_ids, removal)
    if whole_conversations:  # one condition instead of one per turn (a 500-turn conversation)
        turns = Turn.objects.filter(conversation_id__in={d.conversation_id for d in drawers})
    else:
        turns = Turn.objects.filter(
            Q(*[Q(conversation_id=d.conversation_id, index=d.turn_index) for d in drawers], _connector=Q.OR)
        )
    removal.add("turns", turns.values_list("pk", flat=True))
    _remove_rows(removal, "drawers", drawers)
    turns.delete()
    forget_unmentioned_entities(owner, tagged_names(drawers), removal)
    if whole_conversations:
        return  # the conversations' rooms, snapshots and Redis keys go with them
    texts = [d.content for d in drawers]
    forget_in_snapshots(owner, texts, removal)
    if redis is not None:
        removal.extra["working_memory_fields"] += redis.fields_containing(texts=texts)
    _remove_left_empty(owner, room_ids, removal, redis)
    _refile_what_is_left(owner, {d.conversation_id for d in drawers if d.conversation_id}, removal)


def _refile_what_is_left(owner: User, conversation_ids: set[uuid.UUID], removal: Removal) -> None:
    """A room that lost some of its drawers is filed again from the ones left (palace/services/remine.py):
    its title, its wings, its closets' topics and its drawers' tags were read from the forgotten text too
    ("Derek Okafor" as a wing, "blood pressure" as a closet). Wings no room uses any more go."""
    rooms = Room.objects.filter(owner=owner, conversation_id__in=conversation_ids)
    wings = _wings_of(rooms)
    closets = set(Closet.objects.filter(room__in=rooms).values_list("pk", flat=True))
    for conversation in Conversation.objects.filter(owner=owner, pk__in=rooms.values("conversation_id")):
        remine.conversation_refile(conversation=conversation, offline=True)  # a preview too: no model call
    removal.add("closets", closets - set(Closet.objects.filter(pk__in=closets).values_list("pk", flat=True)))
    _remove_empty_wings(owner, wings, removal)


def _remove_left_empty(
    owner: User, room_ids: set[int], removal: Removal, redis: forget_redis.RedisEraser | None
) -> None:
    """Closets and rooms with no drawer left go; a room's conversation goes with it when no turn of it
    is left either (its title is text too)."""
    empty_closets = Closet.objects.filter(room_id__in=room_ids, drawers__isnull=True)
    removal.add("closets", empty_closets.values_list("pk", flat=True))
    empty_closets.delete()
    empty_rooms = Room.objects.filter(pk__in=room_ids, drawers__isnull=True)
    finished = list(Conversation.objects.filter(owner=owner, rooms__in=empty_rooms, turns__isnull=True).distinct())
    wings = _wings_of(empty_rooms)
    removal.add("rooms", empty_rooms.values_list("pk", flat=True))
    empty_rooms.delete()
    _remove_conversations(owner, finished, removal, redis)
    _remove_empty_wings(owner, wings, removal)


def _remove_empty_wings(owner: User, wing_ids: set[int], removal: Removal) -> None:
    empty = Wing.objects.filter(owner=owner, pk__in=wing_ids, rooms__isnull=True, linked_rooms__isnull=True)
    removal.add("wings", empty.values_list("pk", flat=True))
    empty.delete()


def _remove_everything(owner: User, removal: Removal, redis: forget_redis.RedisEraser | None) -> None:
    """Every memory row of the owner. Kept: the account, agents and keys, settings, usage (billing), the
    AAAK counters (numbers are never given out twice) and earlier receipts (ids only)."""
    for name, model in MODELS.items():
        if name in ("working_memory_snapshots",) or not hasattr(model, "owner"):
            continue
        rows = model.objects.filter(owner=owner)
        if name in ("drawers", "episodes", "typed_memories"):
            removal.extra["embeddings"] += rows.filter(embedding__isnull=False).count()
        removal.add(name, rows.values_list("pk", flat=True))
    removal.add("turns", Turn.objects.filter(conversation__owner=owner).values_list("pk", flat=True))
    removal.add(
        "relation_citations", RelationCitation.objects.filter(relation__owner=owner).values_list("pk", flat=True)
    )
    removal.add(
        "preference_mentions", PreferenceMention.objects.filter(topic__owner=owner).values_list("pk", flat=True)
    )
    snapshots = WorkingMemorySnapshot.objects.filter(owner=owner)
    removal.add("working_memory_snapshots", snapshots.values_list("pk", flat=True))
    snapshots.delete()
    for model in MODELS.values():
        if hasattr(model, "owner"):
            model.objects.filter(owner=owner).delete()  # turns, citations and mentions cascade
    if redis is not None:
        removal.add("redis_keys", redis.everything())
