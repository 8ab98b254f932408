"""Reads of the palace, always filtered by owner."""

from __future__ import annotations

import re
import uuid
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from palace.models import Closet, Drawer, Entity, MiningJob, Relation, Room, Wing
from palace.naming import find_named

AAAK_POINTER = re.compile(r"§?\s*W-(\d+)/R-(\d+)/D-(\d+)")


def wings(*, owner: User) -> QuerySet[Wing]:
    return (
        Wing.objects.filter(owner=owner)
        .annotate(
            room_count=Count("rooms", distinct=True),
            linked_room_count=Count("linked_rooms", distinct=True),
        )
        .order_by("number")
    )


def wing_get(*, owner: User, wing_id: int) -> Wing | None:
    return Wing.objects.filter(owner=owner, pk=wing_id).first()


def rooms_of_wing(*, wing: Wing) -> QuerySet[Room]:
    """The wing's own rooms and the rooms that mention it (linked), newest first."""
    return (
        Room.objects.filter(owner_id=wing.owner_id)
        .filter(Q(wing=wing) | Q(linked_wings=wing))
        .distinct()
        .annotate(drawer_count=Count("drawers", distinct=True))
        .select_related("conversation")
        .order_by("-started_at")
    )


def room_get(*, owner: User, room_id: int) -> Room | None:
    return Room.objects.filter(owner=owner, pk=room_id).select_related("wing").first()


def closets_of_room(*, room: Room) -> QuerySet[Closet]:
    return room.closets.annotate(drawer_count=Count("drawers")).order_by("position")


def closet_get(*, owner: User, closet_id: int) -> Closet | None:
    return Closet.objects.filter(owner=owner, pk=closet_id).first()


def drawers_of_closet(*, closet: Closet) -> QuerySet[Drawer]:
    return closet.drawers.select_related("conversation").order_by("turn_index")


def drawer_get(*, owner: User, drawer_id: int) -> Drawer | None:
    return Drawer.objects.filter(owner=owner, pk=drawer_id).select_related("room", "closet", "conversation").first()


def drawer_neighbours(*, drawer: Drawer) -> tuple[Drawer | None, Drawer | None]:
    siblings = Drawer.objects.filter(conversation_id=drawer.conversation_id)
    before = siblings.filter(turn_index__lt=drawer.turn_index).order_by("-turn_index").first()
    after = siblings.filter(turn_index__gt=drawer.turn_index).order_by("turn_index").first()
    return before, after


def drawers_of_conversation(*, owner: User, external_id: str) -> QuerySet[Drawer]:
    return (
        Drawer.objects.filter(owner=owner, conversation__external_id=external_id)
        .select_related("conversation")
        .order_by("turn_index")
    )


def drawer_by_pointer(*, owner: User, pointer: str) -> Drawer | None:
    """The drawer an AAAK pointer (`§ W-042/R-11/D-007`) names, found by its drawer number (unique per
    owner, never reused). The wing and room parts are where the drawer was when the pointer was handed
    out: re-filing (`manage.py remine`) may have moved it since, and an old pointer still finds it."""
    match = AAAK_POINTER.fullmatch(pointer.strip())
    if match is None:
        return None
    return (
        Drawer.objects.filter(owner=owner, number=int(match.group(3)))
        .select_related("room", "closet", "conversation")
        .first()
    )


def palace_owners(*, username: str | None = None) -> QuerySet[User]:
    """The users who have a palace (at least one room), by username; `username` picks one."""
    owners = User.objects.filter(Exists(Room.objects.filter(owner=OuterRef("pk")))).order_by("username")
    return owners.filter(username=username) if username is not None else owners


def user_get(*, username: str) -> User | None:
    """A person by username, palace or not (export and import name the person)."""
    return User.objects.filter(username=username).first()


def job_get(*, owner: User, job_id: uuid.UUID) -> MiningJob | None:
    return MiningJob.objects.select_related("conversation").filter(owner=owner, pk=job_id).first()


# --- the knowledge graph -------------------------------------------------------------------------------


def entities(*, owner: User) -> QuerySet[Entity]:
    return Entity.objects.filter(owner=owner).order_by("name")


def entity_find(*, owner_id: int, name: str) -> Entity | None:
    return find_named(Entity, owner_id=owner_id, name=name)


def entity_relations(*, entity: Entity) -> QuerySet[Relation]:
    return (
        Relation.objects.filter(owner_id=entity.owner_id)
        .filter(Q(subject=entity) | Q(object=entity))
        .select_related("subject", "object")
    )


def entity_timeline(*, entity: Entity) -> QuerySet[Relation]:
    return entity_relations(entity=entity).order_by("valid_from", "pk")


def entity_as_of(*, entity: Entity, at: datetime) -> QuerySet[Relation]:
    """What was true at `at`: relations whose window contains it."""
    return (
        entity_relations(entity=entity)
        .filter(valid_from__lte=at)
        .filter(Q(valid_to__isnull=True) | Q(valid_to__gt=at))
        .order_by("predicate", "valid_from")
    )
