"""Recurring topics: a subject the owner comes back to across conversations without naming an entity
("sourdough baking", "marathon training") becomes a wing of kind `topic`, linked to every room that
discusses it. A room keeps its normalised key phrases (Room.keyphrases); a phrase among the top phrases
of at least MIN_ROOMS rooms, but of at most MAX_SHARE of the owner's rooms (a phrase in every room is
how people chat, not a topic), files those rooms under the topic's wing.
"""

from __future__ import annotations

from collections.abc import Sequence

from palace import extraction, topics
from palace.models import Room, Wing
from palace.services.filing import wing_ensure

MIN_ROOMS = 3
MAX_SHARE = 0.4


def room_file_topics(*, room: Room, turns: Sequence[tuple[str, str]], found: extraction.Extraction) -> list[Wing]:
    """Remember the room's key phrases and link it (and the earlier rooms that share a phrase) to the
    topic wings the phrase now earns. Returns the topic wings the room was linked to. Runs inside the
    mining transaction; a wing that another miner creates at the same time is found by its slug."""
    names = [alias for entity in found.entities for alias in entity.aliases]
    keys = topics.room_keyphrases(turns, avoid=names)
    Room.objects.filter(pk=room.pk).update(keyphrases=keys)
    if not keys:
        return []
    rooms = Room.objects.filter(owner_id=room.owner_id)
    total = rooms.count()
    sharing: dict[str, list[int]] = {key: [room.pk] for key in keys}
    for other_pk, phrases in (
        rooms.filter(keyphrases__has_any_keys=keys).exclude(pk=room.pk).values_list("pk", "keyphrases")
    ):
        for key in set(phrases) & set(keys):
            sharing[key].append(other_pk)
    linked: list[Wing] = []
    for key, room_ids in sharing.items():
        if not _earns(room_ids, total) or _covered(key, sharing, total):
            continue
        wing = wing_ensure(owner_id=room.owner_id, name=key, kind=Wing.Kind.TOPIC)
        if wing.kind != Wing.Kind.TOPIC:
            continue  # the phrase names an entity's wing already ("paris"): no topic of the same name
        for member in Room.objects.filter(pk__in=room_ids).exclude(wing=wing):
            member.linked_wings.add(wing)
        linked.append(wing)
    return linked


def owner_file_topics(*, owner_id: int) -> None:
    """Link every room of the owner to exactly the topic wings its key phrases earn now. Re-filing
    calls it once every room's key phrases are final: filing room by room reads the other rooms'
    phrases as they were at that moment, and a link earned from a phrase that a later room lost would
    otherwise stay (and a second run would remove it)."""
    rooms = list(Room.objects.filter(owner_id=owner_id).values_list("pk", "wing_id", "keyphrases"))
    sharing: dict[str, list[int]] = {}
    for pk, _, phrases in rooms:
        for key in phrases:
            sharing.setdefault(key, []).append(pk)
    wing_of = {pk: wing_id for pk, wing_id, _ in rooms}
    earned: set[tuple[int, int]] = set()
    for key, room_ids in sorted(sharing.items()):
        if not _earns(room_ids, len(rooms)) or _covered(key, sharing, len(rooms)):
            continue
        wing = wing_ensure(owner_id=owner_id, name=key, kind=Wing.Kind.TOPIC)
        if wing.kind != Wing.Kind.TOPIC:
            continue
        earned |= {(pk, wing.pk) for pk in room_ids if wing_of[pk] != wing.pk}
    links = Room.linked_wings.through.objects.filter(room__owner_id=owner_id, wing__kind=Wing.Kind.TOPIC)
    current = set(links.values_list("room_id", "wing_id"))
    for room_id, wing_id in current - earned:
        links.filter(room_id=room_id, wing_id=wing_id).delete()
    Room.linked_wings.through.objects.bulk_create(
        [Room.linked_wings.through(room_id=room_id, wing_id=wing_id) for room_id, wing_id in earned - current],
        ignore_conflicts=True,
    )


def _earns(room_ids: Sequence[int], total: int) -> bool:
    return len(room_ids) >= MIN_ROOMS and len(room_ids) / max(total, 1) <= MAX_SHARE


def _covered(key: str, sharing: dict[str, list[int]], total: int) -> bool:
    """A phrase whose rooms all hold a shorter phrase of its words, itself a topic, files nothing new:
    "birdwatching heron" beside "heron", "knitting sock" beside "sock" made two wings of one subject."""
    words, rooms = set(key.split()), set(sharing[key])
    return any(
        other != key and set(other.split()) < words and rooms <= set(other_rooms) and _earns(other_rooms, total)
        for other, other_rooms in sharing.items()
    )
