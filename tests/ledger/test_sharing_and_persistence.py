from __future__ import annotations

import pytest
import redis
from rest_framework.test import APIClient

from ledger import redis_store
from ledger.models import WorkingMemorySnapshot
from ledger.selectors import MESSAGE_NOT_SHARED
from ledger.services import MESSAGE_NO_SNAPSHOT
from memory_site.api.authentication import MESSAGE_AGENT_NOT_FOUND
from tests.conftest import Personas
from tests.factories import make_persona

pytestmark = pytest.mark.django_db


def _share(api: APIClient, headers: dict, target: object, key: str, value: object):  # type: ignore[no-untyped-def]
    return api.post(
        "/api/v1/shared-memory", {"target_agent_id": str(target), "key": key, "value": value}, format="json", **headers
    )


def test_an_agent_shares_a_value_with_a_teammate(api: APIClient, personas: Personas) -> None:
    owner, teammate = personas.owner, personas.teammate
    response = _share(api, owner.headers, teammate.agent.id, "plan", {"steps": [1, 2]})
    assert response.status_code == 201
    assert response.json()["source_agent_id"] == str(owner.agent.id)

    got = api.get(f"/api/v1/shared-memory/{owner.agent.id}/plan", **teammate.headers)
    assert got.json() == {"source_agent_id": str(owner.agent.id), "key": "plan", "value": {"steps": [1, 2]}}
    # Shared *with the teammate*: another agent of the same owner was not given it.
    third = make_persona(user=owner.user)
    response = api.get(f"/api/v1/shared-memory/{owner.agent.id}/plan", HTTP_X_API_KEY=third.key)
    assert (response.status_code, response.json()["message"]) == (404, MESSAGE_NOT_SHARED)


def test_an_outsider_can_neither_share_with_nor_read_from_the_owners_agents(api: APIClient, personas: Personas) -> None:
    owner, outsider = personas.owner, personas.outsider
    response = _share(api, outsider.headers, owner.agent.id, "plan", "injected by outsider")
    assert (response.status_code, response.json()["message"]) == (404, MESSAGE_AGENT_NOT_FOUND)
    _share(api, owner.headers, personas.teammate.agent.id, "plan", "for the teammate")
    response = api.get(f"/api/v1/shared-memory/{owner.agent.id}/plan", **outsider.headers)
    assert (response.status_code, response.json()["message"]) == (404, MESSAGE_AGENT_NOT_FOUND)
    got = api.get(f"/api/v1/shared-memory/{owner.agent.id}/plan", **personas.teammate.headers).json()
    assert got["value"] == "for the teammate"


def test_sharing_needs_an_api_key(api: APIClient, personas: Personas) -> None:
    api.force_login(personas.owner.user)
    assert _share(api, {}, personas.teammate.agent.id, "k", 1).status_code == 403


def test_persist_then_lose_redis_then_load_restores_fields_and_a_fresh_ttl(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    h = personas.owner.headers
    base = f"/api/v1/working-memory/{conversation}"
    fields = {"scratchpad": "notes é", "entities": [{"id": 1}], "n": 3.5, "null": None}
    api.put(base, {"fields": fields, "ttl_seconds": 3600}, format="json", **h)
    key = redis_store.working_memory_key(personas.owner.user.pk, conversation)
    raw_before = raw_redis.hgetall(key)

    persisted = api.post(f"{base}/persist", **h)
    assert persisted.status_code == 200
    assert persisted.json()["fields"] == 4 and persisted.json()["ttl_seconds"] == 3600
    snapshot = WorkingMemorySnapshot.objects.get(owner=personas.owner.user, conversation_id=conversation)
    assert snapshot.persisted_by_id == personas.owner.agent.id

    # Redis loses everything about the conversation.
    raw_redis.delete(key, redis_store.ttl_policy_key(personas.owner.user.pk, conversation))
    assert api.get(base, **h).json() == {}

    loaded = api.post(f"{base}/load", **h)
    assert loaded.json() == fields
    assert raw_redis.hgetall(key) == raw_before
    assert 3590 <= raw_redis.ttl(key) <= 3600  # type: ignore[operator]
    assert api.get(base, **h).json() == fields


def test_persisting_again_replaces_the_saved_copy(api: APIClient, personas: Personas, conversation: str) -> None:
    h = personas.owner.headers
    base = f"/api/v1/working-memory/{conversation}"
    api.put(base, {"fields": {"v": 1}}, format="json", **h)
    api.post(f"{base}/persist", **h)
    api.put(base, {"fields": {"v": 2, "w": 0}}, format="json", **h)
    api.post(f"{base}/persist", **h)
    assert WorkingMemorySnapshot.objects.filter(owner=personas.owner.user, conversation_id=conversation).count() == 1
    api.delete(base, **h)
    assert api.post(f"{base}/load", **h).json() == {"v": 2, "w": 0}


def test_load_without_a_save_is_404_and_another_owner_cannot_load_it(
    api: APIClient, personas: Personas, conversation: str
) -> None:
    base = f"/api/v1/working-memory/{conversation}"
    response = api.post(f"{base}/load", **personas.owner.headers)
    assert (response.status_code, response.json()["message"]) == (404, MESSAGE_NO_SNAPSHOT)
    api.put(base, {"fields": {"mine": True}}, format="json", **personas.owner.headers)
    api.post(f"{base}/persist", **personas.owner.headers)
    assert api.post(f"{base}/load", **personas.outsider.headers).status_code == 404
    assert api.post(f"{base}/load", **personas.teammate.headers).json() == {"mine": True}


def test_persisting_an_empty_working_memory_keeps_the_saved_copy(
    api: APIClient, personas: Personas, conversation: str
) -> None:
    h = personas.owner.headers
    base = f"/api/v1/working-memory/{conversation}"
    api.put(base, {"fields": {"keep": "me"}}, format="json", **h)
    api.post(f"{base}/persist", **h)
    api.delete(base, **h)  # as if Redis lost it
    response = api.post(f"{base}/persist", **h)
    assert response.status_code == 409 and response.json()["message"].startswith(
        "This conversation has no working memory"
    )
    assert api.post(f"{base}/load", **h).json() == {"keep": "me"}
