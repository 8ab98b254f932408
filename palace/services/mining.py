"""Mining: a conversation's unmined turns filed as drawers (one per turn, verbatim, with its AAAK
pointer) in the conversation's room, its topic closets and the wing of its main subject, and the
knowledge-graph relations the turns show. Idempotent: a second run adds nothing, a run after more
turns were appended adds only theirs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils.text import slugify

from accounts.models import ExclusionRule, UsageRecord
from episodic import providers
from memory_site import events
from memory_site.db import advisory_xact_lock
from palace import extraction, naming, preferences, titles, topics
from palace.exclusions import exclusion_matcher
from palace.models import ActivityEvent, Closet, Conversation, Drawer, Entity, Passage, Relation, Room, Turn, Wing
from palace.passages import passages_of
from palace.services import graph, recurring
from palace.services.filing import next_numbers, wing_ensure
from palace.services.passages import passages_embed
from palace.subjects import subjects_of

logger = logging.getLogger(__name__)


def wing_for(owner_id: int, entity_name: str, kind: str, found: extraction.Extraction) -> Wing:
    """The subject's wing; every surface form the conversation used becomes one of its aliases, so the
    next conversation that says "Patel" finds "Dr. Patel"."""
    wing = wing_ensure(owner_id=owner_id, name=entity_name, kind=kind)
    entity = found.named(entity_name)
    if entity is not None:
        aliases = sorted(set(wing.aliases) | {a.lower()[:200] for a in entity.aliases})
        if aliases != sorted(wing.aliases):
            Wing.objects.filter(pk=wing.pk).update(aliases=aliases)
            wing.aliases = aliases
    return wing


def aaak_pointer(wing: Wing, room: Room, number: int) -> str:
    return f"§ W-{wing.number:03d}/R-{room.number:02d}/D-{number:03d}"


def search_text(content: str, tags: dict[str, list[str]]) -> str:
    """What full-text search reads: the turn and its tags (`@p Anna Derek`)."""
    tag_text = " ".join(f"@{key} " + " ".join(values) for key, values in tags.items())
    return f"{content}\n{tag_text}"


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
    excluded: dict[int, int]  # turn index -> the exclusion rule that kept it out
    llm_skipped: bool = False  # an LLM is configured but the owner is over budget: extracted offline
    passages: list[list[str]] = field(default_factory=list)  # per turn: its sentences embedded on their own


Matcher = Callable[[str], ExclusionRule | None]


def _prepare(conversation: Conversation, matcher: Matcher) -> tuple[_Prepared | None, dict[int, int]]:
    """The unmined turns no exclusion rule matches, extracted; and the unmined turns a rule kept out.

    Rules are checked on every turn, mined ones too (their text must not feed the entities and tags
    of the new ones), before any extractor, tagger or embedder reads them. A turn kept out gets no
    drawer, so the next run checks it again and still skips it (idempotent), and no number is drawn
    for it (drawer numbers are drawn for the kept turns only: no hole)."""
    mined = set(Drawer.objects.filter(conversation=conversation).values_list("turn_index", flat=True))
    every = list(conversation.turns.order_by("index"))
    excluded = {t.index: rule.pk for t in every if (rule := matcher(t.content)) is not None}
    context = [t for t in every if t.index not in excluded]
    # A turn with no text (a message that only called a tool) is kept as a turn, never filed: nothing to recall.
    turns = [t for t in context if t.index not in mined and t.content.strip()]
    skipped = {index: rule_id for index, rule_id in excluded.items() if index not in mined}
    if not turns:
        return None, skipped
    clock = time.perf_counter()
    # Over budget, providers.chat answers None and extract() takes the offline path; this says why.
    llm_skipped = providers.llm_over_budget(owner_id=conversation.owner_id)
    found, llm_triples = extract(conversation, [(t.role, t.content) for t in context])
    tags = [extraction.tags_for(t.content, found) for t in turns]
    elapsed = (time.perf_counter() - clock) * 1000
    passages = [passages_of(t.role, t.content) for t in turns]
    return _Prepared(conversation, turns, found, llm_triples, tags, elapsed, skipped, llm_skipped, passages), skipped


def _exclusion_counts(skipped: dict[int, int]) -> dict[str, Any]:
    """What the activity log and the job keep of a skip: how many and which rules, never the text."""
    return {"excluded": len(skipped), "rules": sorted(set(skipped.values()))} if skipped else {}


def conversation_mine(*, conversation: Conversation) -> dict[str, Any]:
    """Mine the conversation's turns that have no drawer yet. Idempotent: a second run adds nothing,
    a run after more turns were appended adds only theirs."""
    counts = conversations_mine(conversations=[conversation])[conversation.pk]
    # Here and now, as the caller asked: the worker's run embeds them in a job of their own instead.
    passages_embed(conversation_ids=[conversation.pk])
    counts.pop("raced", None)
    return counts


def conversations_mine(*, conversations: list[Conversation]) -> dict[Any, dict[str, Any]]:
    """Mine several conversations with one embedding batch per owner: embedding is the bottleneck, and
    one long length-sorted batch pads less and keeps the model busier than many short ones. Each
    conversation is then written in a transaction of its own. Exclusion rules are compiled once per
    owner per run."""
    results: dict[Any, dict[str, Any]] = {c.pk: _empty_counts() for c in conversations}
    matchers = {owner_id: exclusion_matcher(owner=owner_id) for owner_id in {c.owner_id for c in conversations}}
    prepared = []
    for conversation in conversations:
        ready, skipped = _prepare(conversation, matchers[conversation.owner_id])
        if skipped:
            # Kept out by a rule: never a drawer, and no longer a pending turn recall could find.
            Turn.objects.filter(conversation=conversation, index__in=list(skipped)).update(pending=False)
        if ready is not None:
            prepared.append(ready)
        elif skipped:
            # Nothing left to mine, but the person should still see that rules kept turns out.
            results[conversation.pk].update(_exclusion_counts(skipped))
            ActivityEvent.objects.create(
                owner_id=conversation.owner_id,
                kind="memory_mined",
                data={"conversation_id": conversation.external_id, **results[conversation.pk]},
            )
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


def _write(p: _Prepared, vectors: list[list[float]] | None, embed_ms: float) -> dict[str, Any]:
    conversation, turns = p.conversation, p.turns
    counts: dict[str, Any] = _empty_counts()
    clock = time.perf_counter()
    embedder_name = providers.get_embedder().name if vectors is not None else ""
    segments = extraction.segment([t.content for t in turns])
    agent_name = conversation.agent.name if conversation.agent_id and conversation.agent else "unfiled"
    subjects = subjects_of(p.found, agent_name)
    wings_before = Wing.objects.filter(owner_id=conversation.owner_id).count()
    with transaction.atomic(), naming.remembered():
        # One miner per conversation at a time (two workers given the same job, or two jobs): the
        # second waits, then finds the drawers written and adds nothing.
        advisory_xact_lock(f"mine:{conversation.pk}")
        if Drawer.objects.filter(conversation=conversation, turn_index__in=[t.index for t in turns]).exists():
            return {**counts, "raced": 1}  # another run got here first; it reports the counts
        owner_id = conversation.owner_id
        wing = wing_for(owner_id, subjects.primary[0], subjects.primary[1], p.found)
        others = [wing_for(owner_id, name, kind, p.found) for name, kind in subjects.others]
        room, room_created = _room_for(conversation, wing, turns, p.found)
        counts["rooms"] = int(room_created)
        room.linked_wings.add(*[w for w in others if w.pk != wing.pk])
        closets, counts["closets"] = _closets_for(room, turns, segments, p.found)
        if room_created:
            recurring.room_file_topics(room=room, turns=[(t.role, t.content) for t in turns], found=p.found)
        numbers = next_numbers(conversation.owner_id, "drawer", len(turns))
        drawers = []
        for offset, turn in enumerate(turns):
            tags = p.tags[offset]
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
                    aaak=aaak_pointer(wing, room, numbers[offset]),
                    tags=tags,
                    search_text=search_text(turn.content, tags),
                    embedding=vectors[offset] if vectors is not None else None,
                    embedding_model=embedder_name,
                    stated_preference=turn.role == "user" and preferences.states_preference(turn.content),
                )
            )
        Drawer.objects.bulk_create(drawers)
        counts["passages"] = _passages_write(drawers, p.passages)
        # Filed: recall reads them as drawers from now on, no longer as pending turns.
        Turn.objects.filter(conversation=conversation, index__in=[t.index for t in turns]).update(pending=False)
        counts["drawers"] = len(drawers)
        preferences.record(
            owner_id=conversation.owner_id,
            room=room,
            turns=[(t.role, t.content, p.tags[i]) for i, t in enumerate(turns)],
        )
        counts.update(graph_from(conversation, p.found, turns, drawers, p.llm_triples))
        # Where the time went, for bench/mining.py (milliseconds).
        counts.update(
            ms_extract=round(p.extract_ms),
            ms_embed=round(embed_ms),
            ms_write=round((time.perf_counter() - clock) * 1000),
        )
        counts["embedded"] = len(drawers) if vectors is not None else 0
        counts["wings"] = Wing.objects.filter(owner_id=conversation.owner_id).count() - wings_before
        counts.update(_exclusion_counts(p.excluded))
        if p.llm_skipped:
            counts["llm"] = "skipped_budget"
        ActivityEvent.objects.create(
            owner_id=conversation.owner_id,
            agent_id=conversation.agent_id,
            kind="memory_mined",
            data={"conversation_id": conversation.external_id, "wing": wing.name, "room": room.number, **counts},
        )
        events.memory_event_emit(
            owner_id=conversation.owner_id,
            type=events.MEMORY_MINED,
            payload={
                "conversation_id": conversation.external_id,
                "agent_id": str(conversation.agent_id) if conversation.agent_id else None,
                "wing": wing.name,
                "room": room.number,
                "drawer_ids": [d.pk for d in drawers],
                "counts": {k: v for k, v in counts.items() if not k.startswith("ms_")},
            },
        )
    return counts


def _passages_write(drawers: list[Drawer], passages: list[list[str]]) -> int:
    """The drawers' passages, without vectors: the mining job embeds them once its drawers are filed
    (palace/services/passages.py `passages_embed`), so a conversation's drawers never wait for them."""
    rows = [
        Passage(owner_id=drawer.owner_id, drawer=drawer, position=position, text=text)
        for drawer, texts in zip(drawers, passages, strict=True)
        for position, text in enumerate(texts)
    ]
    Passage.objects.bulk_create(rows)
    return len(rows)


def extract(
    conversation: Conversation, turns: list[tuple[str, str]]
) -> tuple[extraction.Extraction, list[extraction.Triple]]:
    """Entities, title and relations of the whole conversation: with the LLM when one is configured
    (one small call per window, metered as memory_extract), else offline. Any window the LLM fails
    (no answer, a timeout, JSON of another shape) sends the whole conversation to the offline path:
    a half-LLM, half-offline palace would file one conversation two ways."""
    found = extraction.Extraction()
    triples: list[extraction.Triple] = []
    for window in extraction.windows(turns):
        completion = providers.chat(
            owner_id=conversation.owner_id,
            source=UsageRecord.Source.EXTRACT,
            json_mode=True,
            messages=[
                {"role": "system", "content": extraction.LLM_PROMPT},
                {"role": "user", "content": extraction.window_text(window)},
            ],
        )
        if completion is None:
            break
        try:
            window_found, window_triples = extraction.from_llm(completion.text)
        except ValueError:
            logger.warning("the LLM's extraction was not the JSON asked for; using the offline extractor")
            break
        extraction.merge(found, window_found)
        triples += window_triples
    else:
        # The LLM is not asked for items, events and times: the patterns find them (no NER pass needed).
        for _, text in turns:
            extraction.patterns(text, found)
        return extraction.count_mentions(found, turns), triples
    return extraction.count_mentions(extraction.extract(turns), turns), []


def graph_from(
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
    kind_of = {entity.name: entity.kind for entity in found.entities}
    naming.ensure_many(Entity, owner_id=owner_id, kinds=kind_of)
    turn_triples = [
        (turn, drawer, triple)
        for turn, drawer in zip(turns, drawers, strict=True)
        for triple in extraction.triples(turn.content, found)
    ]
    # The LLM's relations belong to the window, not a turn: they cite the first drawer mined here.
    turn_triples += [(turns[0], drawers[0], triple) for triple in llm_triples]
    # A relation to the user the LLM read but no turn states in so many words cites the first drawer too.
    related = {t.subject for _, _, t in turn_triples if t.predicate == "relation_to_user"}
    turn_triples += [
        (turns[0], drawers[0], extraction.Triple(p.name, "relation_to_user", p.relation, False, 0.7))
        for p in found.of_kind("person")
        if p.relation and p.name not in related
    ]
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


def room_title(conversation: Conversation, turns: list[Turn], found: extraction.Extraction) -> str:
    """The caller's title, else the LLM's, else the user's opening request condensed, else the
    conversation's main key phrase; never the conversation id."""
    pairs = [(t.role, t.content) for t in turns]
    fallback = (
        topics.topic_label(pairs, avoid=()).capitalize() or f"Conversation of {conversation.started_at:%-d %b %Y}"
    )
    return conversation.title or found.title or titles.room_title(pairs, fallback=fallback)


def _room_for(
    conversation: Conversation, wing: Wing, turns: list[Turn], found: extraction.Extraction
) -> tuple[Room, bool]:
    times = [t.timestamp for t in turns if t.timestamp] or [conversation.started_at]
    room = Room.objects.filter(conversation=conversation).first()
    if room is not None:
        Room.objects.filter(pk=room.pk, ended_at__lt=max(times)).update(ended_at=max(times))
        return room, False
    title = room_title(conversation, turns, found)
    room = Room.objects.create(
        owner_id=conversation.owner_id,
        wing=wing,
        conversation=conversation,
        number=next_numbers(conversation.owner_id, "room", 1)[0],
        title=title[:300],
        started_at=min(times),
        ended_at=max(times),
    )
    return room, True


def closet_topics(turns: list[Turn], segments: list[int], found: extraction.Extraction) -> dict[int, str]:
    """Each topic segment's closet label: its key phrase, never one of the conversation's names."""
    names = [alias for entity in found.entities for alias in entity.aliases]
    labels = {}
    for segment in dict.fromkeys(segments):
        members = [(t.role, t.content) for t, s in zip(turns, segments, strict=True) if s == segment]
        labels[segment] = topics.topic_label(members, avoid=names) or "conversation"
    return labels


def _closets_for(
    room: Room, turns: list[Turn], segments: list[int], found: extraction.Extraction
) -> tuple[list[Closet], int]:
    """Each turn's closet, and how many closets were created. One closet per topic segment, labelled
    with its key phrase ("leather jacket outfits"); new turns continue the room's last topic when their
    first segment shares its words, else they open new closets after it."""
    labels = closet_topics(turns, segments, found)
    existing = list(room.closets.order_by("position"))
    position = existing[-1].position if existing else -1
    by_segment: dict[int, Closet] = {}
    result = []
    created = 0
    for segment in segments:
        closet = by_segment.get(segment)
        if closet is None:
            members = [(t.role, t.content) for t, s in zip(turns, segments, strict=True) if s == segment]
            words = extraction.topic_words(" ".join(text for _, text in members), 3)
            topic = labels[segment]
            if segment == 0 and existing and words & set(extraction.topic_words(existing[-1].topic)):
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
