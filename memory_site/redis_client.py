"""The process-wide Redis client, tuned to fail fast, behind a circuit breaker shared by the process.

redis-py otherwise retries a refused connection with backoff, and a Redis that is frozen rather than
down (SIGSTOP, a network partition, an overloaded server) makes every command wait out its socket
timeout — several per request (the API key cache, the rate limit, the operation), so every request
would take seconds. Here a command waits at most REDIS_SOCKET_TIMEOUT once; a timeout or a refused
connection opens the breaker for REDIS_BREAKER_SECONDS, during which every command of every thread
of the process fails at once with `redis.ConnectionError` (callers already treat that as "Redis is
unavailable": working memory answers 503, authentication reads PostgreSQL, the rate limit lets the
request through). When the time is up one command tries again: success closes the breaker, failure
opens it again. So one request pays for discovering an outage, and recovery takes at most
REDIS_BREAKER_SECONDS after Redis is back.
"""

from __future__ import annotations

import functools
import threading
import time
from typing import Any

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.client import Pipeline
from redis.retry import Retry

_FAILURES = (redis.ConnectionError, redis.TimeoutError)


class Breaker:
    """Open after a failure for `seconds`; then one caller at a time probes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open_until = 0.0
        self._probing = False

    @property
    def is_open(self) -> bool:
        return time.monotonic() < self._open_until

    def allow(self) -> bool:
        if self._open_until == 0.0:
            return True
        with self._lock:
            now = time.monotonic()
            if now < self._open_until or self._probing:
                return False
            self._probing = True  # half-open: this caller probes, the others still fail fast
            return True

    def failure(self) -> None:
        with self._lock:
            self._open_until = time.monotonic() + settings.REDIS_BREAKER_SECONDS
            self._probing = False

    def success(self) -> None:
        if self._open_until == 0.0:
            return
        with self._lock:
            self._open_until = 0.0
            self._probing = False

    def reset(self) -> None:
        self.success()


BREAKER = Breaker()
UNAVAILABLE = "Redis is unavailable (circuit open after a failure; retried shortly)"


def _guarded(call: Any) -> Any:
    if not BREAKER.allow():
        raise redis.ConnectionError(UNAVAILABLE)
    try:
        result = call()
    except _FAILURES:
        BREAKER.failure()
        raise
    except AttributeError as exc:
        # redis-py raced on a connection closed under it ("'NoneType' object has no attribute 'sendall'", seen
        # once under the suite's concurrent requests): this call failed as if Redis blipped, so the caller
        # degrades as it does for an unavailable Redis; the breaker stays closed, the next call reconnects.
        BREAKER.success()
        raise redis.ConnectionError(f"Redis client error: {exc}") from exc
    except BaseException:
        # Redis answered with an error (NOSCRIPT, a wrong type, …) or the caller's own code raised: either
        # way this call is over, and a probe that ended so must not keep every later call failing fast.
        BREAKER.success()
        raise
    BREAKER.success()
    return result


class GuardedPipeline(Pipeline):
    def execute(self, raise_on_error: bool = True) -> list[Any]:
        return _guarded(lambda: super(GuardedPipeline, self).execute(raise_on_error))  # type: ignore[no-any-return]


class GuardedRedis(redis.Redis):
    def execute_command(self, *args: Any, **options: Any) -> Any:
        return _guarded(lambda: super(GuardedRedis, self).execute_command(*args, **options))

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> GuardedPipeline:
        return GuardedPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)


def redis_options() -> dict[str, object]:
    return {
        "socket_connect_timeout": settings.REDIS_SOCKET_TIMEOUT,
        "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
        # One retry for a connection found broken (Redis restarted), none for a timeout: a frozen
        # server would make it wait twice.
        "retry": Retry(NoBackoff(), retries=1, supported_errors=(redis.ConnectionError,)),
        "health_check_interval": 30,
    }


@functools.cache
def get_redis() -> redis.Redis:
    return GuardedRedis.from_url(settings.REDIS_URL, decode_responses=True, **redis_options())  # type: ignore[arg-type]
