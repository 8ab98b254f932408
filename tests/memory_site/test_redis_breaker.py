"""The Redis circuit breaker's probe (memory_site/redis_client.py): whatever way the probing call ends, the
breaker is not left half-open with every later call failing fast."""

from __future__ import annotations

import time

import pytest
import redis
from django.test import override_settings

from memory_site.redis_client import BREAKER, _guarded


def _fail() -> None:
    raise redis.TimeoutError("frozen")


@override_settings(REDIS_BREAKER_SECONDS=0.05)
def test_a_probe_answered_with_an_error_closes_the_breaker() -> None:
    try:
        with pytest.raises(redis.TimeoutError):
            _guarded(_fail)
        assert BREAKER.is_open
        with pytest.raises(redis.ConnectionError):  # open: fails at once, nothing is called
            _guarded(lambda: "not called")
        time.sleep(0.06)

        def noscript() -> None:
            raise redis.ResponseError("NOSCRIPT No matching script")

        with pytest.raises(redis.ResponseError):  # the probe: Redis answered, with an error
            _guarded(noscript)
        assert _guarded(lambda: "answered") == "answered"  # closed, not stuck half-open
    finally:
        BREAKER.reset()


def test_a_client_that_raced_on_a_closed_socket_fails_like_a_blip_and_leaves_the_breaker_closed() -> None:
    def raced() -> None:
        sock = None
        sock.sendall(b"PING")  # type: ignore[attr-defined]

    with pytest.raises(redis.ConnectionError):
        _guarded(raced)
    assert not BREAKER.is_open and _guarded(lambda: "answered") == "answered"
