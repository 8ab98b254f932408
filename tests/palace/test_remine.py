from __future__ import annotations

from datetime import UTC, datetime
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from palace.models import Closet, Conversation, Drawer, Entity, PreferenceTopic, Relation, Room, Wing
from palace.services import filing, graph, mining, recurring, remine
from tests.conftest import Personas
from tests.factories import Persona
from tests.palace.recall_data import mine
from tests.palace.test_conversations import TWO_PEOPLE_AND_A_PROJECT

pytestmark = pytest.mark.django_db

CONVERSATION = "lme-3cb41ab8_4"


def _mine(api: APIClient, persona: Persona, external_id: str = CONVERSATION, **body: Any) -> Room:
    api.post(
        "/api/v1/conversations",
        {"conversation_id": external_id, "turns": TWO_PEOPLE_AND_A_PROJECT, **body},
        format="json",
        **persona.headers,
    )
    conversation = Conversation.objects.get(owner=persona.user, external_id=external_id)
    mining.conversation_mine(conversation=conversation)
    return Room.objects.get(conversation=conversation)


def _file_the_old_way(room: Room) -> None:
    """What the capitalised-word extractor left behind: the room under a "Certainly" wing of kind
    person, linked to "However", titled with the conversation id, closets labelled with keyword
    triples, pointers naming the junk wing, and a co-mention between the two junk names."""
    owner_id = room.owner_id
    assert room.conversation is not None
    certainly = filing.wing_ensure(owner_id=owner_id, name="Certainly", kind=Wing.Kind.PERSON)
    however = filing.wing_ensure(owner_id=owner_id, name="However", kind=Wing.Kind.PERSON)
    Room.objects.filter(pk=room.pk).update(wing=certainly, title=f"2026-11-23 {room.conversation.external_id}")
    room.linked_wings.set([however])
    for closet in Closet.objects.filter(room=room):
        Closet.objects.filter(pk=closet.pk).update(topic="add / skirt / top", slug="add-skirt-top")
    for drawer in Drawer.objects.filter(room=room):
        Drawer.objects.filter(pk=drawer.pk).update(
            aaak=f"§ W-{certainly.number:03d}/R-{room.number:02d}/D-{drawer.number:03d}", tags={"p": ["Certainly"]}
        )
    graph.relation_add(
        owner_id=owner_id,
        subject="Certainly",
        predicate="mentioned_with",
        object="However",
        source_drawer=Drawer.objects.filter(room=room).first(),
        subject_kind=Entity.Kind.PERSON,
        object_kind=Entity.Kind.PERSON,
    )


def _palace(persona: Persona) -> dict[str, list[Any]]:
    """Everything re-filing may write, row by row (ids included)."""
    owner = persona.user
    return {
        "wings": sorted(Wing.objects.filter(owner=owner).values_list("pk", "number", "name", "kind", "aliases")),
        "rooms": sorted(Room.objects.filter(owner=owner).values_list("pk", "number", "wing_id", "title", "keyphrases")),
        "links": sorted(Room.linked_wings.through.objects.filter(room__owner=owner).values_list("room_id", "wing_id")),
        "closets": sorted(Closet.objects.filter(owner=owner).values_list("pk", "room_id", "position", "topic")),
        "drawers": sorted(
            Drawer.objects.filter(owner=owner).values_list("pk", "number", "closet_id", "aaak", "tags", "search_text")
        ),
        "entities": sorted(Entity.objects.filter(owner=owner).values_list("pk", "name", "kind")),
        "relations": sorted(
            Relation.objects.filter(owner=owner).values_list(
                "subject__name", "predicate", "object__name", "object_value", "valid_from", "valid_to", "source_drawer"
            ),
            key=str,
        ),
        "preferences": sorted(PreferenceTopic.objects.filter(owner=owner).values_list("term", "rooms", "stated")),
    }


def _verbatim(room: Room) -> list[tuple[Any, ...]]:
    return [
        (
            d.pk,
            d.number,
            d.turn_index,
            d.content,
            d.role,
            None if d.embedding is None else [float(x) for x in d.embedding],
        )
        for d in Drawer.objects.filter(room=room).order_by("turn_index")
    ]


def test_remine_files_an_old_palace_again_and_keeps_every_drawer_verbatim(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    room = _mine(api, owner)
    preferences = _palace(owner)["preferences"]
    _file_the_old_way(room)
    drawers_before = _verbatim(room)

    result = remine.owner_remine(owner=owner.user)

    assert result.conversations == 1 and result.changed == 1
    assert set(result.wings_deleted) == {"Certainly", "However"}
    assert not Wing.objects.filter(owner=owner.user, name__in=["Certainly", "However"]).exists()
    assert not Entity.objects.filter(owner=owner.user, name__in=["Certainly", "However"]).exists()
    room.refresh_from_db()
    assert CONVERSATION not in room.title and room.title
    assert (room.wing.name, room.wing.kind) == ("Efoil", "project")
    assert {w.name for w in room.linked_wings.all()} >= {"Derek", "Anna"}
    assert _verbatim(room) == drawers_before  # same rows, content, numbers and embeddings
    drawers = list(Drawer.objects.filter(room=room))
    assert all(d.aaak.startswith(f"§ W-{room.wing.number:03d}/R-{room.number:02d}/") for d in drawers)
    assert all(d.closet.topic != "add / skirt / top" for d in drawers)
    assert list(room.closets.order_by("position").values_list("position", flat=True)) == list(
        range(room.closets.count())
    )
    assert all("Certainly" not in d.search_text for d in drawers)
    assert any("Derek" in d.tags.get("p", []) for d in drawers)
    assert _palace(owner)["preferences"] == preferences  # counted again from the tags, as mining counted them


def test_an_old_pointer_resolves_to_the_drawer_in_its_new_place(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    room = _mine(api, owner)
    _file_the_old_way(room)
    drawer = Drawer.objects.filter(room=room).order_by("turn_index")[2]
    old_pointer = drawer.aaak

    remine.owner_remine(owner=owner.user)

    drawer.refresh_from_db()
    assert drawer.aaak != old_pointer
    for pointer in (old_pointer, drawer.aaak):
        response = api.get("/api/v1/palace/resolve", {"pointer": pointer}, **owner.headers)
        assert response.status_code == 200
        assert response.json()["id"] == drawer.pk and response.json()["aaak"] == drawer.aaak
        assert response.json()["previous"]["turn_index"] == 1 and response.json()["next"]["turn_index"] == 3
    assert api.get("/api/v1/palace/resolve", {"pointer": "W-1/R-1"}, **owner.headers).status_code == 400
    assert api.get("/api/v1/palace/resolve", {"pointer": old_pointer}, **personas.outsider.headers).status_code == 404


def test_facts_added_through_the_api_are_kept_and_mined_ones_derived_again(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    room = _mine(api, owner)
    _file_the_old_way(room)
    added = api.post(
        "/api/v1/kg/relations",
        {"subject": "Derek", "predicate": "likes", "object": "kayaks"},
        format="json",
        **owner.headers,
    )
    assert added.status_code == 201
    mined_before = set(
        Relation.objects.filter(owner=owner.user, source_drawer__isnull=False)
        .exclude(subject__name="Certainly")
        .values_list("subject__name", "predicate", "object__name", "object_value", "source_drawer")
    )

    remine.owner_remine(owner=owner.user)

    kept = Relation.objects.get(owner=owner.user, predicate="likes")
    assert kept.pk == added.json()["id"] and kept.source_drawer_id is None
    mined_after = set(
        Relation.objects.filter(owner=owner.user, source_drawer__isnull=False).values_list(
            "subject__name", "predicate", "object__name", "object_value", "source_drawer"
        )
    )
    assert mined_after == mined_before  # the current extractor's facts, citing the same drawers
    assert not Relation.objects.filter(owner=owner.user, subject__name="Certainly").exists()


def test_running_it_twice_changes_nothing(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    _file_the_old_way(_mine(api, owner))
    _mine(api, owner, external_id="c2", title="Efoil rebuild, part two")
    api.post(
        "/api/v1/kg/relations",
        {"subject": "Anna", "predicate": "lives_in", "object": "Lyon"},
        format="json",
        **owner.headers,
    )
    remine.owner_remine(owner=owner.user)
    first = _palace(owner)

    again = remine.owner_remine(owner=owner.user)

    assert again.changed == 0 and again.wings_deleted == []
    assert _palace(owner) == first
    assert Room.objects.get(conversation__external_id="c2").title == "Efoil rebuild, part two"  # the caller's


def test_a_dry_run_reports_and_writes_nothing(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    _file_the_old_way(_mine(api, owner))
    before = _palace(owner)

    result = remine.owner_remine(owner=owner.user, dry_run=True)

    assert result.changed == 1 and set(result.wings_deleted) == {"Certainly", "However"}
    assert _palace(owner) == before


def test_the_command_shows_progress_per_conversation(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    _file_the_old_way(_mine(api, owner))
    _mine(api, owner, external_id="c2")
    out = StringIO()

    call_command("remine", "--user", owner.user.username, stdout=out)

    lines = out.getvalue().splitlines()
    progress = [line for line in lines if line.strip().startswith("[")]
    assert [line.split("]")[0].strip() for line in progress] == ["[1/2", "[2/2"]
    assert all(" wings · " in line and line.endswith("s") for line in progress)
    assert "wing 'Certainly' -> 'Efoil'" in progress[0]
    assert "2 empty wings deleted (Certainly, However)" in lines[-1]
    out = StringIO()
    call_command("remine", "--all", stdout=out)
    assert "unchanged" in out.getvalue() and "0/2 conversations changed" in out.getvalue()


def test_the_command_needs_an_owner_with_a_palace(personas: Personas) -> None:
    with pytest.raises(CommandError, match="no palace for user"):
        call_command("remine", "--user", personas.owner.user.username, stdout=StringIO())


SOURDOUGH = [
    [
        {"role": "user", "content": "My sourdough starter smells sour and the sourdough starter is not rising."},
        {"role": "assistant", "content": "Feed the sourdough starter twice a day at room temperature."},
    ],
    [
        {"role": "user", "content": "The sourdough starter bubbled today. How long should the dough proof?"},
        {"role": "assistant", "content": "With an active sourdough starter, proof the dough four hours."},
    ],
    [
        {"role": "user", "content": "Can I keep the sourdough starter in the fridge over the holidays?"},
        {"role": "assistant", "content": "Yes, a sourdough starter keeps a week in the fridge between feeds."},
    ],
]
ELSEWHERE = [
    "Which running shoes suit a flat marathon course?",
    "How do I repot a fiddle leaf fig without shocking it?",
    "What is a good beginner chess opening for black?",
    "How often should the car tyres be rotated?",
    "Any tips for sleeping better on long flights?",
]


def test_recurring_topics_are_earned_again_from_the_new_key_phrases(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    conversations = {f"s{i}": turns for i, turns in enumerate(SOURDOUGH)} | {
        f"e{i}": [{"role": "user", "content": text}, {"role": "assistant", "content": "Here is what usually works."}]
        for i, text in enumerate(ELSEWHERE)
    }
    for external_id, turns in conversations.items():
        body = {"conversation_id": external_id, "turns": turns}
        api.post("/api/v1/conversations", body, format="json", **owner.headers)
        mining.conversation_mine(conversation=Conversation.objects.get(owner=owner.user, external_id=external_id))
    # Mined first, the sourdough rooms were all the rooms there were: a phrase in every room is no topic.
    assert not Wing.objects.filter(owner=owner.user, kind=Wing.Kind.TOPIC).exists()
    # A topic the old extractor gave the marathon room.
    stale = filing.wing_ensure(owner_id=owner.user.pk, name="running stuff", kind=Wing.Kind.TOPIC)
    Room.objects.get(conversation__external_id="e0").linked_wings.add(stale)

    remine.owner_remine(owner=owner.user)

    starter = Wing.objects.get(owner=owner.user, kind=Wing.Kind.TOPIC)
    assert set(Room.objects.filter(linked_wings=starter).values_list("conversation__external_id", flat=True)) == {
        "s0",
        "s1",
        "s2",
    }
    assert not Wing.objects.filter(pk=stale.pk).exists()
    first = _palace(owner)
    assert remine.owner_remine(owner=owner.user).changed == 0
    assert _palace(owner) == first


def test_a_topic_phrase_inside_a_broader_one_makes_no_second_wing(personas: Personas) -> None:
    owner = personas.owner.user
    when = datetime(2024, 3, 1, 12, tzinfo=UTC)
    rooms = [mine(owner, f"c{i}", [{"role": "user", "content": f"Notes number {i}."}], when)[0].room for i in range(10)]
    for room in rooms[:3]:
        Room.objects.filter(pk=room.pk).update(keyphrases=["heron", "birdwatching heron"])
    Room.objects.filter(pk=rooms[3].pk).update(keyphrases=["heron"])
    recurring.owner_file_topics(owner_id=owner.pk)
    topics = set(
        Wing.objects.filter(owner=owner, kind=Wing.Kind.TOPIC, linked_rooms__isnull=False).values_list(
            "name", flat=True
        )
    )
    assert topics == {"heron"}  # "birdwatching heron" rooms are all "heron" rooms: one wing, not two
