"""A Redis cache of authenticated API keys, so that the API's hot paths do not query PostgreSQL on
every request (bench/working_memory.py: the key lookup was a third of a working-memory request).

    auth:key:{key_hash}   JSON of the key, its agent and owner        TTL API_KEY_CACHE_SECONDS
    auth:touch:{prefix}   present while last_used_at is fresh enough  TTL API_KEY_TOUCH_INTERVAL

Revoking a key and changing an agent drop their entries at once; a change made outside the services
(deactivating a user in the admin, deleting rows by hand) reaches the API within API_KEY_CACHE_SECONDS.
The cache is only a shortcut: when Redis is unreachable, authentication reads PostgreSQL as before.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import redis
from django.conf import settings
from django.contrib.auth.models import User

from accounts.models import Agent, ApiKey
from accounts.selectors import built
from memory_site.redis_client import get_redis

logger = logging.getLogger(__name__)

_KEY_FIELDS = ("id", "agent_id", "name", "prefix", "created_at", "last_used_at", "revoked_at")
_AGENT_FIELDS = ("id", "owner_id", "name", "description", "config", "created_at", "updated_at")
_USER_FIELDS = ("id", "username", "is_active", "is_staff", "is_superuser")
_DATES = {"created_at", "last_used_at", "revoked_at", "updated_at"}


def cache_key(key_hash: str) -> str:
    return f"auth:key:{key_hash}"


def touch_key(prefix: str) -> str:
    return f"auth:touch:{prefix}"


def _dump(obj: Any, fields: Iterable[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in fields:
        value = getattr(obj, name)
        out[name] = (
            value.isoformat() if isinstance(value, datetime) else str(value) if isinstance(value, uuid.UUID) else value
        )
    return out


def _load(model: type[Any], data: dict[str, Any], fields: tuple[str, ...]) -> Any:
    values: list[Any] = [datetime.fromisoformat(data[f]) if f in _DATES and data[f] else data[f] for f in fields]
    if model is Agent:
        values[0] = uuid.UUID(values[0])
    if model is ApiKey:
        values[1] = uuid.UUID(values[1])
    return built(model, fields, values)


@dataclass(frozen=True)
class Lookup:
    api_key: ApiKey | None  # None: not cached (or Redis unreachable)
    touch_due: bool | None  # None: Redis unreachable, let the row decide
    counted: int | None  # requests so far in the rate window, when a counter was given


def lookup(*, key_hash: str, prefix: str, counter: tuple[str, int] | None = None) -> Lookup:
    """One round trip for everything a request needs from Redis before its own work: the cached key,
    the last_used_at marker (claimed with SET NX, so across all web processes one request per
    interval writes), and, given `counter` = (key, ttl), the rate-limit count (INCR)."""
    try:
        pipe = get_redis().pipeline(transaction=False)
        pipe.get(cache_key(key_hash))
        pipe.set(touch_key(prefix), "1", nx=True, ex=settings.API_KEY_TOUCH_INTERVAL)
        if counter is not None:
            pipe.incr(counter[0])
            pipe.expire(counter[0], counter[1])
        results = pipe.execute()
    except redis.RedisError:
        logger.warning("API key cache unavailable; reading PostgreSQL")
        return Lookup(api_key=None, touch_due=None, counted=None)
    cached, touch_due = results[0], bool(results[1])
    counted = int(results[2]) if counter is not None else None
    if cached is None:
        return Lookup(api_key=None, touch_due=touch_due, counted=counted)
    return Lookup(api_key=_loaded(cached), touch_due=touch_due, counted=counted)


def peek(*, key_hash: str) -> ApiKey | None:
    """The cached key (agent and owner loaded) without claiming the marker or counting: None when it is
    not cached. Redis errors are the caller's (ledger.fastlane hands the request to Django on them)."""
    cached = get_redis().get(cache_key(key_hash))
    return None if cached is None else _loaded(cached)


def _loaded(cached: str | bytes) -> ApiKey:
    data = json.loads(cached)
    api_key = _load(ApiKey, data["key"], _KEY_FIELDS)
    api_key.agent = _load(Agent, data["agent"], _AGENT_FIELDS)
    api_key.agent.owner = _load(User, data["owner"], _USER_FIELDS)
    return api_key


def store(*, key_hash: str, api_key: ApiKey) -> None:
    blob = json.dumps(
        {
            "key": _dump(api_key, _KEY_FIELDS),
            "agent": _dump(api_key.agent, _AGENT_FIELDS),
            "owner": _dump(api_key.agent.owner, _USER_FIELDS),
        }
    )
    try:
        get_redis().set(cache_key(key_hash), blob, ex=settings.API_KEY_CACHE_SECONDS)
    except redis.RedisError:
        logger.warning("API key cache unavailable; not caching")


def forget(*, key_hashes: Iterable[str]) -> None:
    keys = [cache_key(key_hash) for key_hash in key_hashes]
    if not keys:
        return
    try:
        get_redis().delete(*keys)
    except redis.RedisError:
        # Entries expire on their own within API_KEY_CACHE_SECONDS.
        logger.warning("API key cache unavailable; entries expire within %ss", settings.API_KEY_CACHE_SECONDS)
