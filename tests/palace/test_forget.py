"""Forgetting with a receipt: per kind, the forgotten text never comes back from recall, full-text search,
context assembly, the knowledge graph or pointer resolve; the receipt verifies; outsiders delete nothing."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.postgres.search import SearchQuery
from rest_framework.test import APIClient

from episodic.models import Episode, TypedMemory
from episodic.services.episodes import episode_store
from ledger.models import WorkingMemorySnapshot
from ledger.services import working_memory_merge, working_memory_persist
from palace.api.forget import MESSAGE_NOT_VERIFIED
from palace.models import (
    ActivityEvent,
    Conversation,
    Drawer,
    Entity,
    ForgetReceipt,
    PreferenceTopic,
    Relation,
    Turn,
    Wing,
)
from palace.services import graph
from palace.services.forget import MODELS, forget, forget_preview
from tests.conftest import Personas
from tests.palace.recall_data import mine

pytestmark = pytest.mark.django_db

MARCH = datetime(2024, 3, 1, 12, tzinfo=UTC)
SECRET = "My locker code at the Zeppelin gym is 4471 and nobody else knows it."
OTHER = "The tomatoes in the garden need staking before June."


def _palace(personas: Personas) -> tuple[Drawer, Drawer]:
    owner = personas.owner.user
    secret = mine(owner, "gym", [{"role": "user", "content": SECRET}], MARCH)[0]
    other = mine(owner, "garden", [{"role": "user", "content": OTHER}], MARCH)[0]
    return secret, other


def _texts(api: APIClient, personas: Personas, query: str) -> str:
    """Everything the owner's agent can read back for the query, as one string."""
    h = personas.owner.headers
    seen = [
        api.post("/api/v1/recall", {"query": query}, format="json", **h).content,
        api.post("/api/v1/context", {"query": query, "conversation_id": "gym"}, format="json", **h).content,
        api.get("/api/v1/kg/entities", **h).content,
        api.get("/api/v1/palace/wings", **h).content,
        api.get("/api/v1/conversations/gym/drawers", **h).content,
    ]
    return b" ".join(seen).decode()


def _verified(api: APIClient, personas: Personas, receipt: dict[str, Any]) -> None:
    answer = api.get(f"/api/v1/forget/receipts/{receipt['id']}", **personas.owner.headers)
    assert answer.status_code == 200 and answer.json()["verified"] is True and answer.json()["remaining"] == {}
    event = ActivityEvent.objects.get(kind="memory_forgotten", data__receipt_id=receipt["id"])
    assert SECRET not in str(event.data) and event.data["counts"] == receipt["counts"]


def test_a_forgotten_drawer_never_comes_back(api: APIClient, personas: Personas) -> None:
    secret, other = _palace(personas)
    assert SECRET in _texts(api, personas, "Zeppelin gym locker code")
    working_memory_merge(owner_id=personas.owner.user.pk, conversation_id="gym", fields={"note": SECRET})
    answer = api.delete(f"/api/v1/palace/drawers/{secret.pk}", **personas.owner.headers)
    assert answer.status_code == 200
    receipt = answer.json()["receipt"]
    assert receipt["asked"] == {"kind": "drawer", "ids": [str(secret.pk)], "actor": personas.owner.agent.name}
    assert receipt["counts"]["drawers"] == 1 and receipt["counts"]["turns"] == 1 and len(receipt["digest"]) == 64
    assert SECRET not in _texts(api, personas, "Zeppelin gym locker code")
    assert not Turn.objects.filter(content=SECRET).exists()  # a turn left behind would be mined back
    assert api.get("/api/v1/palace/resolve", {"pointer": secret.aaak}, **personas.owner.headers).status_code == 404
    assert Drawer.objects.filter(pk=other.pk).exists()
    _verified(api, personas, receipt)


def test_a_fact_two_drawers_show_keeps_one_citation_when_one_is_forgotten(personas: Personas) -> None:
    secret, other = _palace(personas)
    owner_id = personas.owner.user.pk
    fact = graph.relation_add(
        owner_id=owner_id, subject="Zed", predicate="trains_at", object="Gym", source_drawer=secret
    )
    again = graph.relation_add(
        owner_id=owner_id, subject="Zed", predicate="trains_at", object="Gym", source_drawer=other
    )
    assert again.pk == fact.pk and fact.citations.count() == 2
    only = graph.relation_add(owner_id=owner_id, subject="Zed", predicate="knows", object="Quill", source_drawer=secret)
    receipt = forget(owner=personas.owner.user, kind="drawer", ids=[secret.pk])
    fact.refresh_from_db()
    assert fact.source_drawer_id == other.pk and [c.drawer_id for c in fact.citations.all()] == [other.pk]
    assert not Relation.objects.filter(pk=only.pk).exists() and not Entity.objects.filter(name="Quill").exists()
    assert receipt.counts["relations"] == 1 and receipt.counts["relation_citations"] == 2


def test_forgetting_a_conversation_takes_its_episodes_and_working_memory(api: APIClient, personas: Personas) -> None:
    _palace(personas)
    owner = personas.owner.user
    episode_store(owner=owner, agent=personas.owner.agent, conversation_id="gym", summary=SECRET, occurred_at=MARCH)
    working_memory_merge(owner_id=owner.pk, conversation_id="gym", fields={"code": SECRET})
    working_memory_persist(owner=owner, conversation_id="gym", agent=personas.owner.agent)
    preview = forget_preview(owner=owner, kind="conversation", ids=["gym"])
    assert preview["conversations"] == 1 and Conversation.objects.filter(external_id="gym").exists()
    answer = api.delete("/api/v1/conversations/gym", **personas.owner.headers)
    assert answer.status_code == 200
    counts = answer.json()["receipt"]["counts"]
    assert counts["episodes"] == 1 and counts["working_memory_snapshots"] == 1 and counts["redis_keys"] >= 1
    assert counts["conversations"] == 1 and counts["rooms"] == 1
    assert {k: v for k, v in counts.items() if k != "redis_keys"} == {
        k: v for k, v in preview.items() if k != "redis_keys"
    }
    assert SECRET not in _texts(api, personas, "Zeppelin gym locker code")
    assert not Episode.objects.exists() and not WorkingMemorySnapshot.objects.exists()
    assert OTHER in _texts(api, personas, "tomatoes garden staking")
    assert (
        api.post("/api/v1/episodes/search", {"query": "Zeppelin gym"}, format="json", **personas.owner.headers).json()[
            "results"
        ]
        == []
    )
    assert not Drawer.objects.filter(search_vector=SearchQuery("Zeppelin locker", search_type="websearch")).exists()
    mined = ActivityEvent.objects.get(kind="memory_mined", data__conversation_id="gym")
    assert mined.data["wing"] == "" and counts["activity_events_redacted"] == 1
    _verified(api, personas, answer.json()["receipt"])


def test_preference_counts_drop_what_a_forgotten_conversation_added(personas: Personas) -> None:
    owner = personas.owner.user
    for name in ("a", "b"):
        mine(owner, name, [{"role": "user", "content": "I really love kitesurfing at Tarifa."}], MARCH)
    mine(owner, "c", [{"role": "user", "content": "I love my quokka named Pim."}], MARCH)
    kite = PreferenceTopic.objects.get(owner=owner, term="kitesurfing")
    assert kite.rooms == 2 and kite.stated == 2 and PreferenceTopic.objects.filter(term="quokka").exists()
    receipt = forget(owner=owner, kind="conversation", ids=["a", "c"])
    kite.refresh_from_db()
    assert kite.rooms == 1 and kite.stated == 1
    assert not PreferenceTopic.objects.filter(term="quokka").exists()
    assert receipt.counts["preference_mentions"] >= 2 and receipt.counts["preference_topics"] >= 1


def test_forgetting_a_wing_and_an_entity(api: APIClient, personas: Personas) -> None:
    secret, _ = _palace(personas)
    graph.relation_add(
        owner_id=personas.owner.user.pk, subject="Zed", predicate="trains_at", object="Gym", source_drawer=secret
    )
    h = personas.owner.headers
    answer = api.delete("/api/v1/kg/entities/Zed", **h)
    assert answer.status_code == 200 and answer.json()["receipt"]["counts"]["relations"] == 1
    assert api.get("/api/v1/kg/entities/Zed/timeline", **h).status_code == 404
    _verified(api, personas, answer.json()["receipt"])
    wing = secret.room.wing
    answer = api.delete(f"/api/v1/palace/wings/{wing.pk}", **h)
    assert answer.status_code == 200 and answer.json()["receipt"]["counts"]["wings"] >= 1
    assert not Wing.objects.filter(pk=wing.pk).exists()
    _verified(api, personas, answer.json()["receipt"])


def test_forgetting_an_entity_keeps_the_names_a_remaining_turn_is_tagged_with(
    api: APIClient, personas: Personas
) -> None:
    owner = personas.owner.user
    drawer = mine(owner, "maya", [{"role": "user", "content": "My friend Maya runs for Nike in Portland."}], MARCH)[0]
    assert {"Nike", "Portland"} <= {n for names in drawer.tags.values() for n in names}
    for predicate, name in (("works_at", "Nike"), ("lives_in", "Portland"), ("trains_at", "Zeppelin Hangar")):
        graph.relation_add(owner_id=owner.pk, subject="Maya", predicate=predicate, object=name, source_drawer=drawer)
    answer = api.delete("/api/v1/kg/entities/Maya", **personas.owner.headers)
    assert answer.status_code == 200, answer.content
    left = set(Entity.objects.filter(owner=owner).values_list("name", flat=True))
    # The turn stays and still names Nike and Portland; "Zeppelin Hangar" was known from Maya's fact alone.
    assert {"Nike", "Portland"} <= left and not {"Maya", "Zeppelin Hangar"} & left
    _verified(api, personas, answer.json()["receipt"])


def test_typed_memory_and_episode_deletes_answer_a_receipt(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    created = api.post("/api/v1/memories/typed/semantic", {"content": SECRET}, format="json", **h)
    assert created.status_code == 201, created.content
    twin = api.post("/api/v1/memories/typed/semantic", {"content": SECRET + " Again."}, format="json", **h).json()
    TypedMemory.objects.filter(pk=twin["id"]).update(merged_into_id=created.json()["id"])  # as dedup leaves it
    answer = api.delete(f"/api/v1/memories/{created.json()['id']}", **h)
    assert answer.status_code == 200 and answer.json()["receipt"]["counts"]["typed_memories"] == 2
    assert not TypedMemory.objects.exists()
    _verified(api, personas, answer.json()["receipt"])
    episode = episode_store(
        owner=personas.owner.user, agent=personas.owner.agent, conversation_id="x", summary=SECRET, occurred_at=MARCH
    )
    answer = api.delete(f"/api/v1/episodes/{episode.pk}", **h)
    assert answer.status_code == 200 and answer.json()["receipt"]["counts"]["episodes"] == 1


def test_outsiders_and_teammates_delete_only_what_they_may(api: APIClient, personas: Personas) -> None:
    secret, other = _palace(personas)
    outsider = personas.outsider.headers
    assert api.delete(f"/api/v1/palace/drawers/{secret.pk}", **outsider).status_code == 404
    assert api.delete("/api/v1/conversations/gym", **outsider).status_code == 404
    assert api.delete(f"/api/v1/palace/wings/{secret.room.wing_id}", **outsider).status_code == 404
    bulk = {"kind": "drawer", "ids": [secret.pk, other.pk]}
    assert api.post("/api/v1/forget", bulk, format="json", **outsider).status_code == 404
    assert Drawer.objects.count() == 2 and not ForgetReceipt.objects.exists()
    # Mixed ids: one of them the outsider's own does not make the owner's deletable.
    mine(personas.outsider.user, "theirs", [{"role": "user", "content": "Outsider's note."}], MARCH)
    theirs = Drawer.objects.get(owner=personas.outsider.user)
    mixed = {"kind": "drawer", "ids": [theirs.pk, secret.pk]}
    assert api.post("/api/v1/forget", mixed, format="json", **outsider).status_code == 404
    assert Drawer.objects.count() == 3
    # A teammate is another agent of the same person: it may forget the person's drawers.
    answer = api.post("/api/v1/forget", bulk, format="json", **personas.teammate.headers)
    assert answer.status_code == 200 and answer.json()["receipt"]["counts"]["drawers"] == 2
    assert list(Drawer.objects.values_list("pk", flat=True)) == [theirs.pk]
    receipt_url = f"/api/v1/forget/receipts/{answer.json()['receipt']['id']}"
    assert api.get(receipt_url, **outsider).status_code == 404


def test_everything_needs_confirming_and_leaves_other_owners_intact(api: APIClient, personas: Personas) -> None:
    _palace(personas)
    owner = personas.owner.user
    episode_store(owner=owner, agent=personas.owner.agent, conversation_id="gym", summary=SECRET, occurred_at=MARCH)
    working_memory_merge(owner_id=owner.pk, conversation_id="gym", fields={"code": SECRET})
    mine(personas.outsider.user, "theirs", [{"role": "user", "content": OTHER}], MARCH)
    h = personas.owner.headers
    unconfirmed = api.post("/api/v1/forget", {"kind": "everything"}, format="json", **h)
    assert unconfirmed.status_code == 400 and Drawer.objects.filter(owner=owner).exists()
    answer = api.post("/api/v1/forget", {"kind": "everything", "confirm": "everything"}, format="json", **h)
    assert answer.status_code == 200
    for name, model in MODELS.items():
        if hasattr(model, "owner") and name != "activity_events":
            assert not model.objects.filter(owner=owner).exists(), name
    assert list(ActivityEvent.objects.filter(owner=owner).values_list("kind", flat=True)) == ["memory_forgotten"]
    assert not Turn.objects.filter(conversation__owner=owner).exists()
    assert Drawer.objects.filter(owner=personas.outsider.user).count() == 1
    assert SECRET not in _texts(api, personas, "Zeppelin gym locker code")
    _verified(api, personas, answer.json()["receipt"])


def test_a_receipt_whose_rows_are_back_fails_loudly(api: APIClient, personas: Personas) -> None:
    secret, _ = _palace(personas)
    receipt = forget(owner=personas.owner.user, kind="drawer", ids=[secret.pk])
    receipt.removed_ids["drawers"] = [str(Drawer.objects.get().pk)]  # as if a row had come back
    receipt.save(update_fields=["removed_ids"])
    answer = api.get(f"/api/v1/forget/receipts/{receipt.pk}", **personas.owner.headers)
    assert answer.status_code == 409 and answer.json()["message"] == MESSAGE_NOT_VERIFIED
    assert answer.json()["extra"]["remaining"] == {"drawers": 1}


def test_a_name_only_a_forgotten_conversation_held_goes_with_it(api: APIClient, personas: Personas) -> None:
    owner = personas.owner.user
    h = personas.owner.headers
    mine(owner, "coffee", [{"role": "user", "content": "I had coffee with Priyanka Venkataraman in Lisbon."}], MARCH)
    mine(owner, "trip", [{"role": "user", "content": "Next spring I am flying back to Lisbon for a week."}], MARCH)
    names = set(Entity.objects.filter(owner=owner).values_list("name", flat=True))
    assert {"Priyanka Venkataraman", "Lisbon"} <= names
    # The other conversation tags the place in another case: it still names it.
    Drawer.objects.filter(conversation__external_id="trip").update(tags={"l": ["LISBON"]})
    answer = api.delete("/api/v1/conversations/coffee", **h)
    assert answer.status_code == 200 and answer.json()["receipt"]["counts"]["entities"] == 1
    left = set(Entity.objects.filter(owner=owner).values_list("name", flat=True))
    assert "Priyanka Venkataraman" not in left and "Lisbon" in left  # still tagged in the other conversation
    assert "Priyanka" not in api.get("/api/v1/kg/entities", **h).content.decode()
    _verified(api, personas, answer.json()["receipt"])


def test_a_room_that_loses_a_drawer_is_filed_again_from_what_is_left(api: APIClient, personas: Personas) -> None:
    owner = personas.owner.user
    h = personas.owner.headers
    health = "My doctor, Dr. Siobhan Byrne, said my blood pressure is high. Blood pressure checks every week now."
    drawers = mine(
        owner,
        "week",
        [
            {"role": "user", "content": health},
            {"role": "user", "content": "Anyway, I am planning a weekend trip to Lisbon with my sister Rachel."},
            {"role": "user", "content": "Rachel wants to see the tile museum in Lisbon and eat pastries."},
        ],
        MARCH,
    )
    room = drawers[0].room
    labels = " ".join([room.title, *room.closets.values_list("topic", flat=True)]).lower()
    assert "Siobhan Byrne" in " ".join(Wing.objects.filter(owner=owner).values_list("name", flat=True))
    assert "pressure" in labels or "doctor" in labels  # the health talk shows in the room before
    receipt = api.delete(f"/api/v1/palace/drawers/{drawers[0].pk}", **h).json()["receipt"]
    room.refresh_from_db()
    labels = " ".join([room.title, *room.closets.values_list("topic", flat=True)]).lower()
    assert "pressure" not in labels and "doctor" not in labels
    wings = api.get("/api/v1/palace/wings", **h).content.decode()
    assert "Siobhan" not in wings and "Lisbon" in wings
    assert receipt["counts"]["wings"] >= 1
    assert all("Siobhan" not in str(d.tags) for d in Drawer.objects.filter(owner=owner))
    _verified(api, personas, receipt)


def test_re_filing_after_a_forget_calls_no_model(personas: Personas, use_providers: Any, stub_openai: str) -> None:
    from accounts.models import UsageRecord

    owner = personas.owner.user
    drawers = mine(
        owner,
        "week",
        [
            {"role": "user", "content": "My doctor, Dr. Siobhan Byrne, said my blood pressure is high."},
            {"role": "user", "content": "Anyway, I am planning a weekend trip to Lisbon with my sister Rachel."},
        ],
        MARCH,
    )
    use_providers(LLM_MODEL="gpt-4o-mini", OPENAI_BASE_URL=stub_openai)  # an LLM is configured from here on
    before = UsageRecord.objects.filter(owner=owner, source="memory_extract").count()
    forget_preview(owner=owner, kind="drawer", ids=[drawers[0].pk])
    forget(owner=owner, kind="drawer", ids=[drawers[0].pk])
    assert UsageRecord.objects.filter(owner=owner, source="memory_extract").count() == before
    assert "Siobhan" not in " ".join(Wing.objects.filter(owner=owner).values_list("name", flat=True))
