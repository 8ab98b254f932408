"""Reads that count. An agent's read of a short-term entry, a typed memory or a context entry counts an
access (`access_count`, `last_accessed_at`): consolidation promotes short-term entries read often
enough, dedup keeps the more-read duplicate, and context rot spares entries in use. Every such read
records it here, so the counting rule lives in one place."""

from __future__ import annotations

from typing import TypeVar

from django.db.models import F, Model, QuerySet
from django.utils import timezone

M = TypeVar("M", bound=Model)


def reads_record(*, queryset: QuerySet[M]) -> int:
    """Count one read of each row of `queryset`, in one UPDATE: F() so concurrent reads all add up, and
    a row that stopped matching in between (an entry that expired) is not counted. Returns how many were."""
    return queryset.update(access_count=F("access_count") + 1, last_accessed_at=timezone.now())
