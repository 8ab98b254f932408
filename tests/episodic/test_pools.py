from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from episodic.api.pools import (
    MESSAGE_POOL_EXISTS,
    MESSAGE_POOL_NOT_FOUND,
    MESSAGE_STALE_VERSION,
)
from episodic.models import MemoryPool
from memory_site.api.exceptions import MESSAGE_INVALID_INPUT
from tests.conftest import Personas
from tests.episodic.concurrency import run_together
from tests.episodic.lists import EMPTY_LIST
from tests.factories import Persona, make_persona

pytestmark = pytest.mark.django_db

POOLS = "/api/v1/pools"


def _create(api: APIClient, persona: Persona, pool_id: str = "plan", **body: Any) -> Any:
    return api.post(POOLS, {"pool_id": pool_id, **body}, format="json", **persona.headers)


def _not_found(response: Any, message: str = MESSAGE_POOL_NOT_FOUND) -> bool:
    return response.status_code == 404 and response.json() == {"message": message, "extra": {}}


# --- memory pools: documents and versions -------------------------------------------------------------


def test_create_read_write_and_merge_bump_the_version(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    created = _create(api, owner, data={"goal": "ship", "steps": ["a"]}, task_id="t-1")
    assert created.status_code == 201
    body = created.json()
    assert set(body) == {
        "pool_id",
        "pool_type",
        "scope",
        "task_id",
        "data",
        "version",
        "access_control",
        "created_by",
        "expires_at",
        "created_at",
        "updated_at",
    }
    assert body["version"] == 1 and body["created_by"] == str(owner.agent.id) and body["task_id"] == "t-1"
    assert (body["pool_type"], body["scope"], body["expires_at"]) == ("shared", "account", None)
    assert body["access_control"] == {"read": [], "write": [], "public_read": False}

    assert api.get(f"{POOLS}/plan", **owner.headers).json()["data"] == {"goal": "ship", "steps": ["a"]}
    written = api.put(f"{POOLS}/plan", {"data": {"goal": "test"}, "version": 1}, format="json", **owner.headers)
    assert written.status_code == 200 and written.json()["version"] == 2 and written.json()["data"] == {"goal": "test"}
    patch = {"data": {"owner": "ann", "goal": None, "nested": {"x": 1}}, "version": 2}
    merged = api.patch(f"{POOLS}/plan", patch, format="json", **owner.headers)
    assert merged.status_code == 200
    assert merged.json()["version"] == 3 and merged.json()["data"] == {"owner": "ann", "nested": {"x": 1}}
    again = api.patch(f"{POOLS}/plan", {"data": {"nested": {"y": 2}}}, format="json", **owner.headers).json()
    assert again["version"] == 4 and again["data"] == {"owner": "ann", "nested": {"x": 1, "y": 2}}
    assert MemoryPool.objects.get().data == again["data"]


def test_a_stale_version_is_a_409_and_changes_nothing(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _create(api, personas.owner, data={"a": 1})
    api.put(f"{POOLS}/plan", {"data": {"a": 2}}, format="json", **h)
    for method in (api.put, api.patch):
        response = method(f"{POOLS}/plan", {"data": {"a": 3}, "version": 1}, format="json", **h)
        assert response.status_code == 409
        assert response.json() == {"message": MESSAGE_STALE_VERSION, "extra": {"current_version": 2}}
    pool = MemoryPool.objects.get()
    assert (pool.data, pool.version, pool.write_count) == ({"a": 2}, 2, 1)


def test_a_taken_pool_id_is_a_409_within_the_account_only(api: APIClient, personas: Personas) -> None:
    _create(api, personas.owner, data={"mine": True})
    for persona in (personas.owner, personas.teammate):
        taken = _create(api, persona, data={"theirs": True})
        assert taken.status_code == 409 and taken.json() == {"message": MESSAGE_POOL_EXISTS, "extra": {}}
    assert _create(api, personas.outsider).status_code == 201  # another account, another namespace
    assert MemoryPool.objects.get(owner=personas.owner.user).data == {"mine": True}


@pytest.mark.django_db(transaction=True)
def test_concurrent_merges_without_a_version_all_land(personas: Personas) -> None:
    _create(APIClient(), personas.owner, data={})
    merges_each = 5

    def merge(persona: Persona) -> Callable[[APIClient], list[int]]:
        def job(client: APIClient) -> list[int]:
            return [
                client.patch(
                    f"{POOLS}/plan", {"data": {f"{persona.agent.name}-{i}": i}}, format="json", **persona.headers
                ).status_code
                for i in range(merges_each)
            ]

        return job

    statuses = run_together(merge(personas.owner), merge(personas.teammate))
    assert statuses == [[200] * merges_each] * 2
    pool = MemoryPool.objects.get()
    names = [personas.owner.agent.name, personas.teammate.agent.name]
    assert pool.data == {f"{name}-{i}": i for name in names for i in range(merges_each)}  # no lost update
    assert pool.version == 1 + 2 * merges_each


@pytest.mark.django_db(transaction=True)
def test_concurrent_writes_over_the_same_version_let_exactly_one_land(personas: Personas) -> None:
    _create(APIClient(), personas.owner, data={"base": 0})
    for round_ in range(5):
        version = MemoryPool.objects.get().version

        def merge(persona: Persona, version: int = version) -> Callable[[APIClient], Any]:
            body = {"data": {persona.agent.name: version}, "version": version}
            return lambda client: client.patch(f"{POOLS}/plan", body, format="json", **persona.headers)

        responses = run_together(merge(personas.owner), merge(personas.teammate))
        assert sorted(r.status_code for r in responses) == [200, 409], round_
        loser = next(r for r in responses if r.status_code == 409)
        assert loser.json()["extra"] == {"current_version": version + 1}
        pool = MemoryPool.objects.get()
        assert pool.version == version + 1
        MemoryPool.objects.update(data={"base": 0})  # a clean slate for the next round (version unchanged)


# --- memory pools: access -----------------------------------------------------------------------------


def _can_read(api: APIClient, persona: Persona, pool_id: str = "plan") -> bool:
    status = api.get(f"{POOLS}/{pool_id}", **persona.headers).status_code
    listed = any(p["pool_id"] == pool_id for p in api.get(POOLS, **persona.headers).json()["results"])
    stats = api.get(f"{POOLS}/{pool_id}/stats", **persona.headers).status_code
    assert {status, stats} in ({200}, {404}) and listed == (status == 200)
    return status == 200


def _can_write(api: APIClient, persona: Persona, pool_id: str = "plan") -> bool:
    put = api.put(f"{POOLS}/{pool_id}", {"data": {"by": persona.agent.name}}, format="json", **persona.headers)
    patch = api.patch(f"{POOLS}/{pool_id}", {"data": {"seen": True}}, format="json", **persona.headers)
    assert {put.status_code, patch.status_code} in ({200}, {404})
    if put.status_code == 404:
        assert _not_found(put) and _not_found(patch)
    return put.status_code == 200


def test_an_account_pool_is_open_to_teammates_and_hidden_from_outsiders(api: APIClient, personas: Personas) -> None:
    _create(api, personas.owner, data={"secret": "falcon"})
    assert _can_read(api, personas.teammate) and _can_write(api, personas.teammate)
    outsider = personas.outsider
    assert not _can_read(api, outsider) and not _can_write(api, outsider)
    grant = {"agent_id": str(outsider.agent.id), "level": "write"}
    assert _not_found(api.post(f"{POOLS}/plan/grant", grant, format="json", **outsider.headers))
    assert _not_found(api.post(f"{POOLS}/plan/revoke", grant, format="json", **outsider.headers))
    assert _not_found(api.delete(f"{POOLS}/plan", **outsider.headers))
    assert MemoryPool.objects.get().data["by"] == personas.teammate.agent.name


def test_a_team_pool_is_closed_until_granted_and_again_once_revoked(api: APIClient, personas: Personas) -> None:
    owner, teammate = personas.owner, personas.teammate
    _create(api, owner, scope="team", data={"n": 1})
    assert _can_read(api, owner) and _can_write(api, owner)
    assert not _can_read(api, teammate) and not _can_write(api, teammate)

    grant = api.post(
        f"{POOLS}/plan/grant", {"agent_id": str(teammate.agent.id), "level": "read"}, format="json", **owner.headers
    )
    assert grant.status_code == 200 and grant.json()["access_control"]["read"] == [str(teammate.agent.id)]
    assert _can_read(api, teammate) and not _can_write(api, teammate)
    # A reader may not hand out access, nor delete.
    self_grant = {"agent_id": str(teammate.agent.id), "level": "write"}
    assert _not_found(api.post(f"{POOLS}/plan/grant", self_grant, format="json", **teammate.headers))
    assert _not_found(api.delete(f"{POOLS}/plan", **teammate.headers))

    api.post(f"{POOLS}/plan/grant", self_grant, format="json", **owner.headers)
    assert _can_read(api, teammate) and _can_write(api, teammate)

    revoked = api.post(f"{POOLS}/plan/revoke", {"agent_id": str(teammate.agent.id)}, format="json", **owner.headers)
    assert revoked.status_code == 200
    assert revoked.json()["access_control"] == {"read": [], "write": [], "public_read": False}
    assert not _can_read(api, teammate) and not _can_write(api, teammate)
    assert _can_read(api, owner) and _can_write(api, owner)  # the creator keeps its access


def test_the_acl_given_at_creation_decides_who_reads_and_writes(api: APIClient, personas: Personas) -> None:
    owner, teammate = personas.owner, personas.teammate
    third = make_persona(user=owner.user)
    acl = {"read": [str(teammate.agent.id)], "write": [str(third.agent.id)]}
    assert _create(api, owner, scope="team", access_control=acl).status_code == 201
    assert _can_read(api, teammate) and not _can_write(api, teammate)
    assert _can_read(api, third) and _can_write(api, third)
    # On an account pool, naming writers closes writing to the others.
    _create(api, owner, "open", access_control={"write": [str(third.agent.id)]})
    assert _can_read(api, teammate, "open") and not _can_write(api, teammate, "open")
    assert _can_write(api, third, "open")


def test_public_read_lets_teammates_read_but_not_write(api: APIClient, personas: Personas) -> None:
    _create(api, personas.owner, scope="team", access_control={"public_read": True})
    assert _can_read(api, personas.teammate) and not _can_write(api, personas.teammate)
    assert not _can_read(api, personas.outsider)


def test_an_agent_private_pool_is_its_creators_alone_even_when_public(api: APIClient, personas: Personas) -> None:
    owner, teammate = personas.owner, personas.teammate
    _create(api, owner, pool_type="agent_private", scope="account", access_control={"public_read": True})
    assert _can_read(api, owner) and _can_write(api, owner)
    assert not _can_read(api, teammate) and not _can_write(api, teammate)
    api.post(
        f"{POOLS}/plan/grant", {"agent_id": str(teammate.agent.id), "level": "read"}, format="json", **owner.headers
    )
    assert _can_read(api, teammate) and not _can_write(api, teammate)


def test_only_the_accounts_agents_can_be_named_in_the_acl(api: APIClient, personas: Personas) -> None:
    outsider_id = str(personas.outsider.agent.id)
    for acl in ({"read": [outsider_id]}, {"write": ["00000000-0000-0000-0000-000000000001"]}):
        response = _create(api, personas.owner, access_control=acl)
        assert response.status_code == 400 and response.json()["message"] == MESSAGE_INVALID_INPUT
    assert not MemoryPool.objects.exists()
    _create(api, personas.owner, scope="team")
    grant = {"agent_id": outsider_id, "level": "read"}
    assert api.post(f"{POOLS}/plan/grant", grant, format="json", **personas.owner.headers).status_code == 400
    assert MemoryPool.objects.get().access_control == {"read": [], "write": [], "public_read": False}
    assert not _can_read(api, personas.outsider)


def test_deleting_needs_write_access(api: APIClient, personas: Personas) -> None:
    _create(api, personas.owner, scope="team", access_control={"read": [str(personas.teammate.agent.id)]})
    assert _not_found(api.delete(f"{POOLS}/plan", **personas.teammate.headers))
    assert api.delete(f"{POOLS}/plan", **personas.owner.headers).status_code == 204
    assert _not_found(api.get(f"{POOLS}/plan", **personas.owner.headers))
    assert not MemoryPool.objects.exists()


# --- memory pools: statistics and expiry --------------------------------------------------------------


def test_stats_count_entries_size_reads_and_writes(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    data = {"a": 1, "b": "héllo", "c": [1, 2]}
    _create(api, personas.owner, data=data)
    fresh = api.get(f"{POOLS}/plan/stats", **h).json()
    size = len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode())
    assert fresh == {"entries": 3, "size_bytes": size, "reads": 0, "writes": 0, "version": 1, "last_accessed_at": None}
    api.get(f"{POOLS}/plan", **h)
    api.get(f"{POOLS}/plan", **h)
    api.patch(f"{POOLS}/plan", {"data": {"c": None}}, format="json", **h)
    stats = api.get(f"{POOLS}/plan/stats", **h).json()
    assert (stats["entries"], stats["reads"], stats["writes"], stats["version"]) == (2, 2, 1, 2)
    assert stats["size_bytes"] == len('{"a":1,"b":"héllo"}'.encode()) and stats["last_accessed_at"] is not None
    assert api.get(f"{POOLS}/plan/stats", **h).json()["reads"] == 2  # statistics are not reads


def test_an_expired_pool_is_gone_at_once_and_its_id_free_again(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _create(api, personas.owner, data={"old": True}, ttl_seconds=3600)
    MemoryPool.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _not_found(api.get(f"{POOLS}/plan", **h))
    assert _not_found(api.get(f"{POOLS}/plan/stats", **h))
    assert _not_found(api.put(f"{POOLS}/plan", {"data": {}}, format="json", **h))
    assert api.get(POOLS, **h).json() == EMPTY_LIST
    recreated = _create(api, personas.owner, data={"new": True})
    assert recreated.status_code == 201 and recreated.json()["data"] == {"new": True}
    assert MemoryPool.objects.count() == 1


def test_a_pool_expires_at_the_given_time_or_after_its_ttl(api: APIClient, personas: Personas) -> None:
    at = timezone.now() + timedelta(days=2)
    explicit = _create(api, personas.owner, "a", expires_at=at.isoformat()).json()
    assert MemoryPool.objects.get(pool_id="a").expires_at == at and explicit["expires_at"] is not None
    _create(api, personas.owner, "b", ttl_seconds=3600)
    expires_at = MemoryPool.objects.get(pool_id="b").expires_at
    assert expires_at is not None
    assert timedelta(seconds=3590) < expires_at - timezone.now() <= timedelta(seconds=3600)


# --- memory pools: bad input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"pool_id": ""},
        {"pool_id": 7},
        {"pool_id": "p" * 201},
        {"pool_id": "a/b"},
        {"pool_id": "p", "pool_type": "huge"},
        {"pool_id": "p", "scope": "planet"},
        {"pool_id": "p", "data": [1, 2]},
        {"pool_id": "p", "data": "text"},
        {"pool_id": "p", "access_control": {"read": ["not-a-uuid"]}},
        {"pool_id": "p", "access_control": {"public_read": "maybe"}},
        {"pool_id": "p", "access_control": "everyone"},
        {"pool_id": "p", "task_id": 5},
        {"pool_id": "p", "ttl_seconds": 10},
        {"pool_id": "p", "ttl_seconds": 3600, "expires_at": "2999-01-01T00:00:00Z"},
        {"pool_id": "p", "expires_at": "2000-01-01T00:00:00Z"},
        {"pool_id": "p", "expires_at": "tomorrow"},
    ],
)
def test_a_bad_create_is_a_400_and_stores_nothing(api: APIClient, personas: Personas, body: dict[str, Any]) -> None:
    response = api.post(POOLS, body, format="json", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["message"] == MESSAGE_INVALID_INPUT
    assert not MemoryPool.objects.exists()


@pytest.mark.parametrize(
    ("method", "body"),
    [
        ("put", {}),
        ("put", {"data": [1]}),
        ("put", {"data": {}, "version": 0}),
        ("put", {"data": {}, "version": "latest"}),
        ("patch", {"data": "not an object"}),
        ("patch", {"data": None}),
        ("patch", {"data": {"a": 2}, "version": -1}),
    ],
)
def test_a_bad_write_is_a_400_and_changes_nothing(
    api: APIClient, personas: Personas, method: str, body: dict[str, Any]
) -> None:
    _create(api, personas.owner, data={"a": 1})
    response = getattr(api, method)(f"{POOLS}/plan", body, format="json", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["message"] == MESSAGE_INVALID_INPUT
    pool = MemoryPool.objects.get()
    assert (pool.data, pool.version) == ({"a": 1}, 1)


def test_a_bad_grant_is_a_400(api: APIClient, personas: Personas) -> None:
    _create(api, personas.owner, scope="team")
    teammate_id = str(personas.teammate.agent.id)
    for body in ({"agent_id": teammate_id, "level": "admin"}, {"agent_id": "nobody", "level": "read"}, {}):
        response = api.post(f"{POOLS}/plan/grant", body, format="json", **personas.owner.headers)
        assert response.status_code == 400
    assert not _can_read(api, personas.teammate)


def test_pools_need_an_api_key(api: APIClient, personas: Personas) -> None:
    assert api.get(POOLS).status_code == 401
    assert api.post(POOLS, {"pool_id": "p"}, format="json").status_code == 401
    assert not MemoryPool.objects.exists()
