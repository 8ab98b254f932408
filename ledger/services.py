"""Writes of working memory, its helpers, sharing between agents, persistence, and the injection ledger
(the reads are in `ledger.selectors`).

Every function takes the owner's id and a validated conversation id; the Redis keys, Lua scripts and
the value encoding (JSON, compact, UTF-8) live in `ledger.redis_store`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from accounts.models import Agent
from ledger import redis_store, selectors
from ledger.models import WorkingMemorySnapshot
from memory_site.lib.errors import ConflictError, NotFoundError, ServiceError

MAX_FIELD_NAME_LENGTH: Final = 256
MAX_FIELDS_PER_WRITE: Final = 1000

# Reserved fields of the helpers (the multi-tier reference's WorkingMemoryService), inside the conversation's hash.
SCRATCHPAD: Final = "scratchpad"
ENTITIES: Final = "entities"
CONVERSATION_CONTEXT: Final = "conversation_context"
TASK_STATE: Final = "task_state"
TOOL_STATE_PREFIX: Final = "tool_state:"
INTERMEDIATE_PREFIX: Final = "intermediate:"

MESSAGE_TOO_LARGE: Final = "Working memory would exceed its size limit; nothing was written."
MESSAGE_BUSY: Final = "Working memory changed under this update too many times; try again."
MESSAGE_NO_SNAPSHOT: Final = "No persisted working memory for this conversation."
MESSAGE_NOTHING_TO_PERSIST: Final = "This conversation has no working memory to persist; the saved copy is unchanged."

_CAS_ATTEMPTS: Final = 40
# A lost compare-and-set waits a random while before reading again, the longest wait doubling up to this cap,
# so writers racing on one field take turns instead of one of them losing every round.
_CAS_BACKOFF_CAP_SECONDS: Final = 0.05


class WorkingMemoryTooLarge(ServiceError):
    status_code = 413
    message = MESSAGE_TOO_LARGE

    def __init__(self, size_bytes: int) -> None:
        super().__init__(extra={"size_bytes": size_bytes, "limit_bytes": settings.WORKING_MEMORY_MAX_BYTES})
        self.size_bytes = size_bytes


class WorkingMemoryBusy(ConflictError):
    message = MESSAGE_BUSY


class SnapshotMissing(NotFoundError):
    message = MESSAGE_NO_SNAPSHOT


class NothingToPersist(ConflictError):
    message = MESSAGE_NOTHING_TO_PERSIST


@dataclass(frozen=True)
class WriteResult:
    size_bytes: int
    ttl_seconds: int


def _ttl(ttl_seconds: int | None) -> int:
    return ttl_seconds or settings.WORKING_MEMORY_TTL


@dataclass(frozen=True)
class _Merged:
    status: int
    size: int
    ttl: int


KEEP_POLICY: Final = 0  # a write that keeps the conversation's TTL policy (the helpers)


def _merge(
    hash_key: str,
    ttl_key: str,
    values: dict[str, str],
    *,
    ttl_seconds: int | None,
    guards: Sequence[tuple[str, str | None]] = (),
) -> _Merged:
    ttl = KEEP_POLICY if ttl_seconds == KEEP_POLICY else _ttl(ttl_seconds)
    args: list[str | int] = [settings.WORKING_MEMORY_MAX_BYTES, ttl, settings.WORKING_MEMORY_TTL, len(guards)]
    for field, expected in guards:
        args += [field, "0" if expected is None else "1", expected or ""]
    for field, value in values.items():
        args += [field, value]
    result = redis_store.run(redis_store.MERGE, [hash_key, ttl_key], args)
    assert isinstance(result, list)
    merged = _Merged(status=int(result[0]), size=int(result[1]), ttl=int(result[2]))
    if merged.status == -1:
        raise WorkingMemoryTooLarge(merged.size)
    return merged


# --- the hash -------------------------------------------------------------------------------------


def working_memory_merge(
    *, owner_id: int, conversation_id: str, fields: dict[str, Any], ttl_seconds: int | None = None
) -> WriteResult:
    """Merge `fields` into the conversation's working memory (never replacing the hash) and set its TTL:
    `ttl_seconds`, else WORKING_MEMORY_TTL; KEEP_POLICY keeps the conversation's current policy."""
    values = {name: redis_store.encode(value) for name, value in fields.items()}
    keys = (
        redis_store.working_memory_key(owner_id, conversation_id),
        redis_store.ttl_policy_key(owner_id, conversation_id),
    )
    with redis_store.redis_errors_as_unavailable(redis_store.MESSAGE_WM_UNAVAILABLE):
        merged = _merge(*keys, values, ttl_seconds=ttl_seconds)
    return WriteResult(size_bytes=merged.size, ttl_seconds=merged.ttl)


def working_memory_delete(*, owner_id: int, conversation_id: str, fields: list[str] | None = None) -> int:
    """Delete the named fields (returns how many existed), or the whole working memory when none are named."""
    keys = [
        redis_store.working_memory_key(owner_id, conversation_id),
        redis_store.ttl_policy_key(owner_id, conversation_id),
    ]
    with redis_store.redis_errors_as_unavailable(redis_store.MESSAGE_WM_UNAVAILABLE):
        deleted = redis_store.run(redis_store.DELETE, keys, [settings.WORKING_MEMORY_TTL, *(fields or [])])
    return int(deleted)  # type: ignore[call-overload]


_MISSING: Final = object()


def working_memory_field_update(
    *, owner_id: int, conversation_id: str, field: str, update: Callable[[Any], Any]
) -> tuple[Any, WriteResult]:
    """Read-modify-write of one field without a lock: `update(current or _MISSING)` gives the new value,
    written only if the field is unchanged since the read (a guard in the MERGE script); a concurrent
    change makes it read again after a random, growing pause. The size limit is checked by the same script."""
    hash_key = redis_store.working_memory_key(owner_id, conversation_id)
    ttl_key = redis_store.ttl_policy_key(owner_id, conversation_id)
    with redis_store.redis_errors_as_unavailable(redis_store.MESSAGE_WM_UNAVAILABLE):
        for attempt in range(_CAS_ATTEMPTS):
            if attempt:
                time.sleep(random.uniform(0, min(_CAS_BACKOFF_CAP_SECONDS, 0.001 * 2**attempt)))
            raw = redis_store.get_redis().hget(hash_key, field)
            value = update(_MISSING if raw is None else redis_store.decode(str(raw)))
            guards = [(field, None if raw is None else str(raw))]
            merged = _merge(
                hash_key, ttl_key, {field: redis_store.encode(value)}, ttl_seconds=KEEP_POLICY, guards=guards
            )
            if merged.status != -2:
                return value, WriteResult(size_bytes=merged.size, ttl_seconds=merged.ttl)
    raise WorkingMemoryBusy(MESSAGE_BUSY)


# --- helpers (the multi-tier reference) -----------------------------------------------------------------------------


def scratchpad_append(*, owner_id: int, conversation_id: str, content: str, separator: str = "\n") -> str:
    def append(current: Any) -> str:
        if current is _MISSING or current in ("", None):
            return content
        return f"{current}{separator}{content}"

    value, _ = working_memory_field_update(
        owner_id=owner_id, conversation_id=conversation_id, field=SCRATCHPAD, update=append
    )
    return str(value)


def conversation_append(*, owner_id: int, conversation_id: str, message: dict[str, Any]) -> list[Any]:
    """Append a message to the conversation context, keeping the newest WORKING_MEMORY_MAX_MESSAGES."""
    limit = settings.WORKING_MEMORY_MAX_MESSAGES

    def append(current: Any) -> list[Any]:
        messages = current if isinstance(current, list) else []
        return [*messages, message][-limit:]

    value, _ = working_memory_field_update(
        owner_id=owner_id, conversation_id=conversation_id, field=CONVERSATION_CONTEXT, update=append
    )
    return list(value)


# --- sharing between the owner's agents ---------------------------------------------------------------


def working_memory_share(*, owner_id: int, source: Agent, target: Agent, key: str, value: Any) -> WriteResult:
    """`source` shares `value` under `key` with `target`; both agents belong to `owner_id` (the caller
    checks). Same size limit and default TTL as a conversation's working memory."""
    assert source.owner_id == owner_id == target.owner_id
    keys = (
        redis_store.shared_key(owner_id, str(source.id), str(target.id)),
        redis_store.shared_ttl_key(owner_id, str(source.id), str(target.id)),
    )
    with redis_store.redis_errors_as_unavailable(redis_store.MESSAGE_WM_UNAVAILABLE):
        merged = _merge(*keys, {key: redis_store.encode(value)}, ttl_seconds=None)
    return WriteResult(size_bytes=merged.size, ttl_seconds=merged.ttl)


# --- persistence ------------------------------------------------------------------------------------


def working_memory_persist(*, owner: User, conversation_id: str, agent: Agent | None) -> WorkingMemorySnapshot:
    """Save the conversation's working memory (raw values and TTL policy) to PostgreSQL, replacing an
    earlier save. Redis is read before the transaction (STYLE habit 6)."""
    hash_key = redis_store.working_memory_key(owner.pk, conversation_id)
    with redis_store.redis_errors_as_unavailable(redis_store.MESSAGE_WM_UNAVAILABLE):
        pipe: Any = redis_store.get_redis().pipeline(transaction=True)
        raw, policy = pipe.hgetall(hash_key).get(redis_store.ttl_policy_key(owner.pk, conversation_id)).execute()
    if not raw:
        # Persisting nothing would overwrite a good saved copy with an empty one — exactly when Redis
        # has lost the key and the copy is needed.
        raise NothingToPersist(MESSAGE_NOTHING_TO_PERSIST)
    size = sum(len(name.encode()) + len(value.encode()) for name, value in raw.items())
    with transaction.atomic():
        snapshot, _ = WorkingMemorySnapshot.objects.update_or_create(
            owner=owner,
            conversation_id=conversation_id,
            defaults={
                "fields": raw,
                "ttl_seconds": _ttl(int(policy) if policy else None),
                "size_bytes": size,
                "persisted_by": agent,
            },
        )
    return snapshot


def working_memory_load(*, owner: User, conversation_id: str) -> dict[str, Any]:
    """Put the persisted working memory back in Redis (replacing what is there), with a fresh TTL."""
    snapshot = selectors.working_memory_snapshot_get(owner=owner, conversation_id=conversation_id)
    if snapshot is None:
        raise SnapshotMissing(MESSAGE_NO_SNAPSHOT)
    args: list[str | int] = [snapshot.ttl_seconds]
    for name, value in snapshot.fields.items():
        args += [name, value]
    keys = [
        redis_store.working_memory_key(owner.pk, conversation_id),
        redis_store.ttl_policy_key(owner.pk, conversation_id),
    ]
    with redis_store.redis_errors_as_unavailable(redis_store.MESSAGE_WM_UNAVAILABLE):
        redis_store.run(redis_store.RESTORE, keys, args)
    return {name: redis_store.decode(value) for name, value in snapshot.fields.items()}


# --- injection ledger ---------------------------------------------------------------------------------


def ledger_mark(*, owner_id: int, conversation_id: str, item: str, value: str = "injected") -> bool:
    """Mark `item` injected; True when it was not marked before (marking twice is harmless)."""
    return bool(redis_store.ledger_run(owner_id, conversation_id, "mark", item, value))


def ledger_evict(*, owner_id: int, conversation_id: str, item: str) -> bool:
    """Forget `item`, so it may be injected again; True when it was marked."""
    return bool(redis_store.ledger_run(owner_id, conversation_id, "evict", item))
