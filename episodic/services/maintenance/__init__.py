"""The maintenance jobs (DESIGN §5.7, the multi-tier reference): consolidation, dedup, expired_cleanup, context_rot and
embedding_backfill. Celery beat runs them (episodic/tasks.py); `manage.py run_maintenance JOB
[--dry-run]` runs one by hand.

Every job:
- is a singleton: it holds a PostgreSQL advisory lock for its run, so a second run started at the same
  time returns at once with `{"skipped": 1}`; and every row change is also conditional (`... WHERE
  promoted_to IS NULL`, `... WHERE deprecated_at IS NULL`), so even two unlocked runs change each row once;
- works in batches of MAINTENANCE_BATCH_SIZE rows, one short transaction each, and embeds outside them;
- is idempotent: run twice, the second run finds nothing to do;
- in dry-run changes nothing and lists what it would do.

Consolidation promotes short-term entries read at least MAINTENANCE_CONSOLIDATION_MIN_ACCESS times to long-term
entries (with embeddings) in the agent's own memory context, importance min(1, 0.4 + 0.1 x reads), and
deletes expired entries read fewer times. Dedup merges live entries of one context (or typed memories of
one owner, type, scope and agent) whose cosine similarity is at least MAINTENANCE_DEDUP_SIMILARITY, found with the
HNSW index (each entry probes its nearest neighbours: O(n log n), not O(n^2)); the survivor is the more
important one (then the more used, then the older), keeps the higher importance and the union of both
metadata; the other stays as deprecated with `merged_into` set. Context rot archives entries whose
staleness (episodic.selectors.contexts, where the formula is) reaches MAINTENANCE_CONTEXT_ROT_STALENESS.
Embedding backfill embeds the rows stored while the embedder was down.

One module per job: consolidation, dedup, cleanup (expired_cleanup and context_rot), backfill.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.utils import timezone

from episodic.services.maintenance import backfill, cleanup, consolidation, dedup
from episodic.services.maintenance.report import Report
from memory_site.db import advisory_session_lock

JOBS = ("consolidation", "dedup", "expired_cleanup", "context_rot", "embedding_backfill")
RUNNERS: dict[str, Callable[..., None]] = {
    "consolidation": consolidation.consolidation,
    "dedup": dedup.dedup,
    "expired_cleanup": cleanup.expired_cleanup,
    "context_rot": cleanup.context_rot,
    "embedding_backfill": backfill.embedding_backfill_job,
}


def lock_name(job: str) -> str:
    """The name of the job's advisory lock (memory_site.db)."""
    return f"loci.maintenance.{job}"


def run(job: str, *, dry_run: bool = False, now: datetime | None = None, **options: Any) -> Report:
    if job not in JOBS:
        raise ValueError(f"unknown job {job!r}; one of {', '.join(JOBS)}")
    report = Report(dry_run=dry_run)
    with advisory_session_lock(lock_name(job)) as held:
        if not held:
            report.add("skipped")
            return report
        RUNNERS[job](report, now or timezone.now(), **options)
    return report
