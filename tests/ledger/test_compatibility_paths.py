"""The reference service's paths (the reference memory service) answer with the same shapes, by API key."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.conftest import Personas

pytestmark = pytest.mark.django_db


def test_working_memory_at_the_reference_path(api: APIClient, personas: Personas, conversation: str) -> None:
    h = personas.owner.headers
    assert api.get(f"/working-memory/{conversation}", **h).json() == {}
    assert (
        api.put(f"/working-memory/{conversation}", {"fields": {"well_api": "42-123"}}, format="json", **h).status_code
        == 200
    )
    assert (
        api.put(
            f"/working-memory/{conversation}", {"fields": {"x": 1}, "ttl_seconds": 60}, format="json", **h
        ).status_code
        == 200
    )
    # Both addresses are one store.
    assert api.get(f"/api/v1/working-memory/{conversation}", **h).json() == {"well_api": "42-123", "x": 1}
    assert api.delete(f"/working-memory/{conversation}", {"fields": ["x"]}, format="json", **h).json()["deleted"] == 1
    too_big = api.put(f"/working-memory/{conversation}", {"fields": {"b": "x" * 70_000}}, format="json", **h)
    assert too_big.status_code == 413 and set(too_big.json()) == {"message", "extra"}
    api.delete(f"/working-memory/{conversation}", **h)
    assert api.get(f"/working-memory/{conversation}", **h).json() == {}


def test_ledger_at_the_reference_paths(api: APIClient, personas: Personas, conversation: str) -> None:
    h = personas.owner.headers
    assert api.post(f"/ledger/{conversation}/mark", {"item": "skill-a"}, format="json", **h).status_code == 200
    assert api.post(f"/ledger/{conversation}/check", {"item": "skill-a"}, format="json", **h).json()["injected"] is True
    assert api.get(f"/ledger/{conversation}", **h).json() == {"skill-a": "injected"}
    assert api.post(f"/ledger/{conversation}/evict", {"item": "skill-a"}, format="json", **h).json()["evicted"] is True
    assert api.get(f"/api/v1/ledger/{conversation}", **h).json() == {}


def test_the_reference_paths_need_a_key_and_answer_the_envelope(api: APIClient, conversation: str) -> None:
    for response in (
        api.get(f"/working-memory/{conversation}"),
        api.post(f"/ledger/{conversation}/check", {"item": "a"}, format="json"),
    ):
        assert response.status_code == 401 and set(response.json()) == {"message", "extra"}
    assert api.get("/working-memory/a/b/c").status_code == 404
    assert set(api.get("/working-memory/a/b/c").json()) == {"message", "extra"}
