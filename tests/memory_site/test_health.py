from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection
from rest_framework.test import APIClient

from memory_site.beat import HEARTBEAT_KEY
from memory_site.redis_client import get_redis

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_beat() -> Iterator[None]:
    get_redis().delete(HEARTBEAT_KEY)
    yield


def test_health_answers_on_both_paths_without_a_key(api: APIClient, no_beat: None) -> None:
    for path in ("/health", "/api/v1/health"):
        response = api.get(path)
        assert response.status_code == 200
        body = response.json()
        assert body["components"]["database"]["status"] == "up"
        assert body["components"]["redis"]["status"] == "up"
        assert body["components"]["beat"]["status"] == "down"


def test_redis_down_is_degraded_not_down(api: APIClient, unreachable_redis: None) -> None:
    response = api.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    assert {name: c["status"] for name, c in body["components"].items()} == {
        "database": "up",
        "redis": "down",
        "worker": "down",
        "beat": "down",
    }


def test_database_down_is_503(api: APIClient) -> None:
    original = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict["HOST"] = "/nonexistent/loci/postgres"
    try:
        response = api.get("/api/v1/health")
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(original)
    assert response.status_code == 503
    assert response.json()["status"] == "down"
    assert response.json()["components"]["database"]["status"] == "down"
