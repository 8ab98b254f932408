from __future__ import annotations

import logging
from typing import Any

import redis
from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger(__name__)


class OwnerRateThrottle(SimpleRateThrottle):
    """Requests per API key (or per logged-in user, or per address), at API_THROTTLE_RATE.

    Counts live in the Redis cache. If Redis is down the throttle lets requests through: refusing all
    traffic because the rate counter is unreachable would turn a Redis blip into a full outage.
    """

    scope = "api"

    def get_rate(self) -> str:
        return str(settings.API_THROTTLE_RATE)

    def get_cache_key(self, request: Any, view: Any) -> str:
        auth = getattr(request, "auth", None)
        prefix = getattr(auth, "prefix", None)
        if prefix:
            ident = f"key:{prefix}"
        elif request.user and request.user.is_authenticated:
            ident = f"user:{request.user.pk}"
        else:
            ident = f"addr:{self.get_ident(request)}"
        return f"throttle:{self.scope}:{ident}"

    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            return bool(super().allow_request(request, view))
        except redis.RedisError:
            logger.warning("throttle skipped: Redis unavailable")
            return True
