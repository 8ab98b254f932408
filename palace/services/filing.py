"""Numbers and wings shared by the filing stages (mining, recurring topics, remining): every wing,
room and drawer gets a per-owner number that is never given out again (the AAAK pointer cites it)."""

from __future__ import annotations

from django.db import connection

from palace.models import PalaceCounter, Wing
from palace.naming import ensure_named


def next_numbers(owner_id: int, kind: str, count: int) -> list[int]:
    """`count` fresh numbers for `kind` (wing, room, drawer) of one owner; never reused."""
    PalaceCounter.objects.get_or_create(owner_id=owner_id, kind=kind)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {PalaceCounter._meta.db_table} SET value = value + %s "
            "WHERE owner_id = %s AND kind = %s RETURNING value",
            [count, owner_id, kind],
        )
        last = cursor.fetchone()[0]
    return list(range(last - count + 1, last + 1))


def wing_ensure(*, owner_id: int, name: str, kind: str) -> Wing:
    """The wing named `name` (by slug or alias, case-insensitive), created when missing."""
    return ensure_named(
        Wing, owner_id=owner_id, name=name, kind=kind, create=lambda: {"number": next_numbers(owner_id, "wing", 1)[0]}
    )
