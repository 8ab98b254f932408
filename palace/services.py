"""Writes of the palace: conversations in (durable before the response), mining jobs (an outbox), and
mining itself — drawers per turn, rooms, closets, wings and AAAK pointers.

Nothing posted is lost: turns and their mining request commit together; the task is sent on commit,
and a job whose send failed (broker down) stays `queued` with `enqueued_at` null until the outbox job
sends it again.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypedDict

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.text import slugify

from accounts.models import Agent, UsageRecord
from accounts.services import memory_settings_ensure
from episodic import providers
from memory_site.db import advisory_xact_lock
from memory_site.lib.errors import ConflictError, ForbiddenError, NotFoundError
from palace import extraction, kg, naming, preferences
from palace.models import (
    ActivityEvent,
    Closet,
    Conversation,
    Drawer,
    Entity,
    MiningJob,
    PalaceCounter,
    Relation,
    Room,
    Turn,
    Wing,
)
from palace.naming import ensure_named

logger = logging.getLogger(__name__)

MESSAGE_MEMORY_OFF = "Memory is turned off for this user: nothing was stored."
MESSAGE_CONVERSATION_EXISTS = "A conversation with this id exists; append turns to it instead."
MESSAGE_NO_CONVERSATION = "Conversation not found."


class MemoryDisabled(ForbiddenError):
    message = MESSAGE_MEMORY_OFF


class ConversationExists(ConflictError):
    message = MESSAGE_CONVERSATION_EXISTS


class ConversationMissing(NotFoundError):
    message = MESSAGE_NO_CONVERSATION


class TurnInput(TypedDict, total=False):
    role: str
    content: str
    timestamp: datetime | None


def _check_enabled(owner: User) -> bool:
    """Raises MemoryDisabled when the owner opted out; returns auto_mine."""
    memory_settings = memory_settings_ensure(user=owner)
    if not memory_settings.enabled:
        raise MemoryDisabled(MESSAGE_MEMORY_OFF)
    return memory_settings.auto_mine


def _add_turns(conversation: Conversation, turns: list[TurnInput]) -> None:
    start = conversation.turn_count
    Turn.objects.bulk_create(
        Turn(
            conversation=conversation,
            index=start + offset,
            role=turn["role"],
            content=turn["content"],
            timestamp=turn.get("timestamp"),
        )
        for offset, turn in enumerate(turns)
    )
    conversation.turn_count = start + len(turns)
    conversation.save(update_fields=["turn_count", "complete", "updated_at"])


def _new_job(conversation: Conversation, *, ready: bool) -> MiningJob:
    job = MiningJob.objects.create(owner_id=conversation.owner_id, conversation=conversation, ready=ready)
    if ready:
        # Earlier requests still waiting for this conversation are covered by this run.
        MiningJob.objects.filter(conversation=conversation, status=MiningJob.Status.QUEUED, ready=False).update(
            ready=True
        )
        transaction.on_commit(lambda: job_send(job_id=job.id))
    return job


def conversation_create(
    *,
    owner: User,
    agent: Agent | None,
    external_id: str,
    turns: list[TurnInput],
    complete: bool = False,
    title: str = "",
    user_id: str = "",
    started_at: datetime | None = None,
) -> MiningJob:
    """Store a conversation and its turns verbatim, with its mining request, in one transaction."""
    auto_mine = _check_enabled(owner)
    first_timestamp = next((t["timestamp"] for t in turns if t.get("timestamp")), None)
    try:
        with transaction.atomic():
            conversation = Conversation.objects.create(
                owner=owner, agent=agent, external_id=external_id, title=title, user_id=user_id, complete=complete,
                started_at=started_at or first_timestamp or timezone.now(),
            )  # fmt: skip
            _add_turns(conversation, turns)
            return _new_job(conversation, ready=complete and auto_mine)
    except IntegrityError:
        raise ConversationExists(MESSAGE_CONVERSATION_EXISTS) from None


def _locked_conversation(owner: User, external_id: str) -> Conversation:
    conversation = Conversation.objects.select_for_update().filter(owner=owner, external_id=external_id).first()
    if conversation is None:
        raise ConversationMissing(MESSAGE_NO_CONVERSATION)
    return conversation


def conversation_append(*, owner: User, external_id: str, turns: list[TurnInput]) -> MiningJob:
    """Append turns (indexes continue the conversation's) with their mining request. Appending to a
    complete conversation mines the new turns automatically (auto-mine)."""
    auto_mine = _check_enabled(owner)
    with transaction.atomic():
        # The row lock orders concurrent appends: each one sees the other's turn_count.
        conversation = _locked_conversation(owner, external_id)
        _add_turns(conversation, turns)
        return _new_job(conversation, ready=conversation.complete and auto_mine)


def conversation_complete(*, owner: User, external_id: str) -> MiningJob:
    auto_mine = _check_enabled(owner)
    with transaction.atomic():
        conversation = _locked_conversation(owner, external_id)
        conversation.complete = True
        conversation.save(update_fields=["complete", "updated_at"])
        return _new_job(conversation, ready=auto_mine)


def conversation_request_mining(*, owner: User, external_id: str) -> MiningJob:
    _check_enabled(owner)
    with transaction.atomic():
        return _new_job(_locked_conversation(owner, external_id), ready=True)


# --- the outbox ---------------------------------------------------------------------------------------


def job_send(*, job_id: Any) -> bool:
    """Hand a job to the broker; True when sent. A broker outage leaves the job for the outbox."""
    from palace.tasks import mine_conversation

    try:
        mine_conversation.apply_async(args=(str(job_id),), retry=False)
    except Exception:
        logger.warning("could not send mining job %s; the outbox will retry", job_id, exc_info=True)
        return False
    MiningJob.objects.filter(pk=job_id).update(enqueued_at=timezone.now())
    return True


def outbox_requeue(
    *, older_than: timedelta = timedelta(minutes=1), stale_after: timedelta = timedelta(minutes=15)
) -> dict[str, int]:
    """Send again the ready jobs still queued — never sent (older than a minute), or sent long ago and
    never started (the broker lost them) — and the ones abandoned mid-run. Mining is idempotent, so a
    duplicate send is harmless."""
    now = timezone.now()
    # A job still "running" long after the hard time limit lost its worker (and its message): send it
    # again; the claim accepts a running job and mining is idempotent.
    abandoned = timedelta(seconds=2 * settings.CELERY_TASK_TIME_LIMIT)
    pending = MiningJob.objects.filter(ready=True).filter(
        Q(status=MiningJob.Status.QUEUED, enqueued_at__isnull=True, requested_at__lt=now - older_than)
        | Q(status=MiningJob.Status.QUEUED, enqueued_at__lt=now - stale_after)
        | Q(status=MiningJob.Status.RUNNING, started_at__lt=now - abandoned)
    )
    counts = {"sent": 0, "failed": 0}
    for job_id in pending.values_list("pk", flat=True)[:500]:
        counts["sent" if job_send(job_id=job_id) else "failed"] += 1
    return counts


# --- mining -------------------------------------------------------------------------------------------


def _next_numbers(owner_id: int, kind: str, count: int) -> list[int]:
    """`count` fresh numbers for `kind` (wing, room, drawer) of one owner; never reused."""
    PalaceCounter.objects.get_or_create(owner_id=owner_id, kind=kind)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {PalaceCounter._meta.db_table} SET value = value + %s WHERE owner_id = %s AND kind = %s RETURNING value",
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
        closets = _closets_for(room, turns, segments)
        counts["closets"] = len({c.pk for c in closets if getattr(c, "_created", False)})
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
        preferences.record(owner_id=conversation.owner_id, room=room,
                           turns=[(t.role, t.content, p.tags[i]) for i, t in enumerate(turns)])  # fmt: skip
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
            owner_id=conversation.owner_id, kind="memory_mined",
            data={"conversation_id": conversation.external_id, "wing": wing.name, "room": room.number, **counts},
        )  # fmt: skip
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
            owner_id=conversation.owner_id, source=UsageRecord.Source.EXTRACT, json_mode=True,
            messages=[{"role": "system", "content": extraction.LLM_PROMPT}, {"role": "user", "content": text[:12000]}],
        )  # fmt: skip
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
    turn_triples = [(turn, drawer, triple) for turn, drawer in zip(turns, drawers, strict=True)
                    for triple in extraction.triples(turn.content, found)]  # fmt: skip
    # The LLM's relations belong to the window, not a turn: they cite the first drawer mined here.
    turn_triples += [(turns[0], drawers[0], triple) for triple in llm_triples]
    seen: set[tuple[str, str, str]] = set()
    for turn, drawer, triple in turn_triples:
        key = (triple.subject, triple.predicate, triple.object)
        if key in seen and not kg.single_valued(triple.predicate):
            continue  # the first turn that shows a relation is its source; repeats change nothing
        seen.add(key)
        kg.relation_add(
            owner_id=owner_id, subject=triple.subject, predicate=triple.predicate, object=triple.object,
            object_is_entity=triple.object_is_entity, valid_from=turn.timestamp or conversation.started_at,
            confidence=triple.confidence, source_drawer=drawer,
            subject_kind=kind_of.get(triple.subject, Entity.Kind.THING),
            object_kind=kind_of.get(triple.object, Entity.Kind.ITEM if triple.predicate == "owns" else Entity.Kind.THING),
        )  # fmt: skip
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
        owner_id=conversation.owner_id, wing=wing, conversation=conversation,
        number=_next_numbers(conversation.owner_id, "room", 1)[0], title=title[:300],
        started_at=min(times), ended_at=max(times),
    )  # fmt: skip
    return room, True


def _closets_for(room: Room, turns: list[Turn], segments: list[int]) -> list[Closet]:
    """One closet per topic segment; new turns continue the room's last topic when their first segment
    shares its words, else they open new closets after it."""
    existing = list(room.closets.order_by("position"))
    position = existing[-1].position if existing else -1
    by_segment: dict[int, Closet] = {}
    result = []
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
                closet = Closet.objects.create(owner_id=room.owner_id, room=room, position=position, topic=topic[:200],
                                               slug=slugify(topic)[:200] or "conversation")  # fmt: skip
                closet._created = True  # type: ignore[attr-defined]
            by_segment[segment] = closet
        result.append(closet)
    return result


JOB_BATCH = 8  # conversations mined together by one job run (one embedding batch)


def job_run(*, job_id: Any) -> dict[str, int] | None:
    """Claim and run one mining job, together with up to JOB_BATCH - 1 other ready jobs of the same
    owner still waiting (their own messages then find them done). None when the job is gone or done."""
    now = timezone.now()
    claimed = MiningJob.objects.filter(
        pk=job_id, status__in=[MiningJob.Status.QUEUED, MiningJob.Status.RUNNING]
    ).update(status=MiningJob.Status.RUNNING, started_at=now, attempts=F("attempts") + 1)
    if not claimed:
        return None
    job = MiningJob.objects.select_related("conversation", "conversation__agent").get(pk=job_id)
    with transaction.atomic():
        # SKIP LOCKED: another worker batching at the same moment takes other jobs, not these.
        extra_ids = list(
            MiningJob.objects.select_for_update(skip_locked=True)
            .filter(owner_id=job.owner_id, status=MiningJob.Status.QUEUED, ready=True)
            .exclude(conversation_id=job.conversation_id)
            .order_by("requested_at")
            .values_list("pk", flat=True)[: JOB_BATCH - 1]
        )
        MiningJob.objects.filter(pk__in=extra_ids).update(
            status=MiningJob.Status.RUNNING, started_at=now, attempts=F("attempts") + 1
        )
    jobs = [job, *MiningJob.objects.select_related("conversation", "conversation__agent").filter(pk__in=extra_ids)]
    conversations = list({j.conversation_id: j.conversation for j in jobs}.values())
    results = conversations_mine(conversations=conversations)
    for conversation in conversations:
        # This run covered every request for the conversation made before it started.
        # (The jobs this run claimed, whenever they were asked for, and the ones still queued from
        # before it started.)
        covered = MiningJob.objects.filter(conversation=conversation, ready=True).filter(
            Q(pk__in=[j.pk for j in jobs]) | Q(status=MiningJob.Status.QUEUED, requested_at__lte=now)
        )
        if results[conversation.pk].pop("raced", 0):
            # Another run mined this conversation meanwhile: that run marks these jobs, with its counts.
            continue
        if not results[conversation.pk]["drawers"]:
            # Nothing new here: never overwrite the counts a run that did the work has written.
            covered = covered.exclude(status=MiningJob.Status.DONE)
        covered.update(
            status=MiningJob.Status.DONE, finished_at=timezone.now(), counts=results[conversation.pk], error=""
        )
    return results[job.conversation_id]


def job_fail(*, job_id: Any, error: str) -> None:
    MiningJob.objects.filter(pk=job_id).update(
        status=MiningJob.Status.FAILED, finished_at=timezone.now(), error=error[:4000]
    )


def drawer_delete(*, drawer: Drawer) -> None:
    """Forget one drawer: its row goes, and with it the text, the embedding and its index entries
    (HNSW and GIN entries are the row's). Its number is never given out again."""
    drawer.delete()
