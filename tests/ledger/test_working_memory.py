from __future__ import annotations

import threading
from typing import Any

import pytest
import redis
from django.test import override_settings
from rest_framework.test import APIClient

from ledger import redis_store, services
from memory_site.api.exceptions import MESSAGE_INVALID_INPUT
from memory_site.lib.ids import MESSAGE_BAD_CONVERSATION_ID
from tests.conftest import Personas

pytestmark = pytest.mark.django_db

BASE = "/api/v1/working-memory"


def _put(api: APIClient, personas: Personas, conversation: str, body: Any, **kwargs: Any) -> Any:
    return api.put(f"{BASE}/{conversation}", body, format="json", **personas.owner.headers, **kwargs)


def _hash(raw_redis: redis.Redis, personas: Personas, conversation: str) -> dict[str, str]:
    key = redis_store.working_memory_key(personas.owner.user.pk, conversation)
    return dict(raw_redis.hgetall(key))  # type: ignore[arg-type]


def test_an_unknown_conversation_is_an_empty_object(api: APIClient, personas: Personas, conversation: str) -> None:
    response = api.get(f"{BASE}/{conversation}", **personas.owner.headers)
    assert (response.status_code, response.json()) == (200, {})


def test_put_merges_and_never_replaces(api: APIClient, personas: Personas, conversation: str) -> None:
    values = {"a": 1, "nested": {"list": [1, "two", None, True]}, "text": "héllo", "none": None, "pi": 3.25}
    assert _put(api, personas, conversation, {"fields": values}).status_code == 200
    response = _put(api, personas, conversation, {"fields": {"a": 2, "b": [3]}})
    assert response.json()["updated"] == ["a", "b"]
    assert response.json()["size_bytes"] > 0
    got = api.get(f"{BASE}/{conversation}", **personas.owner.headers).json()
    assert got == {**values, "a": 2, "b": [3]}


def test_the_teammate_shares_the_owners_working_memory_and_the_outsider_does_not(
    api: APIClient, personas: Personas, conversation: str
) -> None:
    _put(api, personas, conversation, {"fields": {"secret": "owner's"}})
    assert api.get(f"{BASE}/{conversation}", **personas.teammate.headers).json() == {"secret": "owner's"}
    assert api.get(f"{BASE}/{conversation}", **personas.outsider.headers).json() == {}
    api.put(f"{BASE}/{conversation}", {"fields": {"secret": "outsider's"}}, format="json", **personas.outsider.headers)
    assert api.get(f"{BASE}/{conversation}", **personas.owner.headers).json() == {"secret": "owner's"}


def test_ttl_is_set_by_put_and_refreshed_by_get(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    key = redis_store.working_memory_key(personas.owner.user.pk, conversation)
    _put(api, personas, conversation, {"fields": {"x": 1}})
    assert 86390 <= raw_redis.ttl(key) <= 86400  # type: ignore[operator]
    raw_redis.expire(key, 50)
    api.get(f"{BASE}/{conversation}", **personas.owner.headers)
    assert 86390 <= raw_redis.ttl(key) <= 86400  # type: ignore[operator]
    raw_redis.expire(key, 50)
    _put(api, personas, conversation, {"fields": {"y": 2}})
    assert 86390 <= raw_redis.ttl(key) <= 86400  # type: ignore[operator]


def test_ttl_seconds_overrides_the_whole_key_ttl_and_reads_keep_it(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    key = redis_store.working_memory_key(personas.owner.user.pk, conversation)
    response = _put(api, personas, conversation, {"fields": {"gate": "held"}, "ttl_seconds": 7 * 86400})
    assert response.json()["ttl_seconds"] == 7 * 86400
    assert raw_redis.ttl(key) > 6 * 86400  # type: ignore[operator]
    raw_redis.expire(key, 50)
    api.get(f"{BASE}/{conversation}", **personas.owner.headers)
    # A read re-arms the conversation's own policy, not the 24 h default.
    assert raw_redis.ttl(key) > 6 * 86400  # type: ignore[operator]
    _put(api, personas, conversation, {"fields": {"gate": "released"}})
    assert raw_redis.ttl(key) <= 86400  # type: ignore[operator]


@pytest.mark.parametrize("ttl", [0, -5, 30 * 86400 + 1, "soon", 1.5])
def test_a_bad_ttl_is_a_400_and_writes_nothing(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis, ttl: Any
) -> None:
    response = _put(api, personas, conversation, {"fields": {"x": 1}, "ttl_seconds": ttl})
    assert response.status_code == 400
    assert "ttl_seconds" in response.json()["extra"]["fields"]
    assert _hash(raw_redis, personas, conversation) == {}


def _fill(api: APIClient, personas: Personas, conversation: str, size: int) -> None:
    assert _put(api, personas, conversation, {"fields": {"blob": "x" * size}}).status_code == 200


def test_a_write_past_64_kb_is_refused_and_leaves_the_hash_byte_identical(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    _fill(api, personas, conversation, 60_000)
    _put(api, personas, conversation, {"fields": {"small": {"k": "v"}}})
    key = redis_store.working_memory_key(personas.owner.user.pk, conversation)
    before, ttl_before = raw_redis.dump(key), raw_redis.ttl(key)

    response = _put(api, personas, conversation, {"fields": {"small": "changed", "more": "y" * 6000}})
    assert response.status_code == 413
    body = response.json()
    assert body["message"] == services.MESSAGE_TOO_LARGE
    assert body["extra"]["limit_bytes"] == 65536 and body["extra"]["size_bytes"] > 65536
    assert raw_redis.dump(key) == before
    assert raw_redis.ttl(key) == ttl_before


def test_the_size_is_field_names_plus_encoded_values(personas: Personas, conversation: str) -> None:
    result = services.working_memory_merge(
        owner_id=personas.owner.user.pk, conversation_id=conversation, fields={"ab": "é", "n": [1, 2]}
    )
    # "ab" (2) + '"é"' (4 bytes) + "n" (1) + "[1,2]" (5)
    assert result.size_bytes == 12


def test_exactly_the_limit_is_allowed(personas: Personas, conversation: str) -> None:
    # field "f" (1 byte) + '"' + payload + '"'
    fields = {"f": "x" * (65536 - 3)}
    assert (
        services.working_memory_merge(
            owner_id=personas.owner.user.pk, conversation_id=conversation, fields=fields
        ).size_bytes
        == 65536
    )
    with pytest.raises(services.WorkingMemoryTooLarge):
        services.working_memory_merge(owner_id=personas.owner.user.pk, conversation_id=conversation, fields={"g": 1})


def test_two_writers_racing_past_the_limit_leave_exactly_one_write(
    personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    owner_id = personas.owner.user.pk
    for round_ in range(20):
        conv = f"{conversation}-{round_}"
        services.working_memory_merge(owner_id=owner_id, conversation_id=conv, fields={"base": "b" * 30_000})
        barrier = threading.Barrier(2)
        outcomes: dict[str, str] = {}

        def write(
            name: str, conv: str = conv, barrier: threading.Barrier = barrier, outcomes: dict[str, str] = outcomes
        ) -> None:
            barrier.wait()
            try:
                services.working_memory_merge(owner_id=owner_id, conversation_id=conv, fields={name: "w" * 20_000})
                outcomes[name] = "ok"
            except services.WorkingMemoryTooLarge:
                outcomes[name] = "413"

        threads = [threading.Thread(target=write, args=(name,)) for name in ("one", "two")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes.values()) == ["413", "ok"]
        stored = raw_redis.hgetall(redis_store.working_memory_key(owner_id, conv))
        winner = next(name for name, outcome in outcomes.items() if outcome == "ok")
        assert set(stored) == {"base", winner}  # type: ignore[arg-type]


def test_delete_named_fields_then_the_whole_key(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    _put(api, personas, conversation, {"fields": {"a": 1, "b": 2, "c": 3}})
    response = api.delete(
        f"{BASE}/{conversation}", {"fields": ["a", "missing"]}, format="json", **personas.owner.headers
    )
    assert response.json() == {"deleted": 1, "whole": False}
    assert api.get(f"{BASE}/{conversation}", **personas.owner.headers).json() == {"b": 2, "c": 3}

    response = api.delete(f"{BASE}/{conversation}", **personas.owner.headers)
    assert response.json() == {"deleted": 2, "whole": True}
    assert api.get(f"{BASE}/{conversation}", **personas.owner.headers).json() == {}
    owner_id = personas.owner.user.pk
    assert not raw_redis.exists(
        redis_store.working_memory_key(owner_id, conversation), redis_store.ttl_policy_key(owner_id, conversation)
    )


@pytest.mark.parametrize("conversation_id", ["has%20space", "x" * 257, "semi%3Bcolon", "%C3%A9t%C3%A9"])
def test_a_bad_conversation_id_is_a_400(api: APIClient, personas: Personas, conversation_id: str) -> None:
    for response in (
        api.get(f"{BASE}/{conversation_id}", **personas.owner.headers),
        api.put(f"{BASE}/{conversation_id}", {"fields": {"a": 1}}, format="json", **personas.owner.headers),
        api.post(f"/api/v1/ledger/{conversation_id}/mark", {"item": "s"}, format="json", **personas.owner.headers),
    ):
        assert response.status_code == 400
        assert response.json()["extra"]["fields"]["conversation_id"] == [MESSAGE_BAD_CONVERSATION_ID]


def test_the_longest_allowed_conversation_id_works(api: APIClient, personas: Personas) -> None:
    conversation_id = "a-Z_0.9:@~" + "x" * 246
    assert _put(api, personas, conversation_id, {"fields": {"ok": True}}).status_code == 200
    assert api.get(f"{BASE}/{conversation_id}", **personas.owner.headers).json() == {"ok": True}


@pytest.mark.parametrize(
    "body",
    [
        ["not", "an", "object"],
        {"fields": ["a"]},
        {"fields": {}},
        {"fields": {"": 1}},
        {"fields": {"x" * 257: 1}},
        {"fields": {"bad\nname": 1}},
        {"nothing": 1},
    ],
)
def test_a_bad_body_is_a_400_and_writes_nothing(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis, body: Any
) -> None:
    response = _put(api, personas, conversation, body)
    assert response.status_code == 400
    assert response.json()["message"] == MESSAGE_INVALID_INPUT
    assert _hash(raw_redis, personas, conversation) == {}


def test_a_body_that_is_not_json_is_a_400(api: APIClient, personas: Personas, conversation: str) -> None:
    response = api.put(f"{BASE}/{conversation}", "{oops", content_type="application/json", **personas.owner.headers)
    assert response.status_code == 400 and response.json()["message"] == "Malformed JSON."


@override_settings(WORKING_MEMORY_MAX_BYTES=2048)
def test_the_limit_is_a_setting(api: APIClient, personas: Personas, conversation: str) -> None:
    assert _put(api, personas, conversation, {"fields": {"x": "y" * 3000}}).status_code == 413


def test_an_empty_delete_list_is_refused_and_deletes_nothing(
    api: APIClient, personas: Personas, conversation: str
) -> None:
    _put(api, personas, conversation, {"fields": {"a": 1}})
    for path in (f"{BASE}/{conversation}", f"/working-memory/{conversation}"):
        response = api.delete(path, {"fields": []}, format="json", **personas.owner.headers)
        assert response.status_code == 400
    assert api.get(f"{BASE}/{conversation}", **personas.owner.headers).json() == {"a": 1}


def test_helper_writes_keep_a_long_ttl(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    key = redis_store.working_memory_key(personas.owner.user.pk, conversation)
    _put(api, personas, conversation, {"fields": {"gate": 1}, "ttl_seconds": 500_000})
    for path, body in (("task", {"state": 1}), ("scratchpad", {"content": "x"}), ("tools/t", {"state": 2})):
        response = api.put(f"{BASE}/{conversation}/{path}", body, format="json", **personas.owner.headers)
        assert response.json()["ttl_seconds"] == 500_000
    api.post(f"{BASE}/{conversation}/scratchpad/append", {"content": "y"}, format="json", **personas.owner.headers)
    assert raw_redis.ttl(key) > 400_000  # type: ignore[operator]
