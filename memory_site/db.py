"""Small database helpers shared by the apps."""

from __future__ import annotations

import hashlib

from django.db import connection


def advisory_xact_lock(name: str) -> None:
    """Take a PostgreSQL advisory lock named `name` until the current transaction ends (call it inside
    `atomic()`): writers of the same name queue up, others go on."""
    key = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
