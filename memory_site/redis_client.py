"""The process-wide Redis client, tuned to fail fast: redis-py 8 otherwise retries a refused
connection ten times with backoff, so an outage would take seconds to notice instead of one attempt."""

from __future__ import annotations

import functools

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry


def redis_options() -> dict[str, object]:
    return {
        "socket_connect_timeout": 1.0,
        "socket_timeout": settings.REDIS_SOCKET_TIMEOUT,
        "retry": Retry(NoBackoff(), retries=1),
        "health_check_interval": 30,
    }


@functools.cache
def get_redis() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, decode_responses=True, **redis_options())  # type: ignore[arg-type]
