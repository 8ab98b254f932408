"""Redis keys, Lua scripts and the value encoding of the ledger app (shared by its services and selectors).

Keys always carry the owner, so two owners' conversation `c1` never meet:

    working_memory:{owner}:{conversation_id}        hash  field -> JSON-encoded value
    working_memory_ttl:{owner}:{conversation_id}    string: the conversation's TTL policy in seconds
    skill:ledger:{owner}:{conversation_id}          hash  item -> value ("injected" by default)
    working_memory_shared:{owner}:{source}:{target} hash  key -> JSON value shared by agent source with target

The TTL policy is the last `ttl_seconds` a write asked for, else WORKING_MEMORY_TTL. Every read or write
of a conversation's working memory or ledger re-arms that TTL, so a long hold asked for by a PUT (a
paused human-in-the-loop step) is not cut back to the default by the next read.

Size of a working-memory hash = the sum, over its fields, of the UTF-8 bytes of the field name plus the
bytes of its JSON-encoded value. The scripts compute it inside Redis, so the check and the write are one
atomic step: a write that would pass the limit changes nothing, and no reader ever sees it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import redis
from django.conf import settings
from redis.commands.core import Script

from memory_site.api.exceptions import MESSAGE_REDIS_DOWN
from memory_site.lib.errors import UnavailableError
from memory_site.redis_client import get_redis

MESSAGE_WM_UNAVAILABLE: Final = "working memory is unavailable: Redis is not reachable"
MESSAGE_LEDGER_UNAVAILABLE: Final = "the injection ledger is unavailable: Redis is not reachable"


def encode(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def decode(raw: str) -> Any:
    """A stored value, decoded; a value some other client stored as plain text comes back as that text."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def working_memory_key(owner_id: int, conversation_id: str) -> str:
    return f"working_memory:{owner_id}:{conversation_id}"


def ttl_policy_key(owner_id: int, conversation_id: str) -> str:
    return f"working_memory_ttl:{owner_id}:{conversation_id}"


def ledger_key(owner_id: int, conversation_id: str) -> str:
    return f"skill:ledger:{owner_id}:{conversation_id}"


def shared_key(owner_id: int, source_agent_id: str, target_agent_id: str) -> str:
    return f"working_memory_shared:{owner_id}:{source_agent_id}:{target_agent_id}"


def shared_ttl_key(owner_id: int, source_agent_id: str, target_agent_id: str) -> str:
    return f"working_memory_shared_ttl:{owner_id}:{source_agent_id}:{target_agent_id}"


# KEYS: hash, ttl policy.  ARGV: limit, ttl (0: keep the conversation's policy), default ttl, guard
# count, guards (field, "1"|"0" present, expected)..., then field/value pairs. Guards make
# read-modify-write helpers (append) optimistic: the write happens only if the guarded fields are still
# what the caller read.
# Returns {status, size, ttl}: 0 written, -1 over the limit (nothing written), -2 a guard failed.
MERGE = """
local limit, ttl, nguards = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
if ttl == 0 then ttl = tonumber(redis.call('GET', KEYS[2]) or ARGV[3]) end
local i = 5
for _ = 1, nguards do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  if ARGV[i + 1] == '1' then
    if current ~= ARGV[i + 2] then return {-2, 0, ttl} end
  elseif current then
    return {-2, 0, ttl}
  end
  i = i + 3
end
local sizes, size = {}, 0
local all = redis.call('HGETALL', KEYS[1])
for j = 1, #all, 2 do
  sizes[all[j]] = #all[j + 1]
  size = size + #all[j] + #all[j + 1]
end
for j = i, #ARGV, 2 do
  local old = sizes[ARGV[j]]
  if old then size = size - #ARGV[j] - old end
  sizes[ARGV[j]] = #ARGV[j + 1]
  size = size + #ARGV[j] + #ARGV[j + 1]
end
if size > limit then return {-1, size, ttl} end
for j = i, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[j], ARGV[j + 1]) end
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], ttl, 'EX', ttl)
return {0, size, ttl}
"""

# KEYS: hash, ttl policy.  ARGV: default ttl, mode ("all" | "field" | "keys"), field.
# A read re-arms the TTL of an existing hash with the conversation's policy.
READ = """
local result
if ARGV[2] == 'all' then
  result = redis.call('HGETALL', KEYS[1])
elseif ARGV[2] == 'keys' then
  result = redis.call('HKEYS', KEYS[1])
else
  result = redis.call('HGET', KEYS[1], ARGV[3])
end
local ttl = tonumber(redis.call('GET', KEYS[2]) or ARGV[1])
if redis.call('EXPIRE', KEYS[1], ttl) == 1 then
  redis.call('EXPIRE', KEYS[2], ttl)
end
return result
"""

# KEYS: hash, ttl policy.  ARGV: default ttl, fields to delete...  (none: delete the whole hash)
# Returns the number of fields deleted.
DELETE = """
if #ARGV == 1 then
  local fields = redis.call('HLEN', KEYS[1])
  redis.call('DEL', KEYS[1], KEYS[2])
  return fields
end
local deleted = 0
for j = 2, #ARGV do deleted = deleted + redis.call('HDEL', KEYS[1], ARGV[j]) end
local ttl = tonumber(redis.call('GET', KEYS[2]) or ARGV[1])
if redis.call('EXPIRE', KEYS[1], ttl) == 1 then
  redis.call('EXPIRE', KEYS[2], ttl)
else
  redis.call('DEL', KEYS[2])
end
return deleted
"""

# KEYS: hash, ttl policy.  ARGV: ttl, field/value pairs.  Replaces the hash (restore from PostgreSQL).
RESTORE = """
redis.call('DEL', KEYS[1])
for j = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[j], ARGV[j + 1]) end
if #ARGV > 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[1])
return (#ARGV - 1) / 2
"""

# KEYS: ledger hash, ttl policy (shared with the conversation's working memory).
# ARGV: default ttl, op ("all" | "check" | "mark" | "evict"), item, value.
LEDGER = """
local op, result = ARGV[2], nil
if op == 'all' then
  result = redis.call('HGETALL', KEYS[1])
elseif op == 'check' then
  result = redis.call('HEXISTS', KEYS[1], ARGV[3])
elseif op == 'mark' then
  result = redis.call('HSET', KEYS[1], ARGV[3], ARGV[4])
else
  result = redis.call('HDEL', KEYS[1], ARGV[3])
end
local ttl = tonumber(redis.call('GET', KEYS[2]) or ARGV[1])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
return result
"""


@functools.cache
def _script(source: str) -> Script:
    # Script objects only hold the source and its SHA; the client is passed at each call, so tests
    # that point REDIS_URL elsewhere get the new server.
    return Script(None, source.encode())  # type: ignore[arg-type]


def run(source: str, keys: list[str], args: list[str | int]) -> object:
    return _script(source)(keys=keys, args=args, client=get_redis())


class RedisUnavailable(UnavailableError):
    message = MESSAGE_REDIS_DOWN


@contextmanager
def redis_errors_as_unavailable(message: str = MESSAGE_REDIS_DOWN) -> Iterator[None]:
    """Turn an outage (refused, timed out, still loading) into RedisUnavailable; other Redis errors
    (a script bug, a wrong type) are ours and stay loud."""
    try:
        yield
    except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError) as exc:
        raise RedisUnavailable(message) from exc


def ledger_run(owner_id: int, conversation_id: str, op: str, item: str = "", value: str = "") -> Any:
    """One operation of the LEDGER script on a conversation's injection ledger."""
    keys = [ledger_key(owner_id, conversation_id), ttl_policy_key(owner_id, conversation_id)]
    with redis_errors_as_unavailable(MESSAGE_LEDGER_UNAVAILABLE):
        return run(LEDGER, keys, [settings.WORKING_MEMORY_TTL, op, item, value])
