from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from episodic.api.short_term import MESSAGE_ENTRY_NOT_FOUND
from episodic.models import ShortTermMemory
from memory_site.api.exceptions import MESSAGE_INVALID_INPUT
from tests.conftest import Personas
from tests.episodic.lists import EMPTY_LIST

pytestmark = pytest.mark.django_db

BASE = "/api/v1/short-term"


def _put(api: APIClient, headers: dict[str, Any], session: str = "s1", key: str = "k", **body: Any) -> Any:
    return api.put(f"{BASE}/{session}/{key}", {"value": {"step": 1}, **body}, format="json", **headers)


def _not_found(response: Any) -> bool:
    return response.status_code == 404 and response.json() == {"message": MESSAGE_ENTRY_NOT_FOUND, "extra": {}}


def test_write_then_read_returns_the_entry(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    written = _put(api, h, value={"plan": ["a", "b"]}, memory_type="tool_result", ttl_seconds=120)
    assert written.status_code == 200
    body = written.json()
    assert {k: body[k] for k in ("session_id", "key", "value", "memory_type", "ttl_seconds", "access_count")} == {
        "session_id": "s1",
        "key": "k",
        "value": {"plan": ["a", "b"]},
        "memory_type": "tool_result",
        "ttl_seconds": 120,
        "access_count": 0,
    }
    assert set(body) == {
        "session_id",
        "key",
        "value",
        "memory_type",
        "ttl_seconds",
        "expires_at",
        "access_count",
        "last_accessed_at",
        "created_at",
        "updated_at",
    }
    read = api.get(f"{BASE}/s1/k", **h)
    assert read.status_code == 200 and read.json()["value"] == {"plan": ["a", "b"]}


def test_any_json_value_but_null_can_be_stored(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    for key, value in [("list", [1, "two"]), ("text", "hello"), ("number", 4.5), ("flag", False)]:
        assert _put(api, h, key=key, value=value).status_code == 200
        assert api.get(f"{BASE}/s1/{key}", **h).json()["value"] == value


def test_a_second_write_of_the_same_key_updates_the_one_entry(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    first = _put(api, h, value="draft").json()
    api.get(f"{BASE}/s1/k", **h)
    second = _put(api, h, value="final", memory_type="reflection").json()
    assert ShortTermMemory.objects.count() == 1
    assert second["value"] == "final" and second["memory_type"] == "reflection"
    assert second["created_at"] == first["created_at"] and second["access_count"] == 1  # a rewrite keeps the count


def test_reading_counts_an_access_and_listing_does_not(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _put(api, h)
    assert api.get(f"{BASE}/s1/k", **h).json()["access_count"] == 1
    second = api.get(f"{BASE}/s1/k", **h).json()
    assert second["access_count"] == 2 and second["last_accessed_at"] is not None
    api.get(BASE, **h)
    assert ShortTermMemory.objects.get().access_count == 2


@pytest.mark.django_db(transaction=True)
def test_concurrent_reads_count_every_access(personas: Personas) -> None:
    _put(APIClient(), personas.owner.headers)
    threads_count, reads_each = 8, 5
    barrier = threading.Barrier(threads_count)
    statuses: list[int] = []

    def read() -> None:
        client = APIClient()
        barrier.wait()
        try:
            for _ in range(reads_each):
                statuses.append(client.get(f"{BASE}/s1/k", **personas.owner.headers).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=read) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * threads_count * reads_each
    assert ShortTermMemory.objects.get().access_count == threads_count * reads_each


def test_an_expired_entry_is_invisible_at_once(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _put(api, h, key="kept")
    _put(api, h, key="gone")
    ShortTermMemory.objects.filter(key="gone").update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _not_found(api.get(f"{BASE}/s1/gone", **h))
    assert [e["key"] for e in api.get(BASE, **h).json()["results"]] == ["kept"]
    assert _not_found(api.post(f"{BASE}/s1/gone/refresh", **h))
    assert ShortTermMemory.objects.get(key="gone").access_count == 0  # the failed read counted nothing


def test_rewriting_an_expired_key_starts_a_new_entry(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _put(api, h, value="old")
    api.get(f"{BASE}/s1/k", **h)
    ShortTermMemory.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    fresh = _put(api, h, value="new").json()
    assert fresh["value"] == "new" and fresh["access_count"] == 0 and fresh["last_accessed_at"] is None
    assert ShortTermMemory.objects.count() == 1


def test_refresh_extends_the_expiry(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _put(api, h, ttl_seconds=600)
    soon = timezone.now() + timedelta(seconds=30)
    ShortTermMemory.objects.update(expires_at=soon)
    refreshed = api.post(f"{BASE}/s1/k/refresh", **h)
    assert refreshed.status_code == 200 and refreshed.json()["ttl_seconds"] == 600
    expires_at = ShortTermMemory.objects.get().expires_at
    assert expires_at > soon + timedelta(seconds=500)
    longer = api.post(f"{BASE}/s1/k/refresh", {"ttl_seconds": 7200}, format="json", **h).json()
    assert longer["ttl_seconds"] == 7200
    assert ShortTermMemory.objects.get().expires_at > expires_at + timedelta(seconds=6000)
    assert ShortTermMemory.objects.get().access_count == 0  # a refresh is not a read


def test_the_default_ttl_applies_when_none_is_given(api: APIClient, personas: Personas, settings: Any) -> None:
    body = _put(api, personas.owner.headers).json()
    assert body["ttl_seconds"] == settings.MAINTENANCE_SHORT_TERM_TTL
    assert ShortTermMemory.objects.get().expires_at > timezone.now() + timedelta(
        seconds=settings.MAINTENANCE_SHORT_TERM_TTL - 60
    )


def test_the_list_is_ordered_and_filters_by_session(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    for session, key in [("s2", "b"), ("s1", "z"), ("s2", "a")]:
        _put(api, h, session=session, key=key)
    listed = api.get(BASE, **h).json()["results"]
    assert [(e["session_id"], e["key"]) for e in listed] == [("s1", "z"), ("s2", "a"), ("s2", "b")]
    assert [e["key"] for e in api.get(f"{BASE}?session_id=s2", **h).json()["results"]] == ["a", "b"]
    assert api.get(f"{BASE}?session_id=none", **h).json() == EMPTY_LIST


def test_delete_one_key_then_the_whole_session(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    for key in ("a", "b", "c"):
        _put(api, h, key=key)
    _put(api, h, session="other", key="a")
    assert api.delete(f"{BASE}/s1/a", **h).status_code == 204
    assert _not_found(api.get(f"{BASE}/s1/a", **h))
    assert _not_found(api.delete(f"{BASE}/s1/a", **h))
    assert api.delete(f"{BASE}/s1", **h).json() == {"deleted": 2}
    assert [(e["session_id"], e["key"]) for e in api.get(BASE, **h).json()["results"]] == [("other", "a")]
    assert api.delete(f"{BASE}/s1", **h).json() == {"deleted": 0}


def test_agents_never_see_each_others_entries(api: APIClient, personas: Personas) -> None:
    _put(api, personas.owner.headers, value="the owner's")
    for persona in (personas.teammate, personas.outsider):
        h = persona.headers
        assert _not_found(api.get(f"{BASE}/s1/k", **h))
        assert api.get(BASE, **h).json() == EMPTY_LIST
        assert _not_found(api.post(f"{BASE}/s1/k/refresh", **h))
        assert _not_found(api.delete(f"{BASE}/s1/k", **h))
        assert api.delete(f"{BASE}/s1", **h).json() == {"deleted": 0}
    # The teammate's own entry under the same session and key is a separate one.
    assert _put(api, personas.teammate.headers, value="the teammate's").status_code == 200
    assert api.get(f"{BASE}/s1/k", **personas.owner.headers).json()["value"] == "the owner's"
    assert api.get(f"{BASE}/s1/k", **personas.teammate.headers).json()["value"] == "the teammate's"
    assert ShortTermMemory.objects.count() == 2


def test_it_needs_an_api_key(api: APIClient, personas: Personas) -> None:
    assert api.get(BASE).status_code == 401
    assert api.put(f"{BASE}/s1/k", {"value": 1}, format="json").status_code == 401
    assert not ShortTermMemory.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"value": None},
        {"value": 1, "memory_type": "gossip"},
        {"value": 1, "memory_type": 3},
        {"value": 1, "ttl_seconds": 59},
        {"value": 1, "ttl_seconds": 30 * 86400 + 1},
        {"value": 1, "ttl_seconds": "soon"},
        {"value": 1, "ttl_seconds": True},
    ],
)
def test_bad_input_is_a_400_and_stores_nothing(api: APIClient, personas: Personas, body: dict[str, Any]) -> None:
    response = api.put(f"{BASE}/s1/k", body, format="json", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["message"] == MESSAGE_INVALID_INPUT
    assert not ShortTermMemory.objects.exists()


@pytest.mark.parametrize(("session", "key"), [("s" * 257, "k"), ("s1", "k" * 257)])
def test_session_ids_and_keys_are_bounded(api: APIClient, personas: Personas, session: str, key: str) -> None:
    h = personas.owner.headers
    response = api.put(f"{BASE}/{session}/{key}", {"value": 1}, format="json", **h)
    assert response.status_code == 400 and set(response.json()["extra"]["fields"]) <= {"session_id", "key"}
    assert api.get(f"{BASE}/{session}/{key}", **h).status_code == 400
    assert not ShortTermMemory.objects.exists()
    assert _put(api, h, session="s" * 256, key="k" * 256).status_code == 200


def test_a_refresh_with_a_bad_ttl_is_a_400_and_changes_nothing(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    _put(api, h, ttl_seconds=600)
    before = ShortTermMemory.objects.get().expires_at
    assert api.post(f"{BASE}/s1/k/refresh", {"ttl_seconds": 1}, format="json", **h).status_code == 400
    assert ShortTermMemory.objects.get().expires_at == before
