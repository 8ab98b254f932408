"""GET /api/v1/activity: the owner's events, newest first, filtered by agent and kind, one list shape;
another person's events never show."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

from palace.models import ActivityEvent
from palace.services import curation
from tests.conftest import Personas
from tests.palace.recall_data import mine

pytestmark = pytest.mark.django_db

MARCH = datetime(2024, 3, 1, 12, tzinfo=UTC)


def _history(personas: Personas) -> None:
    """Mined by the owner's agent and by the teammate's; one drawer pinned by the teammate, one marked
    never recall by the person (no agent); and an outsider's mining."""
    owner, teammate = personas.owner, personas.teammate
    first = mine(owner.user, "a", [{"role": "user", "content": "The kettle is broken."}], MARCH, agent=owner.agent)
    second = mine(owner.user, "b", [{"role": "user", "content": "Buy a new kettle."}], MARCH, agent=teammate.agent)
    curation.drawer_pin(drawer=first[0], pinned=True, agent=teammate.agent)
    curation.drawer_never_recall(drawer=second[0], never=True)
    outsider = personas.outsider
    mine(outsider.user, "x", [{"role": "user", "content": "Secret plans."}], MARCH, agent=outsider.agent)


def test_mining_records_the_conversations_agent(personas: Personas) -> None:
    _history(personas)
    mined = ActivityEvent.objects.filter(owner=personas.owner.user, kind="memory_mined").order_by("pk")
    assert [e.agent_id for e in mined] == [personas.owner.agent.pk, personas.teammate.agent.pk]


def test_the_activity_list_is_newest_first_and_the_owners_only(personas: Personas, api: APIClient) -> None:
    _history(personas)
    listed = api.get("/api/v1/activity", **personas.owner.headers).json()
    assert set(listed) == {"count", "next", "previous", "results"}
    assert listed["count"] == 4
    kinds = [event["kind"] for event in listed["results"]]
    assert kinds == [curation.KIND_NEVER_RECALL, curation.KIND_PINNED, "memory_mined", "memory_mined"]
    assert "Secret" not in str(listed) and "kettle" not in str(listed["results"][:2])
    # The teammate (the same person's other agent) sees the same log; the outsider sees only theirs.
    assert api.get("/api/v1/activity", **personas.teammate.headers).json()["count"] == 4
    theirs = api.get("/api/v1/activity", **personas.outsider.headers).json()
    assert theirs["count"] == 1 and theirs["results"][0]["agent_id"] == str(personas.outsider.agent.pk)


def test_the_activity_list_filters_by_kind_and_agent_and_pages(personas: Personas, api: APIClient) -> None:
    _history(personas)
    h = personas.owner.headers
    mined = api.get("/api/v1/activity", {"kind": "memory_mined"}, **h).json()
    assert mined["count"] == 2 and {e["kind"] for e in mined["results"]} == {"memory_mined"}
    by_teammate = api.get("/api/v1/activity", {"agent": str(personas.teammate.agent.pk)}, **h).json()
    assert [e["kind"] for e in by_teammate["results"]] == [curation.KIND_PINNED, "memory_mined"]
    assert {e["agent_name"] for e in by_teammate["results"]} == {personas.teammate.agent.name}
    both = api.get("/api/v1/activity", {"agent": str(personas.teammate.agent.pk), "kind": "memory_mined"}, **h)
    assert both.json()["count"] == 1
    # Another person's agent filters to nothing, never to their events.
    assert api.get("/api/v1/activity", {"agent": str(personas.outsider.agent.pk)}, **h).json()["count"] == 0
    page = api.get("/api/v1/activity", {"limit": "3"}, **h).json()
    assert len(page["results"]) == 3 and page["next"] is not None and page["previous"] is None
    rest = api.get(page["next"], **h).json()
    assert len(rest["results"]) == 1 and rest["next"] is None and rest["previous"] is not None
    bad = api.get("/api/v1/activity", {"agent": "not-a-uuid", "limit": "0"}, **h)
    assert bad.status_code == 400 and {"agent", "limit"} <= set(bad.json()["extra"]["fields"])
    far = api.get("/api/v1/activity", {"offset": str(2**64)}, **h)  # past the database's bigint: was a 500
    assert far.status_code == 400 and "offset" in far.json()["extra"]["fields"]
