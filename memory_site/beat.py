"""Celery beat's scheduler: django-celery-beat's database scheduler (schedules are edited in the
admin) that also leaves a heartbeat in Redis, so `/health` can tell whether beat is alive."""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from django.conf import settings
from django_celery_beat.schedulers import DatabaseScheduler

logger = logging.getLogger(__name__)

HEARTBEAT_KEY = "loci:beat:heartbeat"
# Beat ticks at least every `max_interval` (5 s for the database scheduler); the key outlives a few
# missed ticks before /health calls beat down.
HEARTBEAT_TTL = 60
_HEARTBEAT_EVERY = 10


class HeartbeatDatabaseScheduler(DatabaseScheduler):  # type: ignore[misc]
    _last_heartbeat = 0.0

    def tick(self, *args: Any, **kwargs: Any) -> float:
        now = time.monotonic()
        if now - self._last_heartbeat >= _HEARTBEAT_EVERY:
            self._last_heartbeat = now
            try:
                client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
                client.set(HEARTBEAT_KEY, str(time.time()), ex=HEARTBEAT_TTL)
                client.close()
            except redis.RedisError:
                # Beat keeps scheduling when Redis blips; /health reports beat down until it is back.
                logger.warning("beat heartbeat could not reach Redis", exc_info=True)
        return float(super().tick(*args, **kwargs))
