"""Reads of the palace, always filtered by owner."""

from __future__ import annotations

import re
import uuid
from datetime import date, datetime
from typing import Any, TypedDict

from django.contrib.auth.models import User
from django.db.models import Count, Exists, F, Max, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce, Lower, TruncDate

from palace.models import (
    ActivityEvent,
    Closet,
    Conversation,
    Drawer,
    DrawerRead,
    Entity,
    ForgetReceipt,
    MiningJob,
    Relation,
    Room,
    Wing,
)
from palace.naming import find_named

AAAK_POINTER = re.compile(r"§?\s*W-(\d+)/R-(\d+)/D-(\d+)")


def wings(*, owner: User, busiest_first: bool = False) -> QuerySet[Wing]:
    """The owner's wings with their room counts, in the order they were made (the API's), or the ones with
    the most conversations first, then by name (the palace's tree: Rachel before a wing named once)."""
    found = Wing.objects.filter(owner=owner).annotate(
        room_count=Count("rooms", distinct=True),
        linked_room_count=Count("linked_rooms", distinct=True),
    )
    if busiest_first:
        return found.order_by((F("room_count") + F("linked_room_count")).desc(), Lower("name"), "number")
    return found.order_by("number")


def wing_get(*, owner: User, wing_id: int) -> Wing | None:
    return Wing.objects.filter(owner=owner, pk=wing_id).first()


def _drawer_count() -> Coalesce:
    """A room's drawers, counted per listed room. A correlated subquery rather than JOIN … GROUP BY: the
    join counted every drawer of the owner (100k) before the page's LIMIT; this counts the page's ten
    rooms, through the drawer.room_id index."""
    counted = Drawer.objects.filter(room=OuterRef("pk")).order_by().values("room").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted), 0)


# A room card's "closets: flights · hotels" line, one query for the page's rooms.
CLOSETS_IN_ORDER = Prefetch("closets", queryset=Closet.objects.order_by("position").only("room_id", "topic"))


def rooms_of_wing(*, wing: Wing) -> QuerySet[Room]:
    """The wing's own rooms and the rooms that mention it (linked), newest first."""
    linked = Room.linked_wings.through.objects.filter(wing=wing, room=OuterRef("pk"))
    return (
        Room.objects.filter(owner_id=wing.owner_id)
        .filter(Q(wing=wing) | Exists(linked))
        .annotate(drawer_count=_drawer_count())
        .select_related("conversation__agent")
        .prefetch_related(CLOSETS_IN_ORDER)
        .order_by("-started_at")
    )


def rooms_recent(*, owner: User) -> QuerySet[Room]:
    return (
        Room.objects.filter(owner=owner)
        .select_related("wing", "conversation__agent")
        .annotate(drawer_count=_drawer_count())
        .prefetch_related(CLOSETS_IN_ORDER)
        .order_by("-started_at", "-pk")
    )


def room_get(*, owner: User, room_id: int) -> Room | None:
    return Room.objects.filter(owner=owner, pk=room_id).select_related("wing").first()


def closets_of_room(*, room: Room) -> QuerySet[Closet]:
    return room.closets.annotate(drawer_count=Count("drawers")).order_by("position")


def closet_get(*, owner: User, closet_id: int) -> Closet | None:
    return Closet.objects.filter(owner=owner, pk=closet_id).first()


def drawers_of_closet(*, closet: Closet) -> QuerySet[Drawer]:
    return closet.drawers.select_related("conversation").order_by("turn_index")


def conversations_failed_to_file(*, conversation_ids: set[Any]) -> set[Any]:
    """Of these conversations, the ones whose latest mining job failed: their posted turns wait for no one."""
    if not conversation_ids:
        return set()
    latest: dict[Any, str] = {}
    for conversation_id, status in (
        MiningJob.objects.filter(conversation_id__in=conversation_ids)
        .order_by("conversation_id", "requested_at")
        .values_list("conversation_id", "status")
    ):
        latest[conversation_id] = status
    return {c for c, status in latest.items() if status == MiningJob.Status.FAILED}


def drawers_of_room(*, room: Room) -> QuerySet[Drawer]:
    """A room's drawers in the order the conversation had them."""
    return Drawer.objects.filter(room=room).select_related("conversation").order_by("turn_index", "pk")


def drawer_get(*, owner: User, drawer_id: int) -> Drawer | None:
    return Drawer.objects.filter(owner=owner, pk=drawer_id).select_related("room", "closet", "conversation").first()


def relations_citing(*, drawer: Drawer) -> QuerySet[Relation]:
    """The knowledge-graph facts whose source is this drawer."""
    return Relation.objects.filter(owner_id=drawer.owner_id, source_drawer=drawer).select_related("subject", "object")


def drawer_neighbours(*, drawer: Drawer) -> tuple[Drawer | None, Drawer | None]:
    siblings = Drawer.objects.filter(conversation_id=drawer.conversation_id)
    before = siblings.filter(turn_index__lt=drawer.turn_index).order_by("-turn_index").first()
    after = siblings.filter(turn_index__gt=drawer.turn_index).order_by("turn_index").first()
    return before, after


def conversation_exists(*, owner: User, external_id: str) -> bool:
    return Conversation.objects.filter(owner=owner, external_id=external_id).exists()


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


def entities(*, owner: User, name_contains: str = "") -> QuerySet[Entity]:
    found = Entity.objects.filter(owner=owner).order_by("name")
    return found.filter(name__icontains=name_contains) if name_contains else found


def entity_get(*, owner: User, entity_id: int) -> Entity | None:
    return Entity.objects.filter(owner=owner, pk=entity_id).first()


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


def forget_receipt_get(*, owner: User, receipt_id: uuid.UUID) -> ForgetReceipt | None:
    return ForgetReceipt.objects.filter(owner=owner, pk=receipt_id).first()


# --- what the person's pages count ---------------------------------------------------------------------


def activity_kinds(*, owner: User) -> list[str]:
    return list(ActivityEvent.objects.filter(owner=owner).values_list("kind", flat=True).distinct().order_by("kind"))


def palace_counts(*, owner: User) -> dict[str, int]:
    return {
        "drawers": Drawer.objects.filter(owner=owner).count(),
        "rooms": Room.objects.filter(owner=owner).count(),
        "wings": Wing.objects.filter(owner=owner).count(),
        "entities": Entity.objects.filter(owner=owner).count(),
        "relations": Relation.objects.filter(owner=owner).count(),
    }


def wings_by_size(*, owner: User, limit: int = 15) -> QuerySet[Wing]:
    """The wings with the most turns: in the rooms filed under them and the rooms that mention them (a
    topic or a person only mentioned has linked rooms only, and counted 0)."""
    own = Drawer.objects.filter(room__wing=OuterRef("pk")).order_by().values("room__wing").annotate(n=Count("pk"))
    linked = (
        Drawer.objects.filter(room__linked_wings=OuterRef("pk"))
        .order_by()
        .values("room__linked_wings")
        .annotate(n=Count("pk"))
    )
    return (
        Wing.objects.filter(owner=owner)
        .annotate(drawers=Coalesce(Subquery(own.values("n")), 0) + Coalesce(Subquery(linked.values("n")), 0))
        .filter(drawers__gt=0)
        .order_by("-drawers", "name")[:limit]
    )


def drawers_per_day(*, owner: User, since: date) -> dict[date, int]:
    """Drawers added per day (in the active timezone) from `since` on."""
    rows = (
        Drawer.objects.filter(owner=owner, created_at__date__gte=since)
        .annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(n=Count("id"))
    )
    return {row["day"]: row["n"] for row in rows}


class DrawerReader(TypedDict):
    agent_id: uuid.UUID | None  # None: the agent was deleted since
    agent_name: str | None
    source: str  # recall | context
    times: int
    last_at: datetime
    last_query: str


def drawer_readers(*, drawer: Drawer) -> list[DrawerReader]:
    """The agents that received the drawer, per agent and source, most recent reader first. Reads are
    written in batches a few seconds after the recall (palace/services/reads.py)."""
    reads = DrawerRead.objects.filter(drawer=drawer, owner_id=drawer.owner_id)
    last_query = (
        reads.filter(agent_id=OuterRef("agent_id"), source=OuterRef("source"))
        .order_by("-created_at")
        .values("query")[:1]
    )
    rows = (
        reads.values("agent_id", "agent__name", "source")
        .annotate(times=Count("id"), last_at=Max("created_at"), last_query=Subquery(last_query))
        .order_by("-last_at")
    )
    return [
        DrawerReader(
            agent_id=row["agent_id"],
            agent_name=row["agent__name"],
            source=row["source"],
            times=row["times"],
            last_at=row["last_at"],
            last_query=row["last_query"] or "",
        )
        for row in rows
    ]


def activity_list(
    *, owner: User, agent_id: uuid.UUID | None = None, kind: str | None = None
) -> QuerySet[ActivityEvent]:
    """The owner's activity, newest first; `agent_id` and `kind` narrow it."""
    events = ActivityEvent.objects.filter(owner=owner).select_related("agent")
    if agent_id is not None:
        events = events.filter(agent_id=agent_id)
    if kind is not None:
        events = events.filter(kind=kind)
    return events.order_by("-created_at", "-pk")
