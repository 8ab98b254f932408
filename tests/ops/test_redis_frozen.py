"""A Redis that stops answering (SIGSTOP: a network partition or an overloaded server, not a refused
connection) costs one short timeout, not every request's: working memory answers 503 within a second,
what does not need Redis keeps its normal latency, and everything recovers within seconds of SIGCONT."""

from __future__ import annotations

import os
import signal
import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from memory_site import embedded
from tests.conftest import Personas
from tests.palace.recall_data import mine

pytestmark = pytest.mark.django_db


@pytest.fixture
def frozen(own_redis: Path) -> Iterator[Callable[[bool], None]]:
    """freeze(True) stops the test's own Redis process with SIGSTOP, freeze(False) lets it go on."""
    pid = int(embedded.StatePaths(own_redis).redis_pidfile.read_text().strip())

    def freeze(stop: bool) -> None:
        os.kill(pid, signal.SIGSTOP if stop else signal.SIGCONT)

    try:
        yield freeze
    finally:
        os.kill(pid, signal.SIGCONT)


def _timed(call: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    response = call()
    return time.perf_counter() - started, response


def test_a_frozen_redis_costs_one_short_timeout_and_recovery_needs_no_restart(
    api: APIClient, personas: Personas, frozen: Callable[[bool], None]
) -> None:
    h = personas.owner.headers
    mine(personas.owner.user, "c1", [{"role": "user", "content": "The ridge trail near Boulder is steep."}])
    wm = "/api/v1/working-memory/conv-frozen"
    others: dict[str, Callable[[], object]] = {
        "recall": lambda: api.post("/api/v1/recall", {"query": "ridge trail"}, format="json", **h),
        "wings": lambda: api.get("/api/v1/palace/wings", **h),
        "agent": lambda: api.get("/api/v1/agents/me", **h),
    }
    assert api.put(wm, {"fields": {"kept": 1}}, format="json", **h).status_code == 200
    normal = {}
    for name, call in others.items():
        for _ in range(2):
            call()  # warm: key cache, query embedding, connections
        normal[name] = statistics.median(_timed(call)[0] for _ in range(3))

    frozen(True)
    took, response = _timed(lambda: api.get(wm, **h))
    assert response.status_code == 503  # type: ignore[attr-defined]
    assert took < 1.0, f"working memory took {took:.2f}s to answer 503 with Redis frozen"
    for name, call in others.items():
        took, response = _timed(call)
        assert response.status_code == 200, name  # type: ignore[attr-defined]
        usual = normal[name]
        assert took < usual + 0.1, f"{name}: {took * 1000:.0f} ms with Redis frozen, {usual * 1000:.0f} normally"
    took, response = _timed(lambda: api.get("/health"))
    assert response.json()["components"]["redis"]["status"] == "down"  # type: ignore[attr-defined]
    assert took < 1.0

    frozen(False)
    back = time.monotonic()
    while api.get(wm, **h).status_code != 200:
        assert time.monotonic() - back < 5, "working memory did not recover within 5 s of SIGCONT"
        time.sleep(0.05)
    assert api.get(wm, **h).json() == {"kept": 1}
    assert time.monotonic() - back <= settings.REDIS_BREAKER_SECONDS + 1
