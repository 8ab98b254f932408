from __future__ import annotations

import pytest
import redis
from rest_framework.test import APIClient

from ledger import redis_store
from tests.conftest import Personas

pytestmark = pytest.mark.django_db


def test_check_mark_get_all_and_evict(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    base = f"/api/v1/ledger/{conversation}"
    h = personas.owner.headers
    assert api.get(base, **h).json() == {}
    assert api.post(f"{base}/check", {"item": "skill:rule-37"}, format="json", **h).json() == {
        "item": "skill:rule-37",
        "injected": False,
    }

    marked = api.post(f"{base}/mark", {"item": "skill:rule-37"}, format="json", **h).json()
    assert marked == {"item": "skill:rule-37", "value": "injected", "newly_marked": True}
    again = api.post(f"{base}/mark", {"item": "skill:rule-37"}, format="json", **h).json()
    assert again["newly_marked"] is False
    api.post(f"{base}/mark", {"item": "block:7", "value": "1"}, format="json", **h)

    assert api.post(f"{base}/check", {"item": "skill:rule-37"}, format="json", **h).json()["injected"] is True
    assert api.get(base, **h).json() == {"skill:rule-37": "injected", "block:7": "1"}
    key = redis_store.ledger_key(personas.owner.user.pk, conversation)
    assert raw_redis.hgetall(key) == {"skill:rule-37": "injected", "block:7": "1"}
    assert key == f"skill:ledger:{personas.owner.user.pk}:{conversation}"

    assert api.post(f"{base}/evict", {"item": "skill:rule-37"}, format="json", **h).json() == {
        "item": "skill:rule-37",
        "evicted": True,
    }
    assert api.post(f"{base}/evict", {"item": "skill:rule-37"}, format="json", **h).json()["evicted"] is False
    assert api.post(f"{base}/check", {"item": "skill:rule-37"}, format="json", **h).json()["injected"] is False
    # Evicted items may be injected again.
    assert api.post(f"{base}/mark", {"item": "skill:rule-37"}, format="json", **h).json()["newly_marked"] is True


def test_the_ledger_follows_the_conversations_ttl_policy(
    api: APIClient, personas: Personas, conversation: str, raw_redis: redis.Redis
) -> None:
    h = personas.owner.headers
    key = redis_store.ledger_key(personas.owner.user.pk, conversation)
    api.post(f"/api/v1/ledger/{conversation}/mark", {"item": "s"}, format="json", **h)
    assert 86390 <= raw_redis.ttl(key) <= 86400  # type: ignore[operator]
    # A paused conversation (long working-memory TTL) keeps its ledger as long.
    api.put(
        f"/api/v1/working-memory/{conversation}", {"fields": {"gate": 1}, "ttl_seconds": 5 * 86400}, format="json", **h
    )
    api.post(f"/api/v1/ledger/{conversation}/check", {"item": "s"}, format="json", **h)
    assert raw_redis.ttl(key) > 4 * 86400  # type: ignore[operator]


def test_ledgers_are_per_owner(api: APIClient, personas: Personas, conversation: str) -> None:
    api.post(f"/api/v1/ledger/{conversation}/mark", {"item": "s"}, format="json", **personas.owner.headers)
    assert api.get(f"/api/v1/ledger/{conversation}", **personas.teammate.headers).json() == {"s": "injected"}
    assert api.get(f"/api/v1/ledger/{conversation}", **personas.outsider.headers).json() == {}
    check = api.post(f"/api/v1/ledger/{conversation}/check", {"item": "s"}, format="json", **personas.outsider.headers)
    assert check.json()["injected"] is False


@pytest.mark.parametrize(
    "body", [{}, {"item": ""}, {"item": 5}, {"item": "x" * 257}, ["s"], {"item": "s", "value": "v" * 1025}]
)
def test_bad_ledger_bodies_are_400(api: APIClient, personas: Personas, conversation: str, body: object) -> None:
    response = api.post(f"/api/v1/ledger/{conversation}/mark", body, format="json", **personas.owner.headers)
    assert response.status_code == 400 and set(response.json()) == {"message", "extra"}
    assert api.get(f"/api/v1/ledger/{conversation}", **personas.owner.headers).json() == {}
