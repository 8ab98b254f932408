"""Writes for identity: users, agents, API keys, memory settings."""

from __future__ import annotations

import hashlib
import secrets
import string
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from accounts import auth_cache, selectors
from accounts.models import Agent, ApiKey, MemorySettings, UsageRecord, validate_timezone
from memory_site.lib.errors import ConflictError, InvalidFieldError, NotFoundError
from palace.models import ActivityEvent

API_KEY_SCHEME = "loci"
_PREFIX_ALPHABET = string.ascii_lowercase + string.digits
_PREFIX_LENGTH = 8

MESSAGE_AGENT_NAME_TAKEN = "An agent with this name already exists."
MESSAGE_MEMORY_PAUSED = "Memory is paused for this user: nothing was stored."
MESSAGE_AGENT_NOT_FOUND = "Agent not found."
MESSAGE_TOP_K = "Must be between 1 and 50."
MESSAGE_EMBEDDING_MODEL = "Not one of the offered models (their vectors must fit the column): {offered}."


class AgentNameTaken(ConflictError):
    message = MESSAGE_AGENT_NAME_TAKEN


class MemoryPaused(ConflictError):
    """409, with `extra.reason = "memory_paused"` and `extra.stored = false`.

    Not a 2xx with `stored: false`: a client that only checks the status (most do) would take the
    write as kept, and the person's pause would silently lose what the agent believes it saved. Not a
    403 either: the key is fine; the memory's current state (paused by its owner, undone by turning
    memory back on) conflicts with the write, which is what 409 says."""

    message = MESSAGE_MEMORY_PAUSED

    def __init__(self) -> None:
        super().__init__(MESSAGE_MEMORY_PAUSED, extra={"reason": "memory_paused", "stored": False})


class AgentMissing(NotFoundError):
    message = MESSAGE_AGENT_NOT_FOUND


@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    raw_key: str  # shown once; never stored


def api_key_hash(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


def user_ensure(*, username: str, password: str | None = None, is_superuser: bool = False) -> tuple[User, bool]:
    """Get or create a user (and their memory settings). A new user without a password cannot log in."""
    with transaction.atomic():
        user, created = User.objects.get_or_create(username=username)
        if created:
            if password:
                user.set_password(password)
            else:
                user.set_unusable_password()
            user.is_staff = user.is_superuser = is_superuser
            user.save()
        memory_settings_ensure(user=user)
    return user, created


def memory_settings_ensure(*, user: User) -> MemorySettings:
    settings_row, _ = MemorySettings.objects.get_or_create(user=user)
    return settings_row


def memory_require_enabled(*, owner: User) -> MemorySettings:
    """The owner's settings; raises MemoryPaused when memory is off (nothing may be persisted)."""
    memory_settings = memory_settings_ensure(user=owner)
    if not memory_settings.enabled:
        raise MemoryPaused
    return memory_settings


SETTINGS_FIELDS = ("enabled", "top_k", "use_rerank", "rerank_model", "embedding_model", "auto_mine", "timezone")
OVERRIDE_FIELDS = ("recall_disabled", "mining_paused")


def _check_settings(data: dict[str, Any]) -> None:
    if "top_k" in data and not 1 <= int(data["top_k"]) <= 50:
        raise InvalidFieldError("top_k", MESSAGE_TOP_K)
    if "timezone" in data:
        try:
            validate_timezone(data["timezone"])
        except DjangoValidationError as exc:
            raise InvalidFieldError("timezone", exc.messages[0]) from None
    offered = selectors.embedding_models_offered()
    if data.get("embedding_model") and data["embedding_model"] not in offered:
        raise InvalidFieldError("embedding_model", MESSAGE_EMBEDDING_MODEL.format(offered=", ".join(offered)))


def memory_settings_update(*, user: User, data: dict[str, Any]) -> MemorySettings:
    """Change the given settings (partial: absent fields keep their value) and, under `agents`, the
    per-agent overrides; all or nothing. Every change is logged as a `settings_changed` event with
    its old and new values. Turning memory back on sends the mining jobs the pause held back."""
    _check_settings(data)
    with transaction.atomic():
        memory_settings_ensure(user=user)
        row = MemorySettings.objects.select_for_update().get(user=user)
        changes = {
            field: {"old": getattr(row, field), "new": data[field]}
            for field in SETTINGS_FIELDS
            if field in data and data[field] != getattr(row, field)
        }
        for field, change in changes.items():
            setattr(row, field, change["new"])
        if changes:
            row.save()
            ActivityEvent.objects.create(
                owner=user, kind="settings_changed", data={"fields": sorted(changes), "changes": changes}
            )
        if data.get("agents"):
            agent_overrides_update(owner=user, overrides=data["agents"])
        if changes.get("enabled", {}).get("new") is True:
            _jobs_resume(owner_id=user.pk)
    return row


def _jobs_resume(*, owner_id: int, agent_id: Any = None) -> None:
    # Imported here: the palace imports accounts (models, metering), so accounts cannot import the
    # palace's services when it loads.
    from palace.services.jobs import jobs_resume

    jobs_resume(owner_id=owner_id, agent_id=agent_id)


def agent_overrides_update(*, owner: User, overrides: list[dict[str, Any]]) -> list[Agent]:
    """Set `recall_disabled` / `mining_paused` on the owner's agents: `[{agent_id, recall_disabled?,
    mining_paused?}]`. An id that is not one of the owner's agents is a 404 and nothing changes.
    Resuming an agent's mining sends its held-back jobs."""
    with transaction.atomic():
        agents = []
        for override in overrides:
            agent = selectors.agent_get(owner=owner, agent_id=override["agent_id"])
            if agent is None:
                raise AgentMissing(MESSAGE_AGENT_NOT_FOUND, extra={"agent_id": str(override["agent_id"])})
            agents.append(agent)
        for agent, override in zip(agents, overrides, strict=True):
            wanted = {f: bool(override[f]) for f in OVERRIDE_FIELDS if f in override}
            changes = {f: {"old": getattr(agent, f), "new": v} for f, v in wanted.items() if getattr(agent, f) != v}
            if not changes:
                continue
            agent_update(agent=agent, config=wanted)
            ActivityEvent.objects.create(
                owner=owner,
                kind="settings_changed",
                data={"agent_id": str(agent.pk), "fields": sorted(changes), "changes": changes},
            )
            if changes.get("mining_paused", {}).get("new") is False:
                _jobs_resume(owner_id=owner.pk, agent_id=agent.pk)
    return agents


def agent_create(*, owner: User, name: str, description: str = "", config: dict[str, Any] | None = None) -> Agent:
    try:
        with transaction.atomic():
            return Agent.objects.create(owner=owner, name=name, description=description, config=config or {})
    except IntegrityError:
        # The unique (owner, name) constraint decides, so two concurrent creates cannot both win.
        raise AgentNameTaken(MESSAGE_AGENT_NAME_TAKEN) from None


def agent_ensure(*, owner: User, name: str) -> tuple[Agent, bool]:
    agent = Agent.objects.filter(owner=owner, name=name).first()
    if agent is not None:
        return agent, False
    try:
        return agent_create(owner=owner, name=name), True
    except AgentNameTaken:
        return Agent.objects.get(owner=owner, name=name), False


def agent_update(
    *, agent: Agent, name: str | None = None, description: str | None = None, config: dict[str, Any] | None = None
) -> Agent:
    if name is not None:
        agent.name = name
    if description is not None:
        agent.description = description
    if config is not None:
        agent.config = {**agent.config, **config}
    try:
        with transaction.atomic():
            agent.save()
    except IntegrityError:
        raise AgentNameTaken(MESSAGE_AGENT_NAME_TAKEN) from None
    # Authentication caches the agent with its keys: drop those entries so the change shows at once.
    _forget_cached_keys(list(ApiKey.objects.filter(agent=agent).values_list("key_hash", flat=True)))
    return agent


def _forget_cached_keys(key_hashes: list[str]) -> None:
    # Now, and again once the change commits: a request that re-cached the old row in between (it
    # still read the uncommitted-away state) must not keep it for API_KEY_CACHE_SECONDS.
    auth_cache.forget(key_hashes=key_hashes)
    transaction.on_commit(lambda: auth_cache.forget(key_hashes=key_hashes))


def api_key_issue(*, agent: Agent, name: str = "") -> IssuedKey:
    """Mint a key `loci_<prefix>_<secret>`; only its hash is stored, the key itself is returned once."""
    for _ in range(5):
        prefix = "".join(secrets.choice(_PREFIX_ALPHABET) for _ in range(_PREFIX_LENGTH))
        raw_key = f"{API_KEY_SCHEME}_{prefix}_{secrets.token_urlsafe(32)}"
        try:
            with transaction.atomic():
                api_key = ApiKey.objects.create(agent=agent, name=name, prefix=prefix, key_hash=api_key_hash(raw_key))
            return IssuedKey(api_key=api_key, raw_key=raw_key)
        except IntegrityError:
            continue  # a prefix collision (one in 36^8): draw again
    raise RuntimeError("could not draw a unique API key prefix")


def api_key_revoke(*, api_key: ApiKey) -> ApiKey:
    """Revoke a key; revoking twice keeps the first revocation time. Effective at once: the key's
    cached authentication is dropped when the revocation commits."""
    ApiKey.objects.filter(pk=api_key.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    api_key.refresh_from_db(fields=["revoked_at", "key_hash"])
    _forget_cached_keys([api_key.key_hash])
    return api_key


def api_key_prefix(raw_key: str) -> str | None:
    """The display prefix of a well-formed key `loci_<prefix>_<secret>`, else None."""
    parts = raw_key.split("_", 2)
    if len(parts) != 3 or parts[0] != API_KEY_SCHEME or len(raw_key) > 200:
        return None
    return parts[1]


@dataclass(frozen=True)
class Authenticated:
    api_key: ApiKey
    counted: int | None  # the rate-limit count, when a counter was given and Redis answered


def api_key_authenticate(*, raw_key: str, counter: tuple[str, int] | None = None) -> Authenticated | None:
    """The active key for `raw_key` (agent and owner loaded), or None; keeps last_used_at current and,
    given a rate-limit `counter` (key, ttl), counts the request in the same Redis round trip.

    Served from the Redis cache when it can be (no PostgreSQL query on the hot path), else from
    PostgreSQL, then cached."""
    prefix = api_key_prefix(raw_key)
    if prefix is None:
        return None
    key_hash = api_key_hash(raw_key)
    found = auth_cache.lookup(key_hash=key_hash, prefix=prefix, counter=counter)
    api_key = found.api_key
    if api_key is None:
        api_key = selectors.api_key_for_hash(key_hash=key_hash)
        if api_key is None:
            return None
        auth_cache.store(key_hash=key_hash, api_key=api_key)
    api_key_touch(api_key=api_key, due=found.touch_due)
    return Authenticated(api_key=api_key, counted=found.counted)


def api_key_touch(*, api_key: ApiKey, now: datetime | None = None, due: bool | None = None) -> bool:
    """Keep `last_used_at` current with at most one write per key per `API_KEY_TOUCH_INTERVAL`.

    `due` is the Redis marker's verdict (see auth_cache.lookup); without it (Redis down) the loaded
    row decides. Either way most requests write nothing, and the conditional UPDATE makes concurrent
    requests that all see a stale value write once between them.
    """
    now = now or timezone.now()
    threshold = now - timedelta(seconds=settings.API_KEY_TOUCH_INTERVAL)
    if due is False or (due is None and api_key.last_used_at is not None and api_key.last_used_at > threshold):
        return False
    updated = (
        ApiKey.objects.filter(pk=api_key.pk)
        .filter(Q(last_used_at__isnull=True) | Q(last_used_at__lte=threshold))
        .update(last_used_at=now)
    )
    if updated:
        api_key.last_used_at = now
    return bool(updated)


# USD per million input / output tokens of known hosted models; local models cost nothing.
PRICES_PER_MILLION: dict[str, tuple[Decimal, Decimal]] = {
    "text-embedding-3-small": (Decimal("0.02"), Decimal("0")),
    "text-embedding-3-large": (Decimal("0.13"), Decimal("0")),
    "gpt-4o-mini": (Decimal("0.15"), Decimal("0.60")),
    "gpt-4o": (Decimal("2.50"), Decimal("10.00")),
}


def usage_record(
    *,
    owner_id: int,
    source: str,
    provider: str,
    model: str,
    items: int,
    input_tokens: int = 0,
    output_tokens: int = 0,
    succeeded: bool = True,
) -> UsageRecord:
    """Meter one call. On its own (not inside another transaction, e.g. a query embedding for recall),
    the record is committed without waiting for the WAL flush (`synchronous_commit = off`): a crash in
    the next fraction of a second may lose a meter reading, never user data, and recall saves a disk
    sync per query."""
    price_in, price_out = PRICES_PER_MILLION.get(model, (Decimal(0), Decimal(0)))
    cost = (price_in * input_tokens + price_out * output_tokens) / Decimal(1_000_000)
    if connection.in_atomic_block:
        return _usage_create(owner_id, source, provider, model, items, input_tokens, output_tokens, cost, succeeded)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit TO OFF")
        return _usage_create(owner_id, source, provider, model, items, input_tokens, output_tokens, cost, succeeded)


def _usage_create(
    owner_id: int,
    source: str,
    provider: str,
    model: str,
    items: int,
    input_tokens: int,
    output_tokens: int,
    cost: Decimal,
    succeeded: bool,
) -> UsageRecord:
    return UsageRecord.objects.create(
        owner_id=owner_id,
        source=source,
        provider=provider,
        model=model,
        items=items,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost_usd=cost,
        succeeded=succeeded,
    )
