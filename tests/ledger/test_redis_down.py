"""A real Redis of this test's own is stopped and started again: working memory and the ledger answer
503 quickly while it is down, the rest of the API keeps serving, and both recover without a restart."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from ledger.redis_store import MESSAGE_LEDGER_UNAVAILABLE, MESSAGE_WM_UNAVAILABLE
from memory_site import embedded
from tests.conftest import Personas

pytestmark = pytest.mark.django_db


def test_redis_down_is_a_quick_503_and_recovery_needs_no_restart(
    api: APIClient, personas: Personas, conversation: str, own_redis: Path
) -> None:
    h = personas.owner.headers
    wm = f"/api/v1/working-memory/{conversation}"
    assert api.put(wm, {"fields": {"kept": 1}}, format="json", **h).status_code == 200

    embedded.stop_redis(own_redis)
    started = time.monotonic()
    calls = [
        (api.get(wm, **h), MESSAGE_WM_UNAVAILABLE),
        (api.put(wm, {"fields": {"x": 1}}, format="json", **h), MESSAGE_WM_UNAVAILABLE),
        (api.post(f"{wm}/scratchpad/append", {"content": "x"}, format="json", **h), MESSAGE_WM_UNAVAILABLE),
        (api.get(f"/working-memory/{conversation}", **h), MESSAGE_WM_UNAVAILABLE),
        (
            api.post(f"/api/v1/ledger/{conversation}/check", {"item": "s"}, format="json", **h),
            MESSAGE_LEDGER_UNAVAILABLE,
        ),
    ]
    elapsed = time.monotonic() - started
    for response, message in calls:
        assert response.status_code == 503
        assert response.json() == {"message": message, "extra": {}}
    assert elapsed < 10, f"five calls took {elapsed:.1f}s while Redis was down"  # no hanging request

    # What does not need Redis keeps working; health says Redis is down.
    assert api.get("/api/v1/agents/me", **h).status_code == 200
    health = api.get("/health").json()
    assert health["components"]["redis"]["status"] == "down"

    embedded.start_redis(own_redis)
    back = time.monotonic()
    response = api.get(wm, **h)
    while response.status_code == 503 and time.monotonic() - back < 2 * settings.REDIS_BREAKER_SECONDS + 1:
        time.sleep(0.1)  # the circuit breaker tries Redis again REDIS_BREAKER_SECONDS after the failure
        response = api.get(wm, **h)
    assert (response.status_code, response.json()) == (200, {"kept": 1})  # appendonly: data survived
    assert api.post(f"/api/v1/ledger/{conversation}/mark", {"item": "s"}, format="json", **h).status_code == 200
