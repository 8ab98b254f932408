from __future__ import annotations

import itertools
import threading
from datetime import UTC

import pytest
from django.db import connection
from rest_framework.test import APIClient

from palace.models import Conversation, Relation
from palace.services import graph, mining
from tests.conftest import Personas
from tests.palace.test_conversations import TWO_PEOPLE_AND_A_PROJECT

pytestmark = pytest.mark.django_db


def _add(api: APIClient, headers: dict, **body: object):  # type: ignore[no-untyped-def]
    return api.post("/api/v1/kg/relations", body, format="json", **headers)


def test_replacing_closes_the_old_row_and_opens_a_new_one(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    first = _add(
        api,
        h,
        subject="efoil",
        predicate="has_battery",
        object="12V20Ah",
        object_is_entity=False,
        valid_from="2026-03-01T00:00:00Z",
    )
    assert first.status_code == 201 and first.json()["valid_to"] is None
    _add(
        api,
        h,
        subject="efoil",
        predicate="has_battery",
        object="14V30Ah",
        object_is_entity=False,
        valid_from="2026-05-01T00:00:00Z",
    )
    timeline = api.get("/api/v1/kg/entities/efoil/timeline", **h).json()["relations"]
    assert [(r["object"], r["valid_from"][:10], (r["valid_to"] or "")[:10]) for r in timeline] == [
        ("12V20Ah", "2026-03-01", "2026-05-01"),
        ("14V30Ah", "2026-05-01", ""),
    ]
    april = api.get("/api/v1/kg/entities/efoil?as_of=2026-04-15T00:00:00Z", **h).json()["relations"]
    assert [r["object"] for r in april] == ["12V20Ah"]
    assert [r["object"] for r in api.get("/api/v1/kg/entities/efoil", **h).json()["relations"]] == ["14V30Ah"]
    assert api.get("/api/v1/kg/entities/efoil?as_of=2026-01-01T00:00:00Z", **h).json()["relations"] == []


def test_multi_valued_predicates_accumulate_unless_replaced(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _add(api, h, subject="Derek", predicate="owns", object="board")
    _add(api, h, subject="Derek", predicate="owns", object="kayak")
    _add(api, h, subject="Derek", predicate="owns", object="kayak")  # already open: no second row
    assert sorted(r["object"] for r in api.get("/api/v1/kg/entities/derek", **h).json()["relations"]) == [
        "board",
        "kayak",
    ]
    _add(api, h, subject="Derek", predicate="owns", object="car", replace=True)
    assert [r["object"] for r in api.get("/api/v1/kg/entities/Derek", **h).json()["relations"]] == ["car"]
    assert Relation.objects.filter(subject__name="Derek").count() == 3  # history kept, nothing deleted


def test_a_backdated_fact_ends_where_the_next_begins(personas: Personas) -> None:
    from datetime import datetime

    owner_id = personas.owner.user.pk
    graph.relation_add(
        owner_id=owner_id,
        subject="Anna",
        predicate="lives_in",
        object="Lyon",
        valid_from=datetime(2026, 6, 1, tzinfo=UTC),
    )
    old = graph.relation_add(
        owner_id=owner_id,
        subject="Anna",
        predicate="lives_in",
        object="Paris",
        valid_from=datetime(2025, 1, 1, tzinfo=UTC),
    )
    assert old.valid_to == datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.django_db(transaction=True)
def test_concurrent_replacements_never_overlap(personas: Personas) -> None:
    owner_id = personas.owner.user.pk
    graph.relation_add(owner_id=owner_id, subject="efoil", predicate="has_battery", object="A", object_is_entity=False)
    barrier = threading.Barrier(4)

    def swap(value: str) -> None:
        barrier.wait()
        graph.relation_add(
            owner_id=owner_id, subject="efoil", predicate="has_battery", object=value, object_is_entity=False
        )
        connection.close()

    threads = [threading.Thread(target=swap, args=(v,)) for v in "BCDE"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Relation.objects.filter(predicate="has_battery", valid_to__isnull=True).count() == 1
    rows = list(Relation.objects.filter(predicate="has_battery").order_by("valid_from", "pk"))
    for earlier, later in itertools.pairwise(rows):
        assert earlier.valid_to is not None and earlier.valid_to <= later.valid_from


def test_mining_adds_entities_and_relations_citing_their_drawers(api: APIClient, personas: Personas) -> None:
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "c1", "turns": TWO_PEOPLE_AND_A_PROJECT},
        format="json",
        **personas.owner.headers,
    )
    counts = mining.conversation_mine(conversation=Conversation.objects.get(external_id="c1"))
    assert counts["entities"] >= 3 and counts["relations"] >= 3
    owns = Relation.objects.get(subject__name="Derek", predicate="owns")
    assert owns.object is not None and owns.object.name == "board"
    assert owns.source_drawer is not None and "Derek owns the board" in owns.source_drawer.content
    sister = Relation.objects.get(subject__name="Anna", predicate="relation_to_user")
    assert sister.object_value == "sister"
    names = {e["name"] for e in api.get("/api/v1/kg/entities", **personas.owner.headers).json()["results"]}
    assert {"Derek", "Anna", "Efoil"} <= names


def test_the_graph_is_per_owner_and_validated(api: APIClient, personas: Personas) -> None:
    _add(api, personas.owner.headers, subject="Derek", predicate="owns", object="board")
    assert api.get("/api/v1/kg/entities/Derek/timeline", **personas.outsider.headers).status_code == 404
    assert api.get("/api/v1/kg/entities", **personas.outsider.headers).json()["count"] == 0
    assert _add(api, personas.owner.headers, subject="Derek", predicate=5, object="x").status_code == 400
    assert (
        _add(api, personas.owner.headers, subject="Derek", predicate="owns", object="x", valid_from="soon").status_code
        == 400
    )
    assert api.get("/api/v1/kg/entities/Derek?as_of=whenever", **personas.owner.headers).status_code == 400


def test_an_entity_whose_name_holds_a_slash_is_read_and_forgotten_by_that_name(
    api: APIClient, personas: Personas
) -> None:
    h = personas.owner.headers
    assert _add(api, h, subject="A/B", predicate="likes", object="C").status_code == 201
    _add(api, h, subject="C", predicate="likes", object="D")  # keeps C when A/B goes
    # A server decodes %2F before routing: the route takes every segment that follows.
    read = api.get("/api/v1/kg/entities/A%2FB", **h)
    assert read.status_code == 200, read.json()
    assert read.json()["entity"]["name"] == "A/B" and [r["object"] for r in read.json()["relations"]] == ["C"]
    timeline = api.get("/api/v1/kg/entities/A%2FB/timeline", **personas.teammate.headers)
    assert timeline.status_code == 200 and timeline.json()["entity"]["name"] == "A/B"
    assert [r["predicate"] for r in timeline.json()["relations"]] == ["likes"]
    outsider = personas.outsider.headers
    assert api.get("/api/v1/kg/entities/A%2FB", **outsider).status_code == 404
    assert api.delete("/api/v1/kg/entities/A%2FB", **outsider).status_code == 404

    forgotten = api.delete("/api/v1/kg/entities/A%2FB", **h)
    assert forgotten.status_code == 200 and forgotten.json()["receipt"]["counts"]["entities"] == 1
    assert api.get("/api/v1/kg/entities/A%2FB", **h).status_code == 404
    assert api.get("/api/v1/kg/entities/C", **h).status_code == 200


def test_an_owned_thing_ends_where_the_sentence_goes_on(api: APIClient, personas: Personas) -> None:
    turns = [
        {
            "role": "user",
            "content": "Derek and I are rebuilding the Efoil project. Derek owns the board and I'm doing the wiring.",
        },
        {"role": "user", "content": "Derek and I tested it on the lake. Derek is great."},
    ]
    api.post(
        "/api/v1/conversations", {"conversation_id": "c2", "turns": turns}, format="json", **personas.owner.headers
    )
    mining.conversation_mine(conversation=Conversation.objects.get(external_id="c2"))
    owns = Relation.objects.get(subject__name="Derek", predicate="owns")
    assert owns.object is not None and owns.object.name == "board"


def test_names_in_any_script_stay_apart_and_a_predicate_needs_a_letter(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    for name in ("東京", "大阪", "🎉", "Łódź"):
        assert _add(api, h, subject=name, predicate="好き", object="tea").status_code == 201
    read = api.get("/api/v1/kg/entities/%E5%A4%A7%E9%98%AA", **h)  # 大阪
    assert read.status_code == 200 and read.json()["entity"]["name"] == "大阪"
    assert [r["predicate"] for r in read.json()["relations"]] == ["好き"]
    names = {e["name"] for e in api.get("/api/v1/kg/entities", **h).json()["results"]}
    assert {"東京", "大阪", "🎉", "Łódź", "tea"} <= names
    assert api.get("/api/v1/kg/entities/Lodz", **h).json()["entity"]["name"] == "Łódź"  # accents still fold
    assert api.delete("/api/v1/kg/entities/%F0%9F%A5%9F", **h).status_code == 404  # 🥟 is no one's name here
    assert api.get("/api/v1/kg/entities/%E6%9D%B1%E4%BA%AC", **h).status_code == 200  # 東京 is still there
    for bad in ("!!!", "❤️"):
        refused = _add(api, h, subject="Maya", predicate=bad, object="tea", replace=True)
        assert refused.status_code == 400 and "predicate" in refused.json()["extra"]["fields"]
    assert not Relation.objects.filter(predicate="").exists()
