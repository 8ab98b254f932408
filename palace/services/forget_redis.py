"""The Redis side of forgetting: a conversation's working memory, its TTL policy and its injection
ledger, working-memory fields that hold a forgotten text, and (for "everything") every key of the owner.
Key names are ledger/redis_store.py's, which always carry the owner, so a SCAN by prefix never reaches
another owner's keys."""

from __future__ import annotations

from typing import Final

from ledger.redis_store import (
    decode,
    ledger_key,
    redis_errors_as_unavailable,
    ttl_policy_key,
    working_memory_key,
)
from memory_site.redis_client import get_redis

MESSAGE_REDIS_DOWN_FORGET: Final = "Nothing was forgotten: Redis is not reachable, and copies there would be left."
# Every key family of ledger/redis_store.py, as SCAN patterns for one owner.
OWNER_PATTERNS: Final = (
    "working_memory:{owner}:*",
    "working_memory_ttl:{owner}:*",
    "skill:ledger:{owner}:*",
    "working_memory_shared:{owner}:*",
    "working_memory_shared_ttl:{owner}:*",
)


class RedisEraser:
    def __init__(self, *, owner_id: int) -> None:
        self.owner_id = owner_id

    def conversations(self, *, names: list[str]) -> list[str]:
        """Delete the conversations' keys; returns those that existed."""
        keys = [
            key
            for name in names
            for key in (
                working_memory_key(self.owner_id, name),
                ttl_policy_key(self.owner_id, name),
                ledger_key(self.owner_id, name),
            )
        ]
        return self._delete(keys)

    def fields_containing(self, *, texts: list[str]) -> int:
        """Drop the owner's working-memory fields whose value holds one of the texts; returns how many."""
        needles = [t for t in (text.strip() for text in texts) if t]
        if not needles:
            return 0
        dropped = 0
        with redis_errors_as_unavailable(MESSAGE_REDIS_DOWN_FORGET):
            client = get_redis()
            for pattern in (OWNER_PATTERNS[0], OWNER_PATTERNS[3]):
                for key in client.scan_iter(match=pattern.format(owner=self.owner_id), count=500):
                    if client.type(key) not in ("hash", b"hash"):
                        continue
                    fields = [
                        field
                        for field, raw in client.hgetall(key).items()
                        if any(needle in str(decode(_text(raw))) or needle in _text(raw) for needle in needles)
                    ]
                    if fields:
                        dropped += int(client.hdel(key, *fields))
        return dropped

    def everything(self) -> list[str]:
        with redis_errors_as_unavailable(MESSAGE_REDIS_DOWN_FORGET):
            client = get_redis()
            keys = [
                _text(key)
                for pattern in OWNER_PATTERNS
                for key in client.scan_iter(match=pattern.format(owner=self.owner_id), count=500)
            ]
        return self._delete(keys)

    def _delete(self, keys: list[str]) -> list[str]:
        if not keys:
            return []
        with redis_errors_as_unavailable(MESSAGE_REDIS_DOWN_FORGET):
            client = get_redis()
            present = [key for key in keys if client.exists(key)]
            if present:
                client.delete(*present)
        return present


def keys_existing(*, keys: list[str]) -> int:
    if not keys:
        return 0
    with redis_errors_as_unavailable():
        return int(get_redis().exists(*keys))


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
