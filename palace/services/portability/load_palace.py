"""Writers for the palace's rows (settings, agents, conversations, the palace, the knowledge graph and
preference topics). Each takes one checked row; rows are matched by natural key, so writing one
twice changes nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from django.contrib.auth.models import User
from django.db.models import Exists, Max, OuterRef

from accounts.models import MemorySettings
from memory_site.lib.errors import ServiceError
from palace.exclusions import exclusion_rule_same
from palace.models import (
    Closet,
    Conversation,
    Drawer,
    Entity,
    PalaceCounter,
    PreferenceMention,
    PreferenceTopic,
    Relation,
    Room,
    Turn,
    Wing,
)
from palace.services.exclusions import exclusion_rule_create
from palace.services.mining import search_text
from palace.services.portability.format import DRAWER_FIELDS, SETTINGS_FIELDS
from palace.services.portability.rows import BadRow, Row

if TYPE_CHECKING:
    from collections.abc import Callable

    from palace.services.portability.load import Loader


def settings_write(loader: Loader, row: Row) -> None:
    stored, _ = MemorySettings.objects.get_or_create(user=loader.owner)
    for name in SETTINGS_FIELDS:
        if name in row.data:
            setattr(stored, name, row.data[name])
    stored.full_clean(exclude=["user"])
    stored.save()


def exclusion_rule_write(loader: Loader, row: Row) -> None:
    """An exclusion rule, validated as if it were added now (a pattern another version allowed may be
    refused); the same rule already there (a word or phrase in any case) is kept."""
    kind, pattern = row.text("kind", blank=False), row.text("pattern", blank=False)
    if exclusion_rule_same(owner=loader.owner, kind=kind, pattern=pattern) is None:
        try:
            exclusion_rule_create(owner=loader.owner, kind=kind, pattern=pattern)
        except ServiceError as error:
            raise BadRow(f"exclusion rule {pattern!r}: {error.detail}") from None


def agent_write(loader: Loader, row: Row) -> None:
    # A missing agent is created with the file's description and config; an existing one keeps its own.
    loader.agent(
        row.text("name", blank=False), description=row.text("description", ""), config=row.mapping("config", {})
    )


def conversation_write(loader: Loader, row: Row) -> None:
    turns = row.items("turns", [])
    conversation, _ = Conversation.objects.update_or_create(
        owner=loader.owner,
        external_id=row.text("external_id", blank=False),
        defaults={
            "agent": loader.agent(row.text("agent", None, null=True)),
            "title": row.text("title", ""),
            "user_id": row.text("user_id", ""),
            "started_at": row.when("started_at"),
            "complete": row.flag("complete", False),
        },
    )
    objs = []
    for turn in turns:
        t = Row(turn if isinstance(turn, dict) else {})
        objs.append(
            Turn(
                conversation=conversation,
                index=t.number("index"),
                role=t.choice("role", Turn.Role.choices),
                content=t.text("content"),
                timestamp=t.when("timestamp", None, null=True),
            )
        )
    Turn.objects.bulk_create(objs, ignore_conflicts=True)
    conversation.turn_count = Turn.objects.filter(conversation=conversation).count()
    conversation.save(update_fields=["turn_count"])
    loader.ref("conversation", _conversations(loader))[conversation.external_id] = conversation.pk


def _conversations(loader: Loader) -> Callable[[], Any]:
    return lambda: Conversation.objects.filter(owner=loader.owner).values_list("external_id", "pk")


MESSAGE_NUMBER_TAKEN: Final = (
    "{what} {number} in the file is {theirs!r}, but this palace's {what} {number} is {ours!r}: a file loads into "
    "the palace it came from, or into an empty one (numbers are kept, never reassigned)."
)


def _same(what: str, number: int, theirs: Any, ours: Any) -> None:
    if ours is not None and ours != theirs:
        raise BadRow(MESSAGE_NUMBER_TAKEN.format(what=what, number=number, theirs=theirs, ours=ours))


def wing_write(loader: Loader, row: Row) -> None:
    number, slug = row.number("number"), row.text("slug", blank=False)
    _same(
        "wing",
        number,
        slug,
        Wing.objects.filter(owner=loader.owner, number=number).values_list("slug", flat=True).first(),
    )
    _same(
        "wing",
        number,
        number,
        Wing.objects.filter(owner=loader.owner, slug=slug).values_list("number", flat=True).first(),
    )
    wing, _ = Wing.objects.update_or_create(
        owner=loader.owner,
        number=number,
        defaults={
            "kind": row.choice("kind", Wing.Kind.choices),
            "name": row.text("name", blank=False),
            "slug": slug,
            "aliases": row.names("aliases", []),
        },
    )
    _wings(loader)[wing.number] = wing.pk


def _wings(loader: Loader) -> dict[Any, Any]:
    return loader.ref("wing", lambda: Wing.objects.filter(owner=loader.owner).values_list("number", "pk"))


def _wing(loader: Loader, number: int) -> Any:
    found = _wings(loader).get(number)
    if found is None:
        raise BadRow(f"no wing {number} in the file before this line or in the palace.")
    return found


def room_write(loader: Loader, row: Row) -> None:
    external_id = row.text("conversation", None, null=True)
    conversation = loader.lookup("conversation", external_id, _conversations(loader)) if external_id else None
    number, rooms = row.number("number"), Room.objects.filter(owner=loader.owner)
    stored = rooms.filter(number=number).values_list("conversation__external_id", flat=True).first()
    _same("room", number, external_id, stored)
    if conversation is not None:
        _same(
            "room", number, number, rooms.filter(conversation_id=conversation).values_list("number", flat=True).first()
        )
    room, _ = Room.objects.update_or_create(
        owner=loader.owner,
        number=number,
        defaults={
            "wing_id": _wing(loader, row.number("wing")),
            "conversation_id": conversation,
            "title": row.text("title"),
            "started_at": row.when("started_at"),
            "ended_at": row.when("ended_at"),
            "keyphrases": row.names("keyphrases", []),
        },
    )
    room.linked_wings.set([_wing(loader, n) for n in row.items("linked", [])])
    _rooms(loader)[room.number] = room.pk


def _rooms(loader: Loader) -> dict[Any, Any]:
    return loader.ref("room", lambda: Room.objects.filter(owner=loader.owner).values_list("number", "pk"))


def _room(loader: Loader, number: int) -> Any:
    found = _rooms(loader).get(number)
    if found is None:
        raise BadRow(f"no room {number} in the file before this line or in the palace.")
    return found


def closet_write(loader: Loader, row: Row) -> None:
    room = _room(loader, row.number("room"))
    closet, _ = Closet.objects.update_or_create(
        owner=loader.owner,
        room_id=room,
        position=row.number("position"),
        defaults={"topic": row.text("topic"), "slug": row.text("slug")},
    )
    _closets(loader)[(row.data["room"], closet.position)] = closet.pk


def _closets(loader: Loader) -> dict[Any, Any]:
    def load() -> Any:
        rows = Closet.objects.filter(owner=loader.owner).values_list("room__number", "position", "pk")
        return (((room, position), pk) for room, position, pk in rows)

    return loader.ref("closet", load)


def drawer_write(loader: Loader, row: Row) -> None:
    room_number = row.number("room")
    closet = _closets(loader).get((room_number, row.number("closet")))
    if closet is None:
        raise BadRow(f"no closet {row.data['closet']} in room {room_number}.")
    fields = {name: row.any(name) for name in DRAWER_FIELDS}
    drawer = Drawer(
        owner=loader.owner,
        number=row.number("number"),
        room_id=_room(loader, room_number),
        closet_id=closet,
        conversation_id=loader.lookup("conversation", row.text("conversation"), _conversations(loader)),
        occurred_at=row.when("occurred_at"),
        **{**fields, "content": row.text("content"), "tags": row.mapping("tags", {})},
    )
    drawer.search_text = search_text(drawer.content, drawer.tags)
    loader.vector(row, drawer)
    loader.queue(drawer)


def drawers_check(loader: Loader, queued: list[tuple[int, Any]]) -> None:
    """A drawer already stored under the same number must be the same turn, and the same turn must have
    the same number: anything else is another palace's drawer, which ON CONFLICT would silently skip."""
    drawers = Drawer.objects.filter(owner=loader.owner)
    fields = ("number", "conversation_id", "turn_index", "conversation__external_id")
    by_number = {
        row[0]: row[1:] for row in drawers.filter(number__in=[d.number for _, d in queued]).values_list(*fields)
    }
    turns = drawers.filter(conversation_id__in={d.conversation_id for _, d in queued}).values_list(*fields)
    by_turn = {(c, t): n for n, c, t, _ in turns}
    for line, drawer in queued:
        loader.line = line
        stored = by_number.get(drawer.number)
        if stored is not None and stored[:2] != (drawer.conversation_id, drawer.turn_index):
            _same("drawer", drawer.number, f"turn {drawer.turn_index}", f"turn {stored[1]} of {stored[2]}")
        _same("drawer", drawer.number, drawer.number, by_turn.get((drawer.conversation_id, drawer.turn_index)))


def entity_write(loader: Loader, row: Row) -> None:
    entity, _ = Entity.objects.update_or_create(
        owner=loader.owner,
        slug=row.text("slug", blank=False),
        defaults={
            "kind": row.choice("kind", Entity.Kind.choices),
            "name": row.text("name", blank=False),
            "aliases": row.names("aliases", []),
        },
    )
    _entities(loader)[entity.slug] = entity.pk


def _entities(loader: Loader) -> dict[Any, Any]:
    return loader.ref("entity", lambda: Entity.objects.filter(owner=loader.owner).values_list("slug", "pk"))


def relation_write(loader: Loader, row: Row) -> None:
    entities = _entities(loader)
    subject, object_slug = row.text("subject"), row.text("object", None, null=True)
    if subject not in entities or (object_slug is not None and object_slug not in entities):
        raise BadRow(f"no entity {subject if subject not in entities else object_slug!r} before this line.")
    cited = row.items("drawers", [])
    drawer = (
        loader.lookup("drawer", cited[0], lambda: Drawer.objects.filter(owner=loader.owner).values_list("number", "pk"))
        if cited
        else None
    )
    relation = Relation(
        owner=loader.owner,
        subject_id=entities[subject],
        predicate=row.text("predicate", blank=False),
        object_id=entities.get(object_slug) if object_slug is not None else None,
        object_value=row.text("object_value", ""),
        valid_from=row.when("valid_from"),
        valid_to=row.when("valid_to", None, null=True),
        confidence=row.real("confidence", 1.0),
        source_drawer_id=drawer,
    )
    # Relations have no unique constraint (a fact may be stated again later): the same fact with the
    # same window is what a second import must not add.
    stored = loader.ref("relation key", lambda: ((_relation_key(r), True) for r in _stored_relations(loader)))
    key = _relation_key(relation)
    if key not in stored:
        stored[key] = True
        loader.queue(relation)


def _stored_relations(loader: Loader) -> Any:
    fields = ("subject_id", "predicate", "object_id", "object_value", "valid_from", "valid_to")
    return (Relation(**r) for r in Relation.objects.filter(owner=loader.owner).values(*fields).iterator())


def _relation_key(r: Relation) -> tuple[Any, ...]:
    return (r.subject_id, r.predicate, r.object_id, r.object_value, r.valid_from, r.valid_to)


def preference_topic_write(loader: Loader, row: Row) -> None:
    topic, _ = PreferenceTopic.objects.update_or_create(
        owner=loader.owner,
        term=row.text("term", blank=False),
        defaults={"rooms": row.number("rooms", 0), "stated": row.number("stated", 0)},
    )
    mentions = [PreferenceMention(topic=topic, room_id=_room(loader, n)) for n in row.items("mentioned", [])]
    PreferenceMention.objects.bulk_create(mentions, ignore_conflicts=True)


def counters_raise(*, owner: User) -> None:
    """Numbers handed out from now on come after the imported ones: AAAK pointers are never reused."""
    for kind, model in (("wing", Wing), ("room", Room), ("drawer", Drawer)):
        highest = model.objects.filter(owner=owner).aggregate(n=Max("number"))["n"] or 0  # type: ignore[attr-defined]
        counter, _ = PalaceCounter.objects.get_or_create(owner=owner, kind=kind)
        if counter.value < highest:
            PalaceCounter.objects.filter(pk=counter.pk).update(value=highest)


def turns_mark_filed(*, owner: User) -> int:
    """Imported turns that came with their drawer are filed, not pending (palace/pending.py); the others
    wait for the miner like any posted turn."""
    filed = Drawer.objects.filter(conversation_id=OuterRef("conversation_id"), turn_index=OuterRef("index"))
    return Turn.objects.filter(conversation__owner=owner, pending=True).filter(Exists(filed)).update(pending=False)


WRITERS: Final = {
    "settings": settings_write,
    "exclusion_rule": exclusion_rule_write,
    "agent": agent_write,
    "conversation": conversation_write,
    "wing": wing_write,
    "room": room_write,
    "closet": closet_write,
    "drawer": drawer_write,
    "entity": entity_write,
    "relation": relation_write,
    "preference_topic": preference_topic_write,
}
