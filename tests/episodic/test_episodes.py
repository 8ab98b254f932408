from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from episodic.models import Episode
from episodic.services import episodes as services
from episodic.services import maintenance
from tests.conftest import Personas
from tests.episodic.lists import EMPTY_LIST
from tests.factories import make_persona

pytestmark = pytest.mark.django_db


def _store(api: APIClient, headers: dict, **body: Any) -> Any:
    payload = {"conversation_id": "c1", "summary": "Talked about the weather.", **body}
    return api.post("/api/v1/episodes", payload, format="json", **headers)


def test_store_get_list_and_delete(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    created = _store(
        api,
        h,
        summary="User planned a trip to Kyoto in April to see the cherry blossoms.",
        user_id="end-user-1",
        metadata={"key_decisions": ["Kyoto"], "entities": ["Kyoto"], "tools": []},
    )
    assert created.status_code == 201
    body = created.json()
    assert body["has_embedding"] is True and body["agent_id"] == str(personas.owner.agent.id)
    assert "kyoto" in body["keywords"] and body["topic"]
    episode_id = body["id"]
    assert api.get(f"/api/v1/episodes/{episode_id}", **h).json()["summary"].startswith("User planned")
    listed = api.get("/api/v1/episodes?limit=5", **h).json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == episode_id
    assert api.get("/api/v1/episodes/conversation/c1", **h).json()["results"][0]["id"] == episode_id
    deleted = api.delete(f"/api/v1/episodes/{episode_id}", **h)
    assert deleted.status_code == 200 and deleted.json()["receipt"]["counts"]["episodes"] == 1
    assert api.get(f"/api/v1/episodes/{episode_id}", **h).status_code == 404


def test_persona_isolation_on_every_read_path(api: APIClient, personas: Personas) -> None:
    episode_id = _store(api, personas.owner.headers, summary="The owner's secret project Falcon.").json()["id"]
    teammate, outsider = personas.teammate.headers, personas.outsider.headers
    assert api.get(f"/api/v1/episodes/{episode_id}", **teammate).status_code == 200
    assert api.get(f"/api/v1/episodes/{episode_id}", **outsider).status_code == 404
    assert api.delete(f"/api/v1/episodes/{episode_id}", **outsider).status_code == 404
    assert api.get("/api/v1/episodes", **outsider).json() == EMPTY_LIST
    assert api.get("/api/v1/episodes/conversation/c1", **outsider).json() == EMPTY_LIST
    search = {"query": "Falcon project"}
    assert api.post("/api/v1/episodes/search", search, format="json", **outsider).json() == EMPTY_LIST
    assert len(api.post("/api/v1/episodes/search", search, format="json", **teammate).json()["results"]) == 1
    assert api.get("/api/memory/search?q=Falcon", **outsider).json() == {"episodes": [], "count": 0, "available": True}


def test_search_fuses_meaning_and_keywords(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _store(api, h, conversation_id="hike", summary="I love hiking in the mountains every weekend.")
    _store(api, h, conversation_id="tax", summary="The quarterly tax report is due on Friday.")
    _store(api, h, conversation_id="zebra", summary="Discussed the zebra crossing near the school.")
    by_meaning = api.post("/api/v1/episodes/search", {"query": "trekking outdoors"}, format="json", **h).json()[
        "results"
    ]
    assert by_meaning[0]["episode"]["conversation_id"] == "hike"
    assert by_meaning[0]["similarity"] > by_meaning[-1]["similarity"]
    assert by_meaning[0]["keyword"] == 0  # no shared word: found by meaning alone
    by_word = api.post("/api/v1/episodes/search", {"query": "zebra"}, format="json", **h).json()["results"]
    assert by_word[0]["episode"]["conversation_id"] == "zebra" and by_word[0]["keyword"] > 0
    strict = api.post(
        "/api/v1/episodes/search", {"query": "trekking outdoors", "min_similarity": 0.9}, format="json", **h
    )
    assert strict.json()["results"] == []


def test_search_filters(api: APIClient, personas: Personas) -> None:
    now = timezone.now()
    _store(
        api,
        personas.owner.headers,
        conversation_id="a",
        summary="Budget planning for Q3.",
        user_id="u1",
        occurred_at=(now - timedelta(days=10)).isoformat(),
    )
    _store(api, personas.teammate.headers, conversation_id="b", summary="Budget planning for Q4.", user_id="u2")
    h = personas.owner.headers

    def search(**filters: Any) -> list[str]:
        body = {"query": "budget planning", **filters}
        results = api.post("/api/v1/episodes/search", body, format="json", **h).json()["results"]
        return [r["episode"]["conversation_id"] for r in results]

    assert sorted(search()) == ["a", "b"]
    assert search(user_id="u2") == ["b"]
    assert search(agent_id=str(personas.owner.agent.id)) == ["a"]
    assert search(since=(now - timedelta(days=1)).isoformat()) == ["b"]
    assert search(until=(now - timedelta(days=1)).isoformat()) == ["a"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/episodes", {"conversation_id": "c", "summary": "x", "importance": 2}),
        ("/api/v1/episodes", {"conversation_id": "c", "summary": "x", "type": "gossip"}),
        ("/api/v1/episodes", {"conversation_id": "c"}),
        ("/api/v1/episodes", {"conversation_id": "c", "summary": "x", "keywords": "not a list"}),
        ("/api/v1/episodes/search", {"query": "x", "limit": 0}),
        ("/api/v1/episodes/search", {"query": "x", "limit": 51}),
        ("/api/v1/episodes/search", {"query": ""}),
        ("/api/v1/episodes/propose", {"conversation_id": "c", "turns": []}),
        ("/api/v1/episodes/propose", {"conversation_id": "c", "turns": [{"role": "robot", "content": "x"}]}),
    ],
)
def test_bad_input_is_a_400_and_writes_nothing(api: APIClient, personas: Personas, path: str, body: dict) -> None:
    response = api.post(path, body, format="json", **personas.owner.headers)
    assert response.status_code == 400 and set(response.json()) == {"message", "extra"}
    assert not Episode.objects.exists()


@pytest.mark.parametrize("limit", ["0", "101", "many"])
def test_list_limits_are_bounded(api: APIClient, personas: Personas, limit: str) -> None:
    assert api.get(f"/api/v1/episodes?limit={limit}", **personas.owner.headers).status_code == 400


def test_expired_episodes_are_invisible_at_once_and_deleted_by_the_job(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    kept = _store(api, h, summary="Kept for a month.").json()["id"]
    gone = _store(api, h, summary="About to expire.").json()["id"]
    Episode.objects.filter(pk=gone).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api.get(f"/api/v1/episodes/{gone}", **h).status_code == 404
    assert [e["id"] for e in api.get("/api/v1/episodes", **h).json()["results"]] == [kept]
    assert maintenance.run("expired_cleanup").counts["episodes"] == 1
    assert list(Episode.objects.values_list("id", flat=True).order_by()) == [Episode.objects.get().id]


def test_propose_skips_trivial_and_saves_corrections(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    skipped = api.post(
        "/api/v1/episodes/propose",
        {
            "conversation_id": "g",
            "turns": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"}],
        },
        format="json",
        **h,
    )
    assert skipped.status_code == 200
    assert skipped.json()["decision"] == "skipped" and skipped.json()["episode"] is None
    assert not Episode.objects.exists()

    saved = api.post(
        "/api/v1/episodes/propose",
        {
            "conversation_id": "s",
            "user_id": "u9",
            "turns": [
                {"role": "user", "content": "Book dinner with my sister Anne on Friday."},
                {"role": "assistant", "content": "Booked dinner with Anne on Friday at 7pm."},
                {"role": "user", "content": "Actually her name is Anna, not Anne. Anna loves Thai food."},
            ],
        },
        format="json",
        **h,
    )
    assert saved.status_code == 201
    body = saved.json()
    assert body["decision"] == "saved" and "correction" in body["rules"] and body["summarizer"] == "extractive"
    assert body["episode"]["type"] == "correction" and body["episode"]["importance"] >= 0.9
    assert "Anna" in body["episode"]["summary"] and "anna" in body["episode"]["keywords"]
    assert "user" not in body["episode"]["keywords"] and "assistant" not in body["episode"]["keywords"]


def test_propose_uses_the_llm_when_one_is_configured(
    api: APIClient, personas: Personas, use_providers: Any, stub_openai: str
) -> None:
    use_providers(LLM_MODEL="gpt-4o-mini", OPENAI_BASE_URL=stub_openai)
    body = api.post(
        "/api/v1/episodes/propose",
        {"conversation_id": "s", "turns": [{"role": "user", "content": "Actually my sister is Anna."}]},
        format="json",
        **personas.owner.headers,
    ).json()
    assert body["summarizer"] == "llm"
    assert body["episode"]["summary"] == "The user corrected the name of their sister: Anna."
    assert body["episode"]["topic"] == "family"


def test_a_small_owner_among_large_ones_still_gets_k_results(use_providers: Any) -> None:
    from episodic.selectors import episodes as selectors

    use_providers(EMBEDDING_PROVIDER="hashing", EMBEDDING_DIM=384)
    big = make_persona()
    for index in range(400):
        services.episode_store(
            owner=big.user,
            agent=big.agent,
            conversation_id=f"big-{index}",
            summary=f"Weekly status meeting notes number {index} about the roadmap.",
        )
    small = make_persona()
    for index in range(3):
        services.episode_store(
            owner=small.user,
            agent=small.agent,
            conversation_id=f"small-{index}",
            summary=f"Gardening plan {index}: tomatoes and basil.",
        )
    hits = selectors.episode_search(owner=small.user, query="status meeting roadmap", limit=3)
    assert sorted(h.item.conversation_id for h in hits) == ["small-0", "small-1", "small-2"]


def test_the_compatibility_paths(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    stored = api.post(
        "/episodic/store",
        {
            "conversation_id": "conv-9",
            "summary": "Reviewed Rule 37 for well 42-123.",
            "user_id": "op-1",
            "metadata": {"key_decisions": ["approve"], "entities": ["42-123"], "tools": ["gis"]},
        },
        format="json",
        **h,
    )
    assert stored.status_code == 200 and stored.json()["status"] == "stored"
    results = api.post(
        "/episodic/search",
        {"query": "Rule 37 well", "top_k": 3, "agent_id": personas.owner.agent.name},
        format="json",
        **h,
    ).json()["results"]
    assert results[0]["id"] == stored.json()["id"] and isinstance(results[0]["similarity"], float)
    assert api.post("/episodic/search", {"query": "Rule 37", "agent_id": "nobody"}, format="json", **h).json() == {
        "results": []
    }
    assert api.get("/episodic/conv-9", **h).json()["results"][0]["summary"].startswith("Reviewed")
    recent = api.get("/api/memory/episodes?limit=10", **h).json()
    assert recent["count"] == 1 and recent["available"] is True
    assert set(recent["episodes"][0]) == {"id", "summary", "keywords", "topic", "timestamp", "importance", "type"}
    assert api.get("/api/memory/search?q=well&limit=5", **h).json()["count"] == 1
    assert api.get("/api/memory/search?limit=5", **h).status_code == 400
    assert api.get("/api/memory/episodes?limit=101", **h).status_code == 400


def test_recent_episodes_page_with_limit_and_offset(api: APIClient, personas: Personas) -> None:
    now = timezone.now()
    for index in range(5):
        _store(
            api,
            personas.owner.headers,
            conversation_id=f"c{index}",
            summary=f"Episode {index}",
            occurred_at=(now - timedelta(hours=index)).isoformat(),
        )
    page = api.get("/api/v1/episodes?limit=2&offset=2", **personas.owner.headers).json()
    assert [e["conversation_id"] for e in page["results"]] == ["c2", "c3"] and page["count"] == 5
    assert page["next"].endswith("/api/v1/episodes?limit=2&offset=4")
    assert page["previous"].endswith("/api/v1/episodes?limit=2")


@pytest.mark.parametrize("conversation_id", ["bad id/with slash", "x" * 257, 5])
def test_episode_conversation_ids_follow_the_shared_rule(
    api: APIClient, personas: Personas, conversation_id: object
) -> None:
    response = _store(api, personas.owner.headers, conversation_id=conversation_id)
    assert response.status_code == 400 and "conversation_id" in response.json()["extra"]["fields"]
