"""Mining jobs: the outbox that hands them to the broker, and the run that claims and mines them.

A job is sent on commit of the request that made it; a job whose send failed (broker down) stays
`queued` with `enqueued_at` null until `outbox_requeue` (beat, every minute) sends it again. Mining is
idempotent, so a duplicate send is harmless.
"""

from __future__ import annotations

import functools
import logging
from datetime import timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from accounts.models import Agent, MemorySettings
from memory_site.redis_client import BREAKER
from palace.models import ActivityEvent, MiningJob
from palace.services.mining import conversations_mine
from palace.services.passages import passages_embed_send

logger = logging.getLogger(__name__)

# Sent by name: tasks call services, services never import tasks (palace/tasks.py registers it).
MINE_TASK = "palace.mine_conversation"
JOB_BATCH = 8  # conversations mined together by one job run (one embedding batch)
RACE_RETRIES = 3


def job_send(*, job_id: Any) -> bool:
    """Hand a job to the broker; True when sent. A broker outage leaves the job for the outbox, and so
    does a Redis this process has just found unavailable (the broker is the same Redis)."""
    if BREAKER.is_open:
        return False
    try:
        current_app.send_task(MINE_TASK, args=(str(job_id),), retry=False)
    except Exception:
        logger.warning("could not send mining job %s; the outbox will retry", job_id, exc_info=True)
        return False
    MiningJob.objects.filter(pk=job_id).update(enqueued_at=timezone.now())
    return True


def outbox_requeue(
    *, older_than: timedelta = timedelta(minutes=1), stale_after: timedelta = timedelta(minutes=15)
) -> dict[str, int]:
    """Send again the ready jobs still queued — never sent (older than a minute), or sent long ago and
    never started (the broker lost them) — and the ones abandoned mid-run. Mining is idempotent, so a
    duplicate send is harmless."""
    now = timezone.now()
    # A job still "running" long after the hard time limit lost its worker (and its message): send it
    # again; the claim accepts a running job and mining is idempotent.
    abandoned = timedelta(seconds=2 * settings.CELERY_TASK_TIME_LIMIT)
    pending = _not_paused(
        MiningJob.objects.filter(ready=True).filter(
            Q(status=MiningJob.Status.QUEUED, enqueued_at__isnull=True, requested_at__lt=now - older_than)
            | Q(status=MiningJob.Status.QUEUED, enqueued_at__lt=now - stale_after)
            | Q(status=MiningJob.Status.RUNNING, started_at__lt=now - abandoned)
        )
    )
    counts = {"sent": 0, "failed": 0}
    for job_id in pending.values_list("pk", flat=True)[:500]:
        counts["sent" if job_send(job_id=job_id) else "failed"] += 1
    return counts


def _not_paused(jobs: QuerySet[MiningJob]) -> QuerySet[MiningJob]:
    """Jobs whose owner has memory on and whose agent's mining is not paused: the others wait, queued
    and unsent, until the pause ends (jobs_resume sends them then)."""
    # EXISTS, never NULL: a plain `config->'mining_paused' = true` is NULL when the key is absent, and
    # NOT NULL would drop every job of an agent that never had the setting.
    paused_owner = MemorySettings.objects.filter(user_id=OuterRef("owner_id"), enabled=False)
    paused_agent = Agent.objects.filter(pk=OuterRef("conversation__agent_id"), config__contains={"mining_paused": True})
    return jobs.exclude(Exists(paused_owner)).exclude(Exists(paused_agent))


def jobs_resume(*, owner_id: int, agent_id: Any = None) -> int:
    """Send the ready jobs a pause held back (the owner's, or one agent's), on commit; how many."""
    held = MiningJob.objects.filter(owner_id=owner_id, status=MiningJob.Status.QUEUED, ready=True)
    if agent_id is not None:
        held = held.filter(conversation__agent_id=agent_id)
    job_ids = list(_not_paused(held).values_list("pk", flat=True))
    for job_id in job_ids:
        transaction.on_commit(functools.partial(job_send, job_id=job_id))
    return len(job_ids)


def _hold(job_id: Any) -> None:
    """Back to queued and unsent: the outbox leaves it alone while paused, jobs_resume sends it."""
    MiningJob.objects.filter(pk=job_id).update(status=MiningJob.Status.QUEUED, enqueued_at=None, started_at=None)


def job_run(*, job_id: Any) -> dict[str, int] | None:
    """Claim and run one mining job, together with up to JOB_BATCH - 1 other ready jobs of the same
    owner still waiting (their own messages then find them done). None when the job is gone or done,
    or held back: memory is off for its owner or mining is paused for its agent."""
    now = timezone.now()
    claimed = MiningJob.objects.filter(
        pk=job_id, status__in=[MiningJob.Status.QUEUED, MiningJob.Status.RUNNING]
    ).update(status=MiningJob.Status.RUNNING, started_at=now, attempts=F("attempts") + 1)
    if not claimed:
        return None
    if not _not_paused(MiningJob.objects.filter(pk=job_id)).exists():
        _hold(job_id)
        return None
    job = MiningJob.objects.select_related("conversation", "conversation__agent").get(pk=job_id)
    with transaction.atomic():
        # SKIP LOCKED: another worker batching at the same moment takes other jobs, not these.
        extra_ids = list(
            _not_paused(MiningJob.objects.select_for_update(skip_locked=True, of=("self",)))
            .filter(owner_id=job.owner_id, status=MiningJob.Status.QUEUED, ready=True)
            .exclude(conversation_id=job.conversation_id)
            .order_by("requested_at")
            .values_list("pk", flat=True)[: JOB_BATCH - 1]
        )
        MiningJob.objects.filter(pk__in=extra_ids).update(
            status=MiningJob.Status.RUNNING, started_at=now, attempts=F("attempts") + 1
        )
    jobs = [job, *MiningJob.objects.select_related("conversation", "conversation__agent").filter(pk__in=extra_ids)]
    conversations = list({j.conversation_id: j.conversation for j in jobs}.values())
    results = conversations_mine(conversations=conversations)
    for _ in range(RACE_RETRIES):
        # Another run wrote some of these conversations while this one prepared them: mine them again,
        # which reads their turns afresh. It adds what the other run did not have (turns appended after
        # it read them), or finds nothing left, so this run's jobs are marked below, never left running.
        raced = [c for c in conversations if results[c.pk].get("raced")]
        if not raced:
            break
        results.update(conversations_mine(conversations=raced))
    for conversation in conversations:
        # This run covered every request for the conversation made before it started.
        # (The jobs this run claimed, whenever they were asked for, and the ones still queued from
        # before it started.)
        covered = MiningJob.objects.filter(conversation=conversation, ready=True).filter(
            Q(pk__in=[j.pk for j in jobs]) | Q(status=MiningJob.Status.QUEUED, requested_at__lte=now)
        )
        if results[conversation.pk].pop("raced", 0):
            # Raced on every try (runs keep arriving for it): the last of them marks these jobs; the outbox
            # sends any left running again once they are abandoned.
            continue
        if not results[conversation.pk]["drawers"]:
            # Nothing new here: never overwrite the counts a run that did the work has written.
            covered = covered.exclude(status=MiningJob.Status.DONE)
        covered.update(
            status=MiningJob.Status.DONE, finished_at=timezone.now(), counts=results[conversation.pk], error=""
        )
    # The drawers are filed and the jobs done: the passages' vectors come next, behind any mining job
    # already waiting (palace/services/passages.py).
    passages_embed_send(conversation_ids=[c.pk for c in conversations if results[c.pk].get("passages")])
    return results[job.conversation_id]


def job_fail(*, job_id: Any, error: str) -> None:
    """The job failed for good (not a transient error: those are retried). The person's activity log says
    which conversation was left unfiled and the kind of error, never the message (it may quote a turn);
    the job's own row keeps the message for the operator."""
    job = MiningJob.objects.filter(pk=job_id).select_related("conversation").first()
    MiningJob.objects.filter(pk=job_id).update(
        status=MiningJob.Status.FAILED, finished_at=timezone.now(), error=error[:4000]
    )
    if job is not None:
        ActivityEvent.objects.create(
            owner_id=job.conversation.owner_id,
            agent_id=job.conversation.agent_id,
            kind="mining_failed",
            data={"conversation_id": job.conversation.external_id, "job_id": str(job.pk), "error": error.split(":")[0]},
        )
