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


class OwnerRateThrottle(BaseThrottle):
    """API_THROTTLE_RATE requests per API key (or per logged-in user, or per address).

    A fixed-window counter in Redis: one pipelined INCR + EXPIRE per request, O(1) whatever the rate
    (DRF's SimpleRateThrottle stores and re-writes the whole request history on every request). If
    Redis is down the throttle lets requests through: refusing all traffic because the counter is
    unreachable would turn a Redis blip into a full outage.
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
        limit, period = parse_rate(settings.API_THROTTLE_RATE)
        now = time.time()
        window = int(now // period)
        key = f"throttle:{self.ident(request)}:{period}:{window}"
        try:
            pipe = get_redis().pipeline(transaction=False)
            pipe.incr(key)
            pipe.expire(key, period + 1)
            count = int(pipe.execute()[0])
        except redis.RedisError:
            logger.warning("throttle skipped: Redis unavailable")
            return True
        if count <= limit:
            return True
        self.wait_seconds = (window + 1) * period - now
        return False

    def wait(self) -> float | None:
        return self.wait_seconds
