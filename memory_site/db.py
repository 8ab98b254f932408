"""Small database helpers shared by the apps: PostgreSQL advisory locks by name.

Two flavours over one name -> key hashing, so a name means the same lock whichever flavour takes it:
- `advisory_xact_lock`: waits for the lock and holds it until the transaction ends (writers of one
  name queue up; the lock cannot outlive the transaction, even when the code fails);
- `advisory_session_lock`: tries once and holds it until the block ends (a singleton job: a second
  run finds it held and leaves at once instead of queueing behind the first).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection


def advisory_lock_key(name: str) -> int:
    """The lock's bigint key: the first 8 bytes of the name's SHA-256 (collisions are negligible)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def advisory_xact_lock(name: str) -> None:
    """Take a PostgreSQL advisory lock named `name` until the current transaction ends (call it inside
    `atomic()`): writers of the same name queue up, others go on."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [advisory_lock_key(name)])


@contextmanager
def advisory_session_lock(name: str) -> Iterator[bool]:
    """Try once for a session advisory lock named `name`; yields True when this block holds it (and
    releases it at the end), False when someone else does."""
    key = advisory_lock_key(name)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        held = bool(cursor.fetchone()[0])
    try:
        yield held
    finally:
        if held:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
