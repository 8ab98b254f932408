from __future__ import annotations

from typing import Any

import redis
from celery import shared_task
from django.db import OperationalError

from palace.services import jobs, passages, reads

# Transient: the database or Redis blinked. Anything else is a bug and fails the job at once.
TRANSIENT = (OperationalError, redis.ConnectionError, redis.TimeoutError)


@shared_task(
    bind=True,
    name=jobs.MINE_TASK,
    autoretry_for=TRANSIENT,
    retry_backoff=True,
    retry_jitter=True,
    max_retries=5,
    acks_late=True,
    reject_on_worker_lost=True,
)
def mine_conversation(self: Any, job_id: str) -> dict[str, int] | None:
    """Mine the conversation of one MiningJob (by id). Idempotent: a re-delivered or duplicate job adds
    nothing that is already there."""
    try:
        return jobs.job_run(job_id=job_id)
    except TRANSIENT:
        raise
    except Exception as exc:
        jobs.job_fail(job_id=job_id, error=f"{type(exc).__name__}: {exc}")
        raise


@shared_task(name="palace.outbox_requeue", ignore_result=False)
def outbox_requeue() -> dict[str, int]:
    """Re-send mining jobs the broker never got (beat: every minute)."""
    return jobs.outbox_requeue()


# No result kept: it runs every 5 seconds and its counts are in its JobRun row already.
@shared_task(
    name="palace.drawer_reads_flush", ignore_result=True, autoretry_for=TRANSIENT, retry_backoff=True, max_retries=3
)
def drawer_reads_flush() -> dict[str, int]:
    """Write the drawer reads queued in Redis (beat: every 5 seconds; sent early when many wait)."""
    return reads.drawer_reads_flush()


@shared_task(name=passages.EMBED_TASK, autoretry_for=TRANSIENT, retry_backoff=True, retry_jitter=True, max_retries=5)
def embed_passages(conversation_ids: list[str]) -> int:
    """Embed the passages of conversations just mined (their drawers are filed already). Idempotent: a
    passage with a vector is left alone; whatever is left (the embedder down) the backfill embeds."""
    return passages.passages_embed(conversation_ids=conversation_ids)
