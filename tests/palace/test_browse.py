from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

from palace import selectors
from palace.models import Conversation, Drawer, Room, Wing
from palace.services import mining
from tests.conftest import Personas
from tests.palace.recall_data import mine
from tests.palace.test_conversations import TWO_PEOPLE_AND_A_PROJECT

pytestmark = pytest.mark.django_db


@pytest.fixture
def mined(api: APIClient, personas: Personas) -> Room:
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "c1", "turns": TWO_PEOPLE_AND_A_PROJECT, "title": "Efoil"},
        format="json",
        **personas.owner.headers,
    )
    mining.conversation_mine(conversation=Conversation.objects.get(external_id="c1"))
    return Room.objects.get()


def test_browse_from_wings_down_to_drawers(api: APIClient, personas: Personas, mined: Room) -> None:
    h = personas.owner.headers
    wings = {w["name"]: w for w in api.get("/api/v1/palace/wings", **h).json()["results"]}
    assert wings["Efoil"]["room_count"] == 1 and wings["Derek"]["linked_room_count"] == 1
    assert wings["Efoil"]["code"].startswith("W-")
    derek_rooms = api.get(f"/api/v1/palace/wings/{wings['Derek']['id']}/rooms", **h).json()["results"]
    assert [r["id"] for r in derek_rooms] == [mined.pk] and derek_rooms[0]["drawer_count"] == 6
    closets = api.get(f"/api/v1/palace/rooms/{mined.pk}/closets", **h).json()["results"]
    assert len(closets) >= 2 and sum(c["drawer_count"] for c in closets) == 6
    drawers = api.get(f"/api/v1/palace/closets/{closets[0]['id']}/drawers", **h).json()["results"]
    assert [d["turn_index"] for d in drawers] == sorted(d["turn_index"] for d in drawers)
    in_order = api.get("/api/v1/conversations/c1/drawers", **h).json()["results"]
    assert [d["content"] for d in in_order] == [t["content"] for t in TWO_PEOPLE_AND_A_PROJECT]
    detail = api.get(f"/api/v1/palace/drawers/{in_order[1]['id']}", **h).json()
    assert detail["previous"]["turn_index"] == 0 and detail["next"]["turn_index"] == 2


def test_an_aaak_pointer_resolves_to_its_drawer(api: APIClient, personas: Personas, mined: Room) -> None:
    drawer = Drawer.objects.order_by("turn_index")[2]
    response = api.get("/api/v1/palace/resolve", {"pointer": drawer.aaak}, **personas.owner.headers)
    assert response.json()["id"] == drawer.pk and response.json()["content"] == drawer.content
    assert api.get("/api/v1/palace/resolve", {"pointer": "W-1/R-1"}, **personas.owner.headers).status_code == 400
    assert (
        api.get("/api/v1/palace/resolve", {"pointer": "§ W-999/R-99/D-999"}, **personas.owner.headers).status_code
        == 404
    )
    assert api.get("/api/v1/palace/resolve", {"pointer": drawer.aaak}, **personas.outsider.headers).status_code == 404


def test_a_deleted_drawer_is_gone_and_its_number_is_not_reused(api: APIClient, personas: Personas, mined: Room) -> None:
    h = personas.owner.headers
    drawer = Drawer.objects.order_by("-number").first()
    assert drawer is not None
    deleted = api.delete(f"/api/v1/palace/drawers/{drawer.pk}", **h)
    assert deleted.status_code == 200 and deleted.json()["receipt"]["counts"]["drawers"] == 1
    assert api.get(f"/api/v1/palace/drawers/{drawer.pk}", **h).status_code == 404
    assert not Drawer.objects.filter(
        content=drawer.content, conversation__external_id="c1", turn_index=drawer.turn_index
    ).exists()
    api.post(
        "/api/v1/conversations/c1/turns",
        {"turns": [{"role": "user", "content": "One more thing about Derek."}]},
        format="json",
        **h,
    )
    mining.conversation_mine(conversation=Conversation.objects.get(external_id="c1"))
    newest = Drawer.objects.order_by("-number").first()
    assert newest is not None and newest.number > drawer.number


def test_other_owners_see_nothing_of_the_palace(api: APIClient, personas: Personas, mined: Room) -> None:
    outsider = personas.outsider.headers
    wing = Wing.objects.get(name="Efoil")
    closet = mined.closets.first()
    drawer = Drawer.objects.first()
    assert closet is not None and drawer is not None
    assert api.get("/api/v1/palace/wings", **outsider).json()["count"] == 0
    assert api.get(f"/api/v1/palace/wings/{wing.pk}/rooms", **outsider).status_code == 404
    assert api.get(f"/api/v1/palace/rooms/{mined.pk}/closets", **outsider).status_code == 404
    assert api.get(f"/api/v1/palace/closets/{closet.pk}/drawers", **outsider).status_code == 404
    assert api.get(f"/api/v1/palace/drawers/{drawer.pk}", **outsider).status_code == 404
    assert api.delete(f"/api/v1/palace/drawers/{drawer.pk}", **outsider).status_code == 404
    assert api.get("/api/v1/conversations/c1/drawers", **outsider).status_code == 404
    unknown = api.get("/api/v1/conversations/no-such-chat/drawers", **personas.owner.headers)
    assert unknown.status_code == 404 and unknown.json()["message"] == "Conversation not found."
    assert api.get(f"/api/v1/palace/drawers/{drawer.pk}", **personas.teammate.headers).status_code == 200
    assert Drawer.objects.count() == 6


def test_room_lists_count_each_rooms_drawers_and_list_a_linked_room_once(personas: Personas, mined: Room) -> None:
    from palace import selectors

    empty = Room.objects.create(
        owner=mined.owner,
        wing=mined.wing,
        number=99,
        title="empty",
        started_at=mined.started_at,
        ended_at=mined.ended_at,
    )
    empty.linked_wings.add(mined.wing)
    counts = {room.pk: room.drawer_count for room in selectors.rooms_recent(owner=mined.owner)}  # type: ignore[attr-defined]
    assert counts == {mined.pk: 6, empty.pk: 0}
    of_wing = [(room.pk, room.drawer_count) for room in selectors.rooms_of_wing(wing=mined.wing)]  # type: ignore[attr-defined]
    assert sorted(of_wing) == sorted([(mined.pk, 6), (empty.pk, 0)])


def test_the_palace_tree_lists_the_busiest_wings_first_and_the_api_in_the_order_they_were_made(
    personas: Personas,
) -> None:
    owner = personas.owner.user
    when = datetime(2024, 3, 1, 12, tzinfo=UTC)
    mine(owner, "a", [{"role": "user", "content": "Zed Quinlan fixed my bike yesterday."}], when)
    mine(owner, "b", [{"role": "user", "content": "Rachel Moreno and I went hiking in the hills."}], when)
    mine(owner, "c", [{"role": "user", "content": "Rachel Moreno called me about the trip."}], when)
    tree = [w.name for w in selectors.wings(owner=owner, busiest_first=True)]
    made = [w.name for w in selectors.wings(owner=owner)]
    assert tree.index("Rachel Moreno") < tree.index("Zed Quinlan")
    assert made.index("Zed Quinlan") < made.index("Rachel Moreno")
