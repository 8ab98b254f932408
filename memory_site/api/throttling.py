from __future__ import annotations

import logging
import time
from typing import Any

import redis
from django.conf import settings
from rest_framework.throttling import BaseThrottle

from memory_site.redis_client import get_redis

logger = logging.getLogger(__name__)

_PERIODS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hour": 3600, "d": 86400, "day": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    count, _, period = rate.partition("/")
    return int(count), _PERIODS[period]


class Window:
    """The current fixed window of API_THROTTLE_RATE for one client identity."""

    def __init__(self, ident: str) -> None:
        self.limit, self.period = parse_rate(settings.API_THROTTLE_RATE)
        self.now = time.time()
        self.index = int(self.now // self.period)
        self.key = f"throttle:{ident}:{self.period}:{self.index}"
        self.ttl = self.period + 1

    def wait(self) -> float:
        return (self.index + 1) * self.period - self.now


class OwnerRateThrottle(BaseThrottle):
    """API_THROTTLE_RATE requests per API key (or per logged-in user, or per address).

    A fixed-window counter in Redis: one INCR + EXPIRE per request, O(1) whatever the rate (DRF's
    SimpleRateThrottle stores and re-writes the whole request history on every request). Requests
    with an API key are counted by ApiKeyAuthentication, in the round trip that authenticates them;
    this class counts the others. If Redis is down requests go through: refusing all traffic because
    the counter is unreachable would turn a Redis blip into a full outage.
    """

    def __init__(self) -> None:
        self.wait_seconds: float | None = None

    def ident(self, request: Any) -> str:
        prefix = getattr(getattr(request, "auth", None), "prefix", None)
        if prefix:
            return f"key:{prefix}"
        if request.user and request.user.is_authenticated:
            return f"user:{request.user.pk}"
        return f"addr:{self.get_ident(request)}"

    def allow_request(self, request: Any, view: Any) -> bool:
        if getattr(getattr(request, "auth", None), "prefix", None):
            return True  # counted at authentication
        window = Window(self.ident(request))
        try:
            pipe = get_redis().pipeline(transaction=False)
            pipe.incr(window.key)
            pipe.expire(window.key, window.ttl)
            count = int(pipe.execute()[0])
        except redis.RedisError:
            logger.warning("throttle skipped: Redis unavailable")
            return True
        if count <= window.limit:
            return True
        self.wait_seconds = window.wait()
        return False

    def wait(self) -> float | None:
        return self.wait_seconds
