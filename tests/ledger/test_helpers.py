"""Seed 002's working-memory helpers, each through its endpoint."""

from __future__ import annotations

import threading

import pytest
import redis
from django.test import override_settings
from rest_framework.test import APIClient

from ledger import redis_store, selectors, services
from tests.conftest import Personas

pytestmark = pytest.mark.django_db

BASE = "/api/v1/working-memory"


def test_scratchpad_set_get_append(api: APIClient, personas: Personas, conversation: str) -> None:
    url = f"{BASE}/{conversation}/scratchpad"
    h = personas.owner.headers
    assert api.get(url, **h).json() == {"content": None}
    api.post(f"{url}/append", {"content": "first"}, format="json", **h)
    assert api.get(url, **h).json() == {"content": "first"}
    assert api.put(url, {"content": "Rule 37 analysis"}, format="json", **h).json()["content"] == "Rule 37 analysis"
    appended = api.post(f"{url}/append", {"content": "well 42-123", "separator": " | "}, format="json", **h)
    assert appended.json() == {"content": "Rule 37 analysis | well 42-123"}
    # The helper field is part of the conversation's working memory.
    assert api.get(f"{BASE}/{conversation}", **h).json() == {"scratchpad": "Rule 37 analysis | well 42-123"}


def test_concurrent_appends_lose_nothing(personas: Personas, conversation: str) -> None:
    """Eight writers racing on one field all get through: a lost compare-and-set backs off and retries
    (before the backoff, one writer in a busy moment lost twenty rounds in a row and gave up with a 409)."""
    owner_id = personas.owner.user.pk

    def append(worker: int) -> None:
        for index in range(25):
            services.scratchpad_append(owner_id=owner_id, conversation_id=conversation, content=f"{worker}-{index}")

    threads = [threading.Thread(target=append, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _, content = selectors.working_memory_field_get(owner_id=owner_id, conversation_id=conversation, field="scratchpad")
    assert sorted(content.split("\n")) == sorted(f"{w}-{i}" for w in range(8) for i in range(25))


def test_an_append_past_the_limit_is_a_413(api: APIClient, personas: Personas, conversation: str) -> None:
    h = personas.owner.headers
    api.put(f"{BASE}/{conversation}/scratchpad", {"content": "x" * 65_000}, format="json", **h)
    response = api.post(f"{BASE}/{conversation}/scratchpad/append", {"content": "y" * 1000}, format="json", **h)
    assert response.status_code == 413
    assert len(api.get(f"{BASE}/{conversation}/scratchpad", **h).json()["content"]) == 65_000


def test_entities(api: APIClient, personas: Personas, conversation: str) -> None:
    url = f"{BASE}/{conversation}/entities"
    entities = [{"type": "Well", "id": "42-123-45678", "name": "Smith #1"}]
    assert api.get(url, **personas.owner.headers).json() == {"entities": None}
    assert api.put(url, {"entities": entities}, format="json", **personas.owner.headers).status_code == 200
    assert api.get(url, **personas.teammate.headers).json() == {"entities": entities}
    assert api.put(url, {"entities": "not a list"}, format="json", **personas.owner.headers).status_code == 400


@override_settings(WORKING_MEMORY_MAX_MESSAGES=3)
def test_conversation_context_store_and_bounded_append(api: APIClient, personas: Personas, conversation: str) -> None:
    url = f"{BASE}/{conversation}/context"
    h = personas.owner.headers
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert api.put(url, {"messages": messages}, format="json", **h).status_code == 200
    assert api.get(url, **h).json() == {"messages": messages}
    for index in range(3):
        body = api.post(
            f"{url}/append", {"message": {"role": "user", "content": f"m{index}"}}, format="json", **h
        ).json()
    assert body["count"] == 3
    assert [m["content"] for m in body["messages"]] == ["m0", "m1", "m2"]
    too_many = api.put(url, {"messages": messages * 2}, format="json", **h)
    assert too_many.status_code == 400 and "messages" in too_many.json()["extra"]["fields"]
    assert api.post(f"{url}/append", {"message": "not an object"}, format="json", **h).status_code == 400


def test_tool_state_per_tool_and_intermediate_results_per_step(
    api: APIClient, personas: Personas, conversation: str
) -> None:
    h = personas.owner.headers
    api.put(f"{BASE}/{conversation}/tools/search", {"state": {"page": 2}}, format="json", **h)
    api.put(f"{BASE}/{conversation}/tools/calculator", {"state": [1, 2]}, format="json", **h)
    api.put(f"{BASE}/{conversation}/steps/extract", {"result": {"rows": 10}}, format="json", **h)
    assert api.get(f"{BASE}/{conversation}/tools/search", **h).json() == {"state": {"page": 2}}
    assert api.get(f"{BASE}/{conversation}/tools/calculator", **h).json() == {"state": [1, 2]}
    assert api.get(f"{BASE}/{conversation}/tools/unknown", **h).json() == {"state": None}
    assert api.get(f"{BASE}/{conversation}/steps/extract", **h).json() == {"result": {"rows": 10}}
    keys = api.get(f"{BASE}/{conversation}/keys", **h).json()["keys"]
    assert keys == ["intermediate:extract", "tool_state:calculator", "tool_state:search"]


def test_task_state(api: APIClient, personas: Personas, conversation: str) -> None:
    url = f"{BASE}/{conversation}/task"
    api.put(url, {"state": {"status": "running", "step": 3}}, format="json", **personas.owner.headers)
    assert api.get(url, **personas.owner.headers).json() == {"state": {"status": "running", "step": 3}}
    assert api.put(url, {}, format="json", **personas.owner.headers).status_code == 400


def test_keys_exists_remove_one_and_clear(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    h = personas.owner.headers
    api.put(f"{BASE}/{conversation}", {"fields": {"a": 1, "b": {"c": 2}}}, format="json", **h)
    assert api.get(f"{BASE}/{conversation}/keys", **h).json() == {"keys": ["a", "b"]}
    assert api.get(f"{BASE}/{conversation}/fields/b", **h).json() == {"name": "b", "exists": True, "value": {"c": 2}}
    assert api.get(f"{BASE}/{conversation}/fields/z", **h).json() == {"name": "z", "exists": False, "value": None}
    assert api.delete(f"{BASE}/{conversation}/fields/a", **h).json() == {"name": "a", "deleted": True}
    assert api.delete(f"{BASE}/{conversation}/fields/a", **h).json() == {"name": "a", "deleted": False}
    assert api.get(f"{BASE}/{conversation}/keys", **h).json() == {"keys": ["b"]}
    api.delete(f"{BASE}/{conversation}", **h)
    assert api.get(f"{BASE}/{conversation}/keys", **h).json() == {"keys": []}
    assert not raw_redis.exists(redis_store.working_memory_key(personas.owner.user.pk, conversation))


def test_a_value_stored_as_plain_text_comes_back_as_text(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    raw_redis.hset(redis_store.working_memory_key(personas.owner.user.pk, conversation), "legacy", "not json {")
    assert api.get(f"{BASE}/{conversation}", **personas.owner.headers).json() == {"legacy": "not json {"}
