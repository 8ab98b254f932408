from __future__ import annotations

from celery import shared_task

from episodic import services


@shared_task(name="episodic.embedding_backfill", ignore_result=False)
def embedding_backfill() -> dict[str, int]:
    """Embed rows stored without an embedding (beat: every few minutes). Idempotent."""
    return services.embedding_backfill()


@shared_task(name="episodic.expired_cleanup", ignore_result=False)
def expired_cleanup() -> dict[str, int]:
    """Delete what is past its expires_at (beat: every minute). Idempotent."""
    return services.expired_cleanup()
