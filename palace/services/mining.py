"""Mining: a conversation's unmined turns filed as drawers (one per turn, verbatim, with its AAAK
pointer) in the conversation's room, its topic closets and the wing of its main subject, and the
knowledge-graph relations the turns show. Idempotent: a second run adds nothing, a run after more
turns were appended adds only theirs. Forgetting a drawer is here too.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils.text import slugify

from accounts.models import UsageRecord
from episodic import providers
from memory_site.db import advisory_xact_lock
from palace import extraction, naming, preferences
from palace.models import ActivityEvent, Closet, Conversation, Drawer, Entity, PalaceCounter, Relation, Room, Turn, Wing
from palace.naming import ensure_named
from palace.services import graph

logger = logging.getLogger(__name__)


def _next_numbers(owner_id: int, kind: str, count: int) -> list[int]:
    """`count` fresh numbers for `kind` (wing, room, drawer) of one owner; never reused."""
    PalaceCounter.objects.get_or_create(owner_id=owner_id, kind=kind)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {PalaceCounter._meta.db_table} SET value = value + %s "
            "WHERE owner_id = %s AND kind = %s RETURNING value",
            [count, owner_id, kind],
        )
        last = cursor.fetchone()[0]
    return list(range(last - count + 1, last + 1))


def wing_ensure(*, owner_id: int, name: str, kind: str) -> Wing:
    """The wing named `name` (by slug or alias, case-insensitive), created when missing."""
    return ensure_named(
        Wing, owner_id=owner_id, name=name, kind=kind, create=lambda: {"number": _next_numbers(owner_id, "wing", 1)[0]}
    )


@dataclass(frozen=True)
class Subjects:
    primary: tuple[str, str]  # (name, kind)
    others: list[tuple[str, str]]


LINKED_WINGS_MAX = 8  # a room links the subjects named most, not every capitalised word


def _subjects(found: extraction.Extraction, agent_name: str) -> Subjects:
    """The primary subject is the person or project named most (projects win ties: a conversation
    about a project is filed under it); the others are the next LINKED_WINGS_MAX people or projects
    named most. With none, the conversation goes to its agent's wing."""
    ranked = [(name, "project", n) for name, n in found.projects.items()] + [
        (name, "person", n) for name, n in found.people.items()
    ]
    ranked.sort(key=lambda item: (-item[2], item[1] != "project", item[0]))
    if not ranked:
        return Subjects(primary=(agent_name, Wing.Kind.AGENT), others=[])
    others = [(name, kind) for name, kind, _ in ranked[1 : 1 + LINKED_WINGS_MAX]]
    return Subjects(primary=(ranked[0][0], ranked[0][1]), others=others)


def _empty_counts() -> dict[str, int]:
    return {"drawers": 0, "wings": 0, "rooms": 0, "closets": 0, "embedded": 0, "entities": 0, "relations": 0}


@dataclass
class _Prepared:
    """A conversation's unmined turns and what the extraction found, ready to embed and write."""

    conversation: Conversation
    turns: list[Turn]
    found: extraction.Extraction
    llm_triples: list[extraction.Triple]
    tags: list[dict[str, list[str]]]
    extract_ms: float


def _prepare(conversation: Conversation) -> _Prepared | None:
    mined = set(Drawer.objects.filter(conversation=conversation).values_list("turn_index", flat=True))
    every = list(conversation.turns.order_by("index"))
    turns = [t for t in every if t.index not in mined]
    if not turns:
        return None
    clock = time.perf_counter()
    found, llm_triples = _extract(conversation, [t.content for t in every])
    tags = [extraction.tags_for(t.content, found) for t in turns]
    return _Prepared(conversation, turns, found, llm_triples, tags, (time.perf_counter() - clock) * 1000)


def conversation_mine(*, conversation: Conversation) -> dict[str, int]:
    """Mine the conversation's turns that have no drawer yet. Idempotent: a second run adds nothing,
    a run after more turns were appended adds only theirs."""
    counts = conversations_mine(conversations=[conversation])[conversation.pk]
    counts.pop("raced", None)
    return counts


def conversations_mine(*, conversations: list[Conversation]) -> dict[Any, dict[str, int]]:
    """Mine several conversations with one embedding batch per owner: embedding is the bottleneck, and
    one long length-sorted batch pads less and keeps the model busier than many short ones. Each
    conversation is then written in a transaction of its own."""
    results: dict[Any, dict[str, int]] = {c.pk: _empty_counts() for c in conversations}
    prepared = [p for p in (_prepare(c) for c in conversations) if p is not None]
    vectors: dict[Any, list[list[float]] | None] = {}
    embed_ms: dict[Any, float] = {}
    for owner_id in {p.conversation.owner_id for p in prepared}:
        group = [p for p in prepared if p.conversation.owner_id == owner_id]
        texts = [t.content for p in group for t in p.turns]
        clock = time.perf_counter()
        # Slow work before any transaction (None when the embedder is down: drawers get null).
        batch = providers.embed_documents(owner_id=owner_id, texts=texts)
        share = (time.perf_counter() - clock) * 1000 / max(len(texts), 1)
        start = 0
        for p in group:
            vectors[p.conversation.pk] = batch[start : start + len(p.turns)] if batch is not None else None
            embed_ms[p.conversation.pk] = share * len(p.turns)
            start += len(p.turns)
    for p in prepared:
        results[p.conversation.pk] = _write(p, vectors[p.conversation.pk], embed_ms[p.conversation.pk])
    return results


def _write(p: _Prepared, vectors: list[list[float]] | None, embed_ms: float) -> dict[str, int]:
    conversation, turns = p.conversation, p.turns
    counts = _empty_counts()
    clock = time.perf_counter()
    embedder_name = providers.get_embedder().name if vectors is not None else ""
    segments = extraction.segment([t.content for t in turns])
    agent_name = conversation.agent.name if conversation.agent_id and conversation.agent else "unfiled"
    subjects = _subjects(p.found, agent_name)
    wings_before = Wing.objects.filter(owner_id=conversation.owner_id).count()
    with transaction.atomic(), naming.remembered():
        # One miner per conversation at a time (two workers given the same job, or two jobs): the
        # second waits, then finds the drawers written and adds nothing.
        advisory_xact_lock(f"mine:{conversation.pk}")
        if Drawer.objects.filter(conversation=conversation, turn_index__in=[t.index for t in turns]).exists():
            return {**counts, "raced": 1}  # another run got here first; it reports the counts
        wing = wing_ensure(owner_id=conversation.owner_id, name=subjects.primary[0], kind=subjects.primary[1])
        others = [wing_ensure(owner_id=conversation.owner_id, name=n, kind=k) for n, k in subjects.others]
        room, room_created = _room_for(conversation, wing, turns)
        counts["rooms"] = int(room_created)
        room.linked_wings.add(*[w for w in others if w.pk != wing.pk])
        closets, counts["closets"] = _closets_for(room, turns, segments)
        numbers = _next_numbers(conversation.owner_id, "drawer", len(turns))
        drawers = []
        for offset, turn in enumerate(turns):
            tags = p.tags[offset]
            tag_text = " ".join(f"@{key} " + " ".join(values) for key, values in tags.items())
            drawers.append(
                Drawer(
                    owner_id=conversation.owner_id,
                    room=room,
                    closet=closets[offset],
                    conversation=conversation,
                    turn_index=turn.index,
                    number=numbers[offset],
                    role=turn.role,
                    content=turn.content,
                    occurred_at=turn.timestamp or conversation.started_at,
                    aaak=f"§ W-{wing.number:03d}/R-{room.number:02d}/D-{numbers[offset]:03d}",
                    tags=tags,
                    search_text=f"{turn.content}\n{tag_text}",
                    embedding=vectors[offset] if vectors is not None else None,
                    embedding_model=embedder_name,
                    stated_preference=turn.role == "user" and preferences.states_preference(turn.content),
                )
            )
        Drawer.objects.bulk_create(drawers)
        counts["drawers"] = len(drawers)
        preferences.record(
            owner_id=conversation.owner_id,
            room=room,
            turns=[(t.role, t.content, p.tags[i]) for i, t in enumerate(turns)],
        )
        counts.update(_graph_from(conversation, p.found, turns, drawers, p.llm_triples))
        # Where the time went, for bench/mining.py (milliseconds).
        counts.update(
            ms_extract=round(p.extract_ms),
            ms_embed=round(embed_ms),
            ms_write=round((time.perf_counter() - clock) * 1000),
        )
        counts["embedded"] = len(drawers) if vectors is not None else 0
        counts["wings"] = Wing.objects.filter(owner_id=conversation.owner_id).count() - wings_before
        ActivityEvent.objects.create(
            owner_id=conversation.owner_id,
            kind="memory_mined",
            data={"conversation_id": conversation.external_id, "wing": wing.name, "room": room.number, **counts},
        )
    return counts


def _extract(conversation: Conversation, texts: list[str]) -> tuple[extraction.Extraction, list[extraction.Triple]]:
    """Entities and topics of the whole conversation, window by window for long ones: with the LLM
    when one is configured (one small call per window, metered as memory_extract), offline otherwise
    or when the LLM fails."""
    found = extraction.Extraction()
    triples: list[extraction.Triple] = []
    for window in extraction.windows(texts):
        text = "\n".join(window)
        completion = providers.chat(
            owner_id=conversation.owner_id,
            source=UsageRecord.Source.EXTRACT,
            json_mode=True,
            messages=[{"role": "system", "content": extraction.LLM_PROMPT}, {"role": "user", "content": text[:12000]}],
        )
        if completion is not None:
            try:
                window_found, window_triples = extraction.from_llm(completion.text)
                extraction.merge(found, window_found)
                triples += window_triples
                continue
            except ValueError:
                logger.warning("the LLM's extraction was not the JSON asked for; using the offline extractor")
        extraction.merge(found, extraction.extract(text))
    return found, triples


def _graph_from(
    conversation: Conversation,
    found: extraction.Extraction,
    turns: list[Turn],
    drawers: list[Drawer],
    llm_triples: list[extraction.Triple],
) -> dict[str, int]:
    """Entities and relations the mined turns show, each relation citing its drawer."""
    owner_id = conversation.owner_id
    entities_before = Entity.objects.filter(owner_id=owner_id).count()
    relations_before = Relation.objects.filter(owner_id=owner_id).count()
    kinds = [
        (found.people, Entity.Kind.PERSON),
        (found.projects, Entity.Kind.PROJECT),
        (found.places, Entity.Kind.PLACE),
    ]
    kind_of = {name: kind for counter, kind in kinds for name in counter}
    naming.ensure_many(Entity, owner_id=owner_id, kinds=kind_of)
    turn_triples = [
        (turn, drawer, triple)
        for turn, drawer in zip(turns, drawers, strict=True)
        for triple in extraction.triples(turn.content, found)
    ]
    # The LLM's relations belong to the window, not a turn: they cite the first drawer mined here.
    turn_triples += [(turns[0], drawers[0], triple) for triple in llm_triples]
    seen: set[tuple[str, str, str]] = set()
    for turn, drawer, triple in turn_triples:
        key = (triple.subject, triple.predicate, triple.object)
        if key in seen and not graph.single_valued(triple.predicate):
            continue  # the first turn that shows a relation is its source; repeats change nothing
        seen.add(key)
        graph.relation_add(
            owner_id=owner_id,
            subject=triple.subject,
            predicate=triple.predicate,
            object=triple.object,
            object_is_entity=triple.object_is_entity,
            valid_from=turn.timestamp or conversation.started_at,
            confidence=triple.confidence,
            source_drawer=drawer,
            subject_kind=kind_of.get(triple.subject, Entity.Kind.THING),
            object_kind=kind_of.get(
                triple.object, Entity.Kind.ITEM if triple.predicate == "owns" else Entity.Kind.THING
            ),
        )
    return {
        "entities": Entity.objects.filter(owner_id=owner_id).count() - entities_before,
        "relations": Relation.objects.filter(owner_id=owner_id).count() - relations_before,
    }


def _room_for(conversation: Conversation, wing: Wing, turns: list[Turn]) -> tuple[Room, bool]:
    times = [t.timestamp for t in turns if t.timestamp] or [conversation.started_at]
    room = Room.objects.filter(conversation=conversation).first()
    if room is not None:
        Room.objects.filter(pk=room.pk, ended_at__lt=max(times)).update(ended_at=max(times))
        return room, False
    title = conversation.title or f"{conversation.started_at:%Y-%m-%d} {conversation.external_id}"
    room = Room.objects.create(
        owner_id=conversation.owner_id,
        wing=wing,
        conversation=conversation,
        number=_next_numbers(conversation.owner_id, "room", 1)[0],
        title=title[:300],
        started_at=min(times),
        ended_at=max(times),
    )
    return room, True


def _closets_for(room: Room, turns: list[Turn], segments: list[int]) -> tuple[list[Closet], int]:
    """Each turn's closet, and how many closets were created. One closet per topic segment; new turns
    continue the room's last topic when their first segment shares its words, else they open new
    closets after it."""
    existing = list(room.closets.order_by("position"))
    position = existing[-1].position if existing else -1
    by_segment: dict[int, Closet] = {}
    result = []
    created = 0
    for segment in segments:
        closet = by_segment.get(segment)
        if closet is None:
            words = extraction.topic_words(
                " ".join(t.content for t, s in zip(turns, segments, strict=True) if s == segment), 3
            )
            topic = " / ".join(sorted(words)) or "conversation"
            if segment == 0 and existing and words & set(existing[-1].topic.split(" / ")):
                closet = existing[-1]
            else:
                position += 1
                closet = Closet.objects.create(
                    owner_id=room.owner_id,
                    room=room,
                    position=position,
                    topic=topic[:200],
                    slug=slugify(topic)[:200] or "conversation",
                )
                created += 1
            by_segment[segment] = closet
        result.append(closet)
    return result, created


def drawer_delete(*, drawer: Drawer) -> None:
    """Forget one drawer: its row goes, and with it the text, the embedding and its index entries
    (HNSW and GIN entries are the row's). Its number is never given out again."""
    drawer.delete()
