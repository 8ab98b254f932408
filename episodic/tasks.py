"""The maintenance jobs as Celery tasks (beat runs them; episodic/services/maintenance/ says what each does).
Each takes no model objects, holds its job's advisory lock and is idempotent, so a re-delivered or
overlapping run is harmless."""

from __future__ import annotations

from celery import shared_task

from episodic.services import maintenance


@shared_task(name="episodic.consolidation", ignore_result=False)
def consolidation() -> dict[str, int]:
    """Promote short-term entries read often enough to long-term; forget expired little-read ones."""
    return maintenance.run("consolidation").result()


@shared_task(name="episodic.dedup", ignore_result=False)
def dedup(full: bool = False) -> dict[str, int]:
    """Merge near-duplicate long-term entries and typed memories (the merged ones are kept, deprecated):
    those added or changed since the last run against all, or every one with `full`."""
    return maintenance.run("dedup", full=full).result()


@shared_task(name="episodic.expired_cleanup", ignore_result=False)
def expired_cleanup() -> dict[str, int]:
    """Delete short-term entries, episodes and pools past expires_at."""
    return maintenance.run("expired_cleanup").result()


@shared_task(name="episodic.context_rot", ignore_result=False)
def context_rot() -> dict[str, int]:
    """Archive context entries gone stale."""
    return maintenance.run("context_rot").result()


@shared_task(name="episodic.embedding_backfill", ignore_result=False)
def embedding_backfill() -> dict[str, int]:
    """Embed rows stored without an embedding (the embedder was down)."""
    return maintenance.run("embedding_backfill").result()
