"""expired_cleanup (everything past expires_at) and context_rot (entries gone stale are archived)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from episodic.models import ContextEntry, Episode, MemoryPool, ShortTermMemory, WorkflowPool
from episodic.selectors.contexts import entries_live, staleness
from episodic.services.maintenance.report import Report, batches, delete_in_batches
from memory_site import events


def expired_cleanup(report: Report, now: datetime) -> None:
    """Everything past expires_at, except short-term entries still waiting for consolidation (read
    often enough, not promoted yet): those go once promoted."""
    delete_in_batches(
        report,
        "episodes",
        Episode.objects.filter(expires_at__lte=now),
        lambda e: f"delete episode {e.pk} (expired {e.expires_at:%Y-%m-%d %H:%M})",
    )
    waiting = Q(access_count__gte=settings.MAINTENANCE_CONSOLIDATION_MIN_ACCESS, promoted_to__isnull=True)
    delete_in_batches(
        report,
        "short_term",
        ShortTermMemory.objects.filter(expires_at__lte=now).exclude(waiting),
        lambda e: f"delete short-term {e.session_id}/{e.key}",
    )
    delete_in_batches(
        report, "pools", MemoryPool.objects.filter(expires_at__lte=now), lambda p: f"delete pool {p.pool_id}"
    )
    delete_in_batches(
        report,
        "workflow_pools",
        WorkflowPool.objects.filter(expires_at__lte=now),
        lambda p: f"delete workflow pool {p.workflow_run_id}/{p.pool_type}",
    )


def context_rot(report: Report, now: datetime) -> None:
    threshold = settings.MAINTENANCE_CONTEXT_ROT_STALENESS
    if threshold >= 1:
        return
    # staleness <= age, so only entries unused for at least this long can reach the threshold.
    min_days = settings.MAINTENANCE_STALENESS_HALF_LIFE_DAYS * math.log2(1 / (1 - threshold))
    cutoff = now - timedelta(days=min_days)
    old = (
        entries_live()
        .filter(updated_at__lt=cutoff, created_at__lt=cutoff)
        .filter(Q(last_accessed_at__isnull=True) | Q(last_accessed_at__lt=cutoff))
    )
    for batch in batches(old, settings.MAINTENANCE_BATCH_SIZE):
        stale = {e.pk: s for e in batch if (s := staleness(e, now)) >= threshold}
        if report.dry_run:
            for e in batch:
                if e.pk in stale:
                    report.add("archived", action=f"archive entry {e.pk} (staleness {stale[e.pk]:.3f})")
            continue
        if stale:
            report.add("archived", _archive(list(stale), now))
    report.counts.setdefault("archived", 0)


def _archive(entry_ids: list[Any], now: datetime) -> int:
    """Archive the entries not archived meanwhile, with one memory.archived event per owner."""
    with transaction.atomic():
        archivable = ContextEntry.objects.select_for_update().filter(pk__in=entry_ids, archived_at__isnull=True)
        rows = list(archivable.values_list("pk", "owner_id", "context_id"))
        ContextEntry.objects.filter(pk__in=[pk for pk, _, _ in rows]).update(archived_at=now)
        by_owner: dict[int, list[tuple[Any, Any]]] = {}
        for pk, owner_id, context_id in rows:
            by_owner.setdefault(owner_id, []).append((pk, context_id))
        for owner_id, entries in by_owner.items():
            events.memory_event_emit(
                owner_id=owner_id,
                type=events.MEMORY_ARCHIVED,
                payload={
                    "reason": "context_rot",
                    "count": len(entries),
                    "entry_ids": sorted(str(pk) for pk, _ in entries),
                    "context_ids": sorted({str(c) for _, c in entries}),
                },
            )
    return len(rows)
