"""The tiers router: routing (explicit and automatic), where each write lands, read order, search,
consolidation of a session, stats, personas, and Redis really stopped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from episodic.models import ContextEntry, MemoryPool, ShortTermMemory
from episodic.services import tiers
from ledger.selectors import working_memory_field_get
from memory_site import embedded
from tests.conftest import Personas
from tests.factories import Persona


def _write(api: APIClient, persona: Persona, **body: Any) -> Any:
    return api.post("/api/v1/tiers/write", body, format="json", **persona.headers)


def _read(api: APIClient, persona: Persona, **body: Any) -> Any:
    return api.post("/api/v1/tiers/read", body, format="json", **persona.headers)


@pytest.mark.parametrize(
    ("session_id", "ttl_seconds", "expected"),
    [
        (None, None, "long_term"),
        (None, 60, "long_term"),
        ("s", 60, "working"),
        ("s", 900, "working"),
        ("s", 901, "short_term"),
        ("s", None, "short_term"),
    ],
)
def test_auto_routing_follows_the_documented_rule(
    session_id: str | None, ttl_seconds: int | None, expected: str
) -> None:
    assert tiers.route_write(tier=None, session_id=session_id, ttl_seconds=ttl_seconds) == expected


def test_each_tier_write_lands_in_its_store(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    assert _write(api, owner, key="step", value={"n": 1}, session_id="s", ttl_seconds=60).json()["tier"] == "working"
    assert working_memory_field_get(owner_id=owner.user.pk, conversation_id="s", field="step") == (True, {"n": 1})

    assert _write(api, owner, key="plan", value="draft", session_id="s").json()["tier"] == "short_term"
    assert ShortTermMemory.objects.get(key="plan").value == "draft"

    assert _write(api, owner, key="city", value="Lisbon").json()["tier"] == "long_term"
    entry = ContextEntry.objects.get(key="city")
    assert entry.content == "Lisbon" and entry.context.name == f"agent-memory:{owner.agent.pk}"
    assert entry.embedding is not None

    assert _write(api, owner, key="board", value={"todo": []}, tier="shared").json()["tier"] == "shared"
    assert MemoryPool.objects.get(pool_id="board").data == {"todo": []}

    # A long-term rewrite is a new version of the entry, not a second entry.
    _write(api, owner, key="city", value="Porto")
    versions = ContextEntry.objects.filter(key="city").order_by("version")
    assert [(v.content, v.version, v.is_current) for v in versions] == [("Lisbon", 1, False), ("Porto", 2, True)]
    assert _read(api, owner, key="city").json() == {"tier": "long_term", "key": "city", "value": "Porto"}


def test_auto_read_takes_the_fastest_tier_that_holds_the_key(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    _write(api, owner, key="k", value="long", tier="long_term")
    _write(api, owner, key="k", value="short", tier="short_term", session_id="s")
    _write(api, owner, key="k", value="working", tier="working", session_id="s")
    assert _read(api, owner, key="k", session_id="s").json()["tier"] == "working"
    assert _read(api, owner, key="k", session_id="other").json() == {"tier": "long_term", "key": "k", "value": "long"}
    assert _read(api, owner, key="k", tier="short_term", session_id="s").json()["value"] == "short"
    assert ShortTermMemory.objects.get(key="k").access_count == 1  # the read through the router counted
    assert _read(api, owner, key="missing").status_code == 404


def test_bad_requests_are_400_and_store_nothing(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    answer = _write(api, owner, key="k", value=1, tier="working")  # no session
    assert answer.status_code == 400 and "session_id" in answer.json()["extra"]["fields"]
    assert _write(api, owner, key="k", value=1, tier="nowhere").status_code == 400
    assert _write(api, owner, key="", value=1).status_code == 400
    assert _write(api, owner, key="k").status_code == 400  # no value
    assert _write(api, owner, key="k", value=1, session_id="s", memory_type="decision").status_code == 400
    assert _read(api, owner, key="k", tier="short_term").status_code == 400
    assert not ShortTermMemory.objects.exists() and not ContextEntry.objects.exists()


def test_personas_only_see_what_they_may(api: APIClient, personas: Personas) -> None:
    owner, teammate, outsider = personas.owner, personas.teammate, personas.outsider
    _write(api, owner, key="secret", value="agent-private", tier="long_term")
    _write(api, owner, key="note", value="mine", tier="short_term", session_id="s")
    _write(api, owner, key="board", value={"shared": True}, tier="shared")
    for persona in (teammate, outsider):
        assert _read(api, persona, key="secret").status_code == 404
        assert _read(api, persona, key="note", session_id="s").status_code == 404
    # An account-scope pool is the owner's agents' to share; never the outsider's.
    assert _read(api, teammate, key="board").json()["value"] == {"shared": True}
    assert _read(api, outsider, key="board").status_code == 404
    hits = api.post("/api/v1/tiers/search", {"query": "agent-private"}, format="json", **outsider.headers)
    assert hits.json()["results"] == []
    stats = api.get("/api/v1/tiers/stats", **outsider.headers).json()
    assert stats["long_term"]["count"] == stats["short_term"]["count"] == stats["shared"]["count"] == 0


def test_search_consolidate_and_stats(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    _write(api, owner, key="car", value="The blue car is parked in bay 4.")
    _write(api, owner, key="lunch", value="Lunch is at the Thai place.")
    hits = api.post(
        "/api/v1/tiers/search", {"query": "where is my automobile", "limit": 1}, format="json", **owner.headers
    ).json()["results"]
    assert [h["key"] for h in hits] == ["car"] and hits[0]["similarity"] > 0.3

    _write(api, owner, key="draft", value="outline v2", session_id="s")
    for _ in range(3):
        _read(api, owner, key="draft", tier="short_term", session_id="s")
    consolidated = api.post("/api/v1/tiers/consolidate", {"session_id": "s"}, format="json", **owner.headers)
    assert consolidated.json() == {"promoted": 1, "deleted": 0}
    assert ContextEntry.objects.filter(key="draft", source_ref__startswith="short_term:").exists()

    _write(api, owner, key="step", value=1, session_id="s", ttl_seconds=60)
    _write(api, owner, key="board", value={"a": 1}, tier="shared")
    stats = api.get("/api/v1/tiers/stats", **owner.headers).json()
    assert stats["working"] == {**stats["working"], "available": True, "sessions": 1, "count": 1}
    assert stats["short_term"]["count"] == 1 and stats["short_term"]["size_bytes"] > 0
    assert stats["long_term"]["count"] == 3 and stats["long_term"]["oldest"] <= stats["long_term"]["newest"]
    assert stats["shared"]["count"] == 1 and stats["shared"]["size_bytes"] > 0


@pytest.mark.django_db(transaction=True)
def test_with_redis_stopped_auto_read_falls_back_and_an_explicit_working_read_is_503(
    api: APIClient, personas: Personas, own_redis: Path
) -> None:
    owner = personas.owner
    _write(api, owner, key="k", value="durable", tier="short_term", session_id="s")
    embedded.stop_redis(own_redis)
    assert _read(api, owner, key="k", session_id="s").json() == {"tier": "short_term", "key": "k", "value": "durable"}
    down = _read(api, owner, key="k", tier="working", session_id="s")
    assert down.status_code == 503 and down.json()["message"] == "Redis is unavailable; try again shortly."
    assert api.get("/api/v1/tiers/stats", **owner.headers).json()["working"]["available"] is False
