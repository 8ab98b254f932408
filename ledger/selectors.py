"""Reads of working memory, shared values, saved copies and the injection ledger.

A read of a conversation's working memory or ledger re-arms its TTL (see `ledger.redis_store`): that
is part of reading it, not a write of anything the caller sees.
"""

from __future__ import annotations

from typing import Any, Final

from django.conf import settings
from django.contrib.auth.models import User

from accounts.models import Agent
from ledger import redis_store
from ledger.models import WorkingMemorySnapshot
from memory_site.lib.errors import NotFoundError

MESSAGE_NOT_SHARED: Final = "Nothing shared under this key."


class NothingShared(NotFoundError):
    message = MESSAGE_NOT_SHARED


def _read(keys: list[str], mode: str, field: str = "") -> Any:
    with redis_store.redis_errors_as_unavailable(redis_store.MESSAGE_WM_UNAVAILABLE):
        return redis_store.run(redis_store.READ, keys, [settings.WORKING_MEMORY_TTL, mode, field])


def _conversation_keys(owner_id: int, conversation_id: str) -> list[str]:
    return [
        redis_store.working_memory_key(owner_id, conversation_id),
        redis_store.ttl_policy_key(owner_id, conversation_id),
    ]


# --- the hash -------------------------------------------------------------------------------------


def working_memory_get(*, owner_id: int, conversation_id: str) -> dict[str, Any]:
    """Every field, decoded; `{}` for an unknown conversation. Re-arms the TTL."""
    flat = _read(_conversation_keys(owner_id, conversation_id), "all")
    assert isinstance(flat, list)
    return {flat[i]: redis_store.decode(flat[i + 1]) for i in range(0, len(flat), 2)}


def working_memory_field_get(*, owner_id: int, conversation_id: str, field: str) -> tuple[bool, Any]:
    """(exists, decoded value) of one field. Re-arms the TTL."""
    raw = _read(_conversation_keys(owner_id, conversation_id), "field", field)
    return (False, None) if raw is None else (True, redis_store.decode(str(raw)))


def working_memory_keys(*, owner_id: int, conversation_id: str) -> list[str]:
    names = _read(_conversation_keys(owner_id, conversation_id), "keys")
    assert isinstance(names, list)
    return sorted(names)


# --- sharing between the owner's agents ---------------------------------------------------------------


def working_memory_retrieve_shared(*, owner_id: int, source: Agent, target: Agent, key: str) -> Any:
    """What `source` shared with `target` under `key`; NothingShared when there is none."""
    keys = [
        redis_store.shared_key(owner_id, str(source.id), str(target.id)),
        redis_store.shared_ttl_key(owner_id, str(source.id), str(target.id)),
    ]
    raw = _read(keys, "field", key)
    if raw is None:
        raise NothingShared(MESSAGE_NOT_SHARED)
    return redis_store.decode(str(raw))


# --- persistence ------------------------------------------------------------------------------------


def working_memory_snapshot_get(*, owner: User, conversation_id: str) -> WorkingMemorySnapshot | None:
    return WorkingMemorySnapshot.objects.filter(owner=owner, conversation_id=conversation_id).first()


# --- injection ledger ---------------------------------------------------------------------------------


def ledger_get_all(*, owner_id: int, conversation_id: str) -> dict[str, str]:
    flat = redis_store.ledger_run(owner_id, conversation_id, "all")
    return {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}


def ledger_check(*, owner_id: int, conversation_id: str, item: str) -> bool:
    return bool(redis_store.ledger_run(owner_id, conversation_id, "check", item))
