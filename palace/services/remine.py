"""Re-filing: an owner's existing palace filed again with the current extractor (`manage.py remine`).

Each conversation is read again (the slow extraction outside any transaction), then in a transaction
of its own its room moves to the new primary wing with the new title and linked wings, its closets
are rebuilt, and every drawer keeps its row, content, number and embedding but gets its new closet,
tags, search text and AAAK pointer; the relations mining derived from its drawers are derived again
(relations added through the API are kept). Then, for the owner: topic wings recomputed from the final
key phrases, wings left with no room deleted (the old "Certainly"), entities left with no relation
deleted, preference counts recomputed from the new tags.

Idempotent with the offline extractor: a second run finds every room, closet and drawer as the first
left it and writes nothing to them (the LLM extractor may answer differently each time).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils.text import slugify

from memory_site.db import advisory_xact_lock
from palace import extraction, naming, preferences
from palace.models import Closet, Conversation, Drawer, Entity, PreferenceTopic, Relation, Room, Turn, Wing
from palace.services import graph, mining, recurring
from palace.subjects import Subjects, subjects_of

logger = logging.getLogger(__name__)

RACE_RETRIES = 3


@dataclass(frozen=True)
class Refiled:
    """What re-filing one conversation changed (in a dry run: would change)."""

    conversation: str  # the agent's conversation id
    room: int
    wing_before: str
    wing_after: str
    title_before: str
    title_after: str
    linked_before: tuple[str, ...]
    linked_after: tuple[str, ...]
    drawers_changed: int
    closets_rebuilt: bool

    @property
    def changed(self) -> bool:
        return (
            self.wing_before != self.wing_after
            or self.title_before != self.title_after
            or self.linked_before != self.linked_after
            or self.drawers_changed > 0
            or self.closets_rebuilt
        )


@dataclass(frozen=True)
class Step:
    """One conversation done, for a progress line."""

    done: int
    total: int
    refiled: Refiled | None  # None: the conversation has no drawers to re-file
    wings: int  # the owner's wings now


@dataclass(frozen=True)
class OwnerRemined:
    conversations: int
    changed: int
    wings: int
    wings_deleted: list[str] = field(default_factory=list)
    entities_deleted: int = 0


@dataclass
class _Plan:
    """A conversation read again: what the current extractor makes of its filed turns."""

    conversation: Conversation
    room: Room
    drawers: list[Drawer]
    turns: list[Turn]  # the turn each drawer holds, in the same order
    found: extraction.Extraction
    llm_triples: list[extraction.Triple]
    subjects: Subjects
    title: str
    tags: list[dict[str, list[str]]]
    segments: list[int]
    labels: dict[int, str]  # segment -> closet topic


class _Raced(Exception):
    """Mining added or removed drawers between the extraction and the write."""


def _plan(conversation: Conversation, *, offline: bool = False) -> _Plan | None:
    room = Room.objects.filter(conversation=conversation).select_related("wing").first()
    drawers = list(Drawer.objects.filter(conversation=conversation).order_by("turn_index"))
    if room is None or not drawers:
        return None
    # Only what is filed is read again: a forgotten drawer's turn does not come back as a wing or a tag.
    by_index = {turn.index: turn for turn in conversation.turns.filter(index__in=[d.turn_index for d in drawers])}
    turns = [by_index[d.turn_index] for d in drawers]
    pairs = [(t.role, t.content) for t in turns]
    llm_triples: list[extraction.Triple]
    if offline:  # no model call (forgetting re-files what is left: neither slow nor paid)
        found, llm_triples = extraction.count_mentions(extraction.extract(pairs), pairs), []
    else:
        found, llm_triples = mining.extract(conversation, pairs)
    segments = extraction.segment([t.content for t in turns])
    agent_name = conversation.agent.name if conversation.agent_id and conversation.agent else "unfiled"
    return _Plan(
        conversation=conversation,
        room=room,
        drawers=drawers,
        turns=turns,
        found=found,
        llm_triples=llm_triples,
        subjects=subjects_of(found, agent_name),
        title=mining.room_title(conversation, turns, found)[:300],
        tags=[extraction.tags_for(t.content, found) for t in turns],
        segments=segments,
        labels={s: label[:200] for s, label in mining.closet_topics(turns, segments, found).items()},
    )


def _linked_names(room: Room) -> tuple[str, ...]:
    return tuple(sorted(room.linked_wings.values_list("name", flat=True)))


def conversation_refile(*, conversation: Conversation, dry_run: bool = False, offline: bool = False) -> Refiled | None:
    """File the conversation's drawers again with the current extractor (see the module's docstring);
    `offline`: the offline extractor even when an LLM is configured. None when the conversation has
    nothing filed. A dry run reads and reports, and writes nothing."""
    for _ in range(RACE_RETRIES):
        plan = _plan(conversation, offline=offline)  # slow: outside any transaction
        if plan is None:
            return None
        if dry_run:
            return _preview(plan)[0]
        try:
            return _apply(plan)
        except _Raced:
            continue
    logger.warning("conversation %s kept changing while it was re-filed; skipped", conversation.pk)
    return None


def _subject_wing(owner_id: int, name: str, kind: str, found: extraction.Extraction) -> Wing:
    """Mining's wing for the subject, with the kind the current extractor gives it ("France" was filed
    as a person)."""
    wing = mining.wing_for(owner_id, name, kind, found)
    if wing.kind != kind and Wing.Kind.AGENT not in (wing.kind, kind):
        Wing.objects.filter(pk=wing.pk).update(kind=kind)
        wing.kind = kind
    return wing


def _apply(plan: _Plan) -> Refiled:
    conversation, found = plan.conversation, plan.found
    owner_id = conversation.owner_id
    with transaction.atomic(), naming.remembered():
        # The miner's lock: mining appended turns waits, and finds its drawers re-filed.
        advisory_xact_lock(f"mine:{conversation.pk}")
        drawers = list(Drawer.objects.filter(conversation=conversation).order_by("turn_index"))
        if [d.pk for d in drawers] != [d.pk for d in plan.drawers]:
            raise _Raced
        room = Room.objects.select_related("wing").get(pk=plan.room.pk)
        before = (room.wing.name, room.title, _linked_names(room))
        wing = _subject_wing(owner_id, *plan.subjects.primary, found)
        others = [_subject_wing(owner_id, name, kind, found) for name, kind in plan.subjects.others]
        if (room.wing_id, room.title) != (wing.pk, plan.title):
            Room.objects.filter(pk=room.pk).update(wing=wing, title=plan.title)
            room.wing, room.title = wing, plan.title
        # Topic wings are earned again below (recurring topics), from the room's new key phrases.
        room.linked_wings.set([w for w in others if w.pk != wing.pk])
        closets, rebuilt = _closets_refile(room, plan, drawers)
        changed = []
        for drawer, tags, closet in zip(drawers, plan.tags, closets, strict=True):
            values = {
                "closet_id": closet.pk,
                "tags": tags,
                "search_text": mining.search_text(drawer.content, tags),
                "aaak": mining.aaak_pointer(wing, room, drawer.number),
            }
            if any(getattr(drawer, name) != value for name, value in values.items()):
                for name, value in values.items():
                    setattr(drawer, name, value)
                changed.append(drawer)
        # Content, number and embedding are not among the fields written: a drawer is kept verbatim.
        Drawer.objects.bulk_update(changed, ["closet", "tags", "search_text", "aaak"])
        if rebuilt:
            _closets_retire(room, keep=closets)
        graph.relations_delete(relations=Relation.objects.filter(source_drawer__in=drawers))
        mining.graph_from(conversation, found, plan.turns, drawers, plan.llm_triples)
        for entity in found.entities:
            Entity.objects.filter(owner_id=owner_id, slug=naming.slug_of(entity.name)).exclude(kind=entity.kind).update(
                kind=entity.kind
            )
        recurring.room_file_topics(room=room, turns=[(t.role, t.content) for t in plan.turns], found=found)
        after_linked = _linked_names(room)
    return Refiled(
        conversation=conversation.external_id,
        room=room.number,
        wing_before=before[0],
        wing_after=wing.name,
        title_before=before[1],
        title_after=plan.title,
        linked_before=before[2],
        linked_after=after_linked,
        drawers_changed=len(changed),
        closets_rebuilt=rebuilt,
    )


def _closets_refile(room: Room, plan: _Plan, drawers: list[Drawer]) -> tuple[list[Closet], bool]:
    """Each drawer's closet, and whether the closets were rebuilt. The room's closets are kept when they
    already are the plan (same topics in the same order, each holding the same drawers); otherwise new
    ones are created after them, and the old ones go once no drawer points at them."""
    order = list(dict.fromkeys(plan.segments))
    wanted = [plan.labels[segment] for segment in order]
    old = list(room.closets.order_by("position"))
    if [c.topic for c in old] == wanted and all(
        drawer.closet_id == old[order.index(segment)].pk for drawer, segment in zip(drawers, plan.segments, strict=True)
    ):
        return [old[order.index(segment)] for segment in plan.segments], False
    start = old[-1].position + 1 if old else 0
    new = Closet.objects.bulk_create(
        Closet(
            owner_id=room.owner_id,
            room=room,
            position=start + offset,
            topic=topic,
            slug=slugify(topic)[:200] or "conversation",
        )
        for offset, topic in enumerate(wanted)
    )
    return [new[order.index(segment)] for segment in plan.segments], True


def _closets_retire(room: Room, *, keep: list[Closet]) -> None:
    """Delete the room's other closets (their drawers point at `keep` now: a closet's delete would
    cascade to drawers still in it) and number the kept ones from 0."""
    kept = sorted({c.pk: c for c in keep}.values(), key=lambda c: c.position)
    Closet.objects.filter(room=room).exclude(pk__in=[c.pk for c in kept]).delete()
    # Ascending, each position taken is free: the old closets are gone and the kept ones sit after them.
    for position, closet in enumerate(kept):
        Closet.objects.filter(pk=closet.pk).update(position=position)


def _preview(plan: _Plan) -> tuple[Refiled, set[int]]:
    """What `_apply` would change, read only; and the ids of the existing wings the room would keep
    (its wing and linked wings), for the owner's summary."""
    owner_id = plan.conversation.owner_id
    room = plan.room

    def existing(name: str) -> Wing | None:
        return naming.find_named(Wing, owner_id=owner_id, name=name)

    wing = existing(plan.subjects.primary[0])
    others = {name: existing(name) for name, _ in plan.subjects.others}
    primary_name = wing.name if wing else plan.subjects.primary[0]
    linked = {(w.name if w else name) for name, w in others.items()} - {primary_name}
    labels = [plan.labels[segment] for segment in plan.segments]
    closets = {c.pk: c.topic for c in room.closets.all()}
    changed = 0
    for drawer, tags, topic in zip(plan.drawers, plan.tags, labels, strict=True):
        pointer = mining.aaak_pointer(wing, room, drawer.number) if wing else None
        if drawer.tags != tags or drawer.aaak != pointer or closets.get(drawer.closet_id) != topic:
            changed += 1
    kept = {w.pk for w in [wing, *others.values()] if w is not None}
    # Topic wings are not earned again in a dry run: the ones linked now are counted as kept.
    kept |= set(room.linked_wings.filter(kind=Wing.Kind.TOPIC).values_list("pk", flat=True))
    refiled = Refiled(
        conversation=plan.conversation.external_id,
        room=room.number,
        wing_before=room.wing.name,
        wing_after=primary_name,
        title_before=room.title,
        title_after=plan.title,
        linked_before=_linked_names(room),
        linked_after=tuple(sorted(linked)),
        drawers_changed=changed,
        closets_rebuilt=sorted(closets.values()) != sorted(set(labels)),
    )
    return refiled, kept


def owner_remine(*, owner: User, progress: Callable[[Step], None] | None = None, dry_run: bool = False) -> OwnerRemined:
    """Re-file every conversation of the owner, oldest first, then tidy what no room uses any more."""
    conversations = list(
        Conversation.objects.filter(owner=owner, rooms__isnull=False)
        .select_related("agent")
        .order_by("started_at", "pk")
    )
    changed = 0
    kept: set[int] = set()
    for done, conversation in enumerate(conversations, start=1):
        if dry_run:
            plan = _plan(conversation)
            refiled, wing_ids = _preview(plan) if plan is not None else (None, set())
            kept |= wing_ids
        else:
            refiled = conversation_refile(conversation=conversation)
        changed += int(refiled is not None and refiled.changed)
        if progress is not None:
            wings_now = Wing.objects.filter(owner=owner).count()
            progress(Step(done=done, total=len(conversations), refiled=refiled, wings=wings_now))
    wings = Wing.objects.filter(owner=owner)
    if dry_run:
        # Rooms left as they are (no drawers to re-file) keep their wings too.
        refiled_ids = {c.pk for c in conversations}
        for room in Room.objects.filter(owner=owner).exclude(conversation_id__in=refiled_ids):
            kept |= {room.wing_id, *room.linked_wings.values_list("pk", flat=True)}
        doomed = sorted(wings.exclude(pk__in=kept).values_list("name", flat=True))
        return OwnerRemined(
            conversations=len(conversations), changed=changed, wings=wings.count() - len(doomed), wings_deleted=doomed
        )
    with transaction.atomic():
        recurring.owner_file_topics(owner_id=owner.pk)
        # A miner filing a new room at this moment may have found one of these wings before it was
        # deleted; its transaction then fails on the foreign key and the job is retried.
        empty = wings.filter(~Exists(Room.objects.filter(wing=OuterRef("pk")))).filter(
            ~Exists(Room.linked_wings.through.objects.filter(wing=OuterRef("pk")))
        )
        doomed = sorted(empty.values_list("name", flat=True))
        empty.delete()
        unrelated = Entity.objects.filter(owner=owner).filter(
            ~Exists(Relation.objects.filter(subject=OuterRef("pk"))),
            ~Exists(Relation.objects.filter(object=OuterRef("pk"))),
        )
        entities_deleted = unrelated.count()
        unrelated.delete()
        _preferences_recount(owner)
    return OwnerRemined(
        conversations=len(conversations),
        changed=changed,
        wings=wings.count(),
        wings_deleted=doomed,
        entities_deleted=entities_deleted,
    )


def _preferences_recount(owner: User) -> None:
    """Preference counts come from the user turns' words and tags, and the tags changed: count every
    room again from its drawers (mining counts each batch of turns as it files it)."""
    PreferenceTopic.objects.filter(owner=owner).delete()
    for room in Room.objects.filter(owner=owner).order_by("number"):
        turns = Drawer.objects.filter(room=room).order_by("turn_index").values_list("role", "content", "tags")
        preferences.record(owner_id=owner.pk, room=room, turns=list(turns))
