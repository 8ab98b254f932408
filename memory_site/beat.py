"""Celery beat's scheduler: django-celery-beat's database scheduler (schedules are edited in the
admin) that also leaves a heartbeat in Redis, so `/health` can tell whether beat is alive, and sends each
scheduled job once per period even when two beats run by mistake (issue 19 §3): before sending, a beat
claims `loci:beat:sent:<entry>` in Redis for nine tenths of the entry's period (the time to its next run
counted from now); a second beat whose turn comes within that time skips its send. A beat never sends
early, so the claiming beat's own next send finds the claim expired, while the other beat, whatever its
phase, meets a live claim: one send per period even when the machine's load makes ticks late (a claim of
half a period let a late tick through: 6 sends where 5 were due). Redis
unreachable: the beat sends (twice is harmless — every job is idempotent and holds its advisory lock —
never is not)."""

from __future__ import annotations

import logging
import time
from typing import Any

import redis
from django.conf import settings
from django_celery_beat.schedulers import DatabaseScheduler

logger = logging.getLogger(__name__)

HEARTBEAT_KEY = "loci:beat:heartbeat"
SENT_KEY = "loci:beat:sent:{}"
# Beat ticks at least every `max_interval` (5 s for the database scheduler); the key outlives a few
# missed ticks before /health calls beat down.
HEARTBEAT_TTL = 60
_HEARTBEAT_EVERY = 10
CLAIM_SHARE = 0.9  # of the period a send's claim holds


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

    def apply_async(self, entry: Any, producer: Any = None, advance: bool = True, **kwargs: Any) -> Any:
        if not self._claim(entry):
            logger.info("beat: %s was sent by another beat this period; not sending it again", entry.name)
            return None
        return super().apply_async(entry, producer=producer, advance=advance, **kwargs)

    def _claim(self, entry: Any) -> bool:
        try:
            until_next = entry.schedule.remaining_estimate(self.app.now()).total_seconds()
        except Exception:  # noqa: BLE001 - a schedule that cannot say: send, as beat would
            return True
        hold_ms = max(1, int(until_next * CLAIM_SHARE * 1000))
        try:
            client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
            claimed = client.set(SENT_KEY.format(entry.name), str(time.time()), nx=True, px=hold_ms)
            client.close()
        except redis.RedisError:
            logger.warning("beat could not reach Redis to claim %s; sending it", entry.name, exc_info=True)
            return True
        return bool(claimed)
