from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from episodic.models import TypedMemory
from tests.conftest import Personas

pytestmark = pytest.mark.django_db


def _create(api: APIClient, headers: dict, memory_type: str, **body: object):  # type: ignore[no-untyped-def]
    return api.post(f"/api/v1/memories/typed/{memory_type}", body, format="json", **headers)


def test_each_type_is_created_with_its_fields_and_default_scope(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    episodic = _create(
        api, h, "episodic", content="User asked about enterprise pricing", session_id="conv-42", sequence_number=1
    )
    semantic = _create(api, h, "semantic", content="User is a Python developer in Manchester", entity_id="user_123")
    procedural = _create(
        api,
        h,
        "procedural",
        content="For API pagination, use cursors",
        steps=["Initialize cursor", "Fetch page", "Check has_more"],
        trigger_conditions=["paginated API"],
    )
    control = _create(
        api,
        h,
        "control",
        content="Never use range() for unknown-length pagination",
        error_pattern="pagination_incomplete",
        severity="high",
        source_trajectory_id="traj-7",
    )
    assert [r.status_code for r in (episodic, semantic, procedural, control)] == [201] * 4
    assert episodic.json()["scope"] == "agent"
    assert {semantic.json()["scope"], procedural.json()["scope"], control.json()["scope"]} == {"global"}
    assert procedural.json()["steps"] == ["Initialize cursor", "Fetch page", "Check has_more"]
    assert control.json()["severity"] == "high"
    for memory_type in ("standard", "strategy", "reflection", "progress", "feature"):
        response = _create(api, h, memory_type, content=f"A {memory_type} memory")
        assert response.status_code == 201 and response.json()["scope"] == "account"


@pytest.mark.parametrize(
    ("memory_type", "body", "field"),
    [
        ("episodic", {"content": "no session"}, "session_id"),
        ("gossip", {"content": "x"}, "memory_type"),
        ("semantic", {}, "content"),
        ("control", {"content": "x", "severity": "apocalyptic"}, "severity"),
        ("procedural", {"content": "x", "steps": "not a list"}, "steps"),
        ("semantic", {"content": "x", "scope": "everyone"}, "scope"),
        ("episodic", {"content": "x", "session_id": "s", "sequence_number": "first"}, "sequence_number"),
        ("semantic", {"content": "x", "session_id": "s"}, "session_id"),
        ("control", {"content": "x", "steps": ["a"]}, "steps"),
        ("standard", {"content": "x", "scope": "team"}, "shared_with"),
    ],
)
def test_bad_typed_memories_are_a_400_and_nothing_is_written(
    api: APIClient, personas: Personas, memory_type: str, body: dict, field: str
) -> None:
    response = _create(api, personas.owner.headers, memory_type, **body)
    assert response.status_code == 400
    assert field in response.json()["extra"]["fields"]
    assert not TypedMemory.objects.exists()


def test_an_agent_private_memory_is_never_shown_to_another_agent(api: APIClient, personas: Personas) -> None:
    owner, teammate, outsider = personas.owner.headers, personas.teammate.headers, personas.outsider.headers
    private = _create(api, owner, "episodic", content="Private trace about pricing", session_id="s1").json()
    shared = _create(api, owner, "semantic", content="Pricing fact: enterprise costs more", entity_id="pricing").json()
    assert api.get(f"/api/v1/memories/{private['id']}", **teammate).status_code == 404
    assert api.get(f"/api/v1/memories/{shared['id']}", **teammate).status_code == 200
    assert api.get(f"/api/v1/memories/{shared['id']}", **outsider).status_code == 404
    for headers, expected in ((owner, 2), (teammate, 1), (outsider, 0)):
        results = api.post("/api/v1/memories/typed/query", {"query": "pricing"}, format="json", **headers).json()[
            "results"
        ]
        assert len(results) == expected
    assert api.get("/api/v1/memories/typed/episodic/session/s1", **teammate).json()["results"] == []
    assert api.get("/api/v1/memories/typed/semantic/entity/pricing", **outsider).json()["results"] == []


def test_team_scope_reaches_the_agents_named(api: APIClient, personas: Personas) -> None:
    memory = _create(
        api,
        personas.owner.headers,
        "standard",
        content="Team note",
        scope="team",
        shared_with=[str(personas.teammate.agent.id)],
    ).json()
    assert api.get(f"/api/v1/memories/{memory['id']}", **personas.teammate.headers).status_code == 200
    outsider_agent = str(personas.outsider.agent.id)
    refused = _create(api, personas.owner.headers, "standard", content="x", scope="team", shared_with=[outsider_agent])
    assert refused.status_code == 400


def test_query_across_chosen_types_and_access_counts(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _create(api, h, "procedural", content="For API pagination, use cursor-based requests")
    _create(api, h, "control", content="Never paginate with offsets on unstable lists", error_pattern="pagination")
    _create(api, h, "semantic", content="The user likes pagination examples in Python", entity_id="u1")
    body = {"query": "pagination strategies", "memory_types": ["procedural", "control"], "top_k": 10}
    results = api.post("/api/v1/memories/typed/query", body, format="json", **h).json()["results"]
    assert {r["memory"]["memory_type"] for r in results} == {"procedural", "control"}
    assert all(r["memory"]["access_count"] == 0 for r in results)  # shown as it was read
    again = api.post(
        "/memories/query", {"query": "pagination", "memory_types": ["semantic", "standard"]}, format="json", **h
    ).json()
    assert [r["memory"]["memory_type"] for r in again["results"]] == ["semantic"]
    assert TypedMemory.objects.get(memory_type="procedural").access_count == 1
    bad = api.post("/api/v1/memories/typed/query", {"query": "x", "memory_types": ["gossip"]}, format="json", **h)
    assert bad.status_code == 400
    assert api.post("/api/v1/memories/typed/query", {"query": "x", "top_k": 0}, format="json", **h).status_code == 400


def test_session_timeline_is_in_sequence_order_and_entity_facts_are_complete(
    api: APIClient, personas: Personas
) -> None:
    h = personas.owner.headers
    for sequence in (3, 1, 2):
        _create(api, h, "episodic", content=f"step {sequence}", session_id="conv-42", sequence_number=sequence)
    _create(api, h, "episodic", content="other session", session_id="conv-43", sequence_number=1)
    timeline = api.get("/memories/typed/episodic/session/conv-42", **h).json()
    assert set(timeline) == {"session_id", "results"}  # the reference service's shape
    assert timeline["session_id"] == "conv-42"
    assert [m["content"] for m in timeline["results"]] == ["step 1", "step 2", "step 3"]
    _create(api, h, "semantic", content="Lives in Manchester", entity_id="user_123")
    _create(api, h, "semantic", content="Writes Python", entity_id="user_123")
    facts = api.get("/api/v1/memories/typed/semantic/entity/user_123", **h).json()["results"]
    assert [f["content"] for f in facts] == ["Lives in Manchester", "Writes Python"]
    assert (
        api.post(
            "/memories/typed/semantic", {"content": "via the reference path", "entity_id": "e"}, format="json", **h
        ).status_code
        == 201
    )


def test_a_typed_memory_is_forgotten_by_an_agent_that_can_see_it(api: APIClient, personas: Personas) -> None:
    private = _create(api, personas.owner.headers, "episodic", content="private", session_id="s").json()
    shared = _create(api, personas.owner.headers, "semantic", content="shared fact").json()
    assert api.delete(f"/api/v1/memories/{private['id']}", **personas.teammate.headers).status_code == 404
    assert api.delete(f"/api/v1/memories/{shared['id']}", **personas.outsider.headers).status_code == 404
    answer = api.delete(f"/api/v1/memories/{shared['id']}", **personas.teammate.headers)
    assert answer.status_code == 200 and answer.json()["receipt"]["counts"] == {"embeddings": 1, "typed_memories": 1}
    answer = api.delete(f"/api/v1/memories/{private['id']}", **personas.owner.headers)
    assert answer.status_code == 200 and answer.json()["receipt"]["asked"]["ids"] == [private["id"]]
    assert not TypedMemory.objects.exists()
