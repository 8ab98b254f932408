"""Writes for job bookkeeping."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from ops.models import JobRun

_MAX_ERROR_CHARS = 4000


def _json_safe(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def job_run_started(*, task_id: str, name: str, args: Any, kwargs: Any, hostname: str) -> None:
    now = timezone.now()
    changes = {"status": JobRun.Status.RUNNING, "started_at": now, "finished_at": None, "hostname": hostname}
    if JobRun.objects.filter(task_id=task_id).update(attempts=F("attempts") + 1, **changes):
        return
    try:
        with transaction.atomic():
            JobRun.objects.create(
                task_id=task_id,
                name=name,
                args=_json_safe(list(args or [])),
                kwargs=_json_safe(dict(kwargs or {})),
                attempts=1,
                **changes,
            )
    except IntegrityError:
        # The same task id started twice at once (a re-delivery racing the first run).
        JobRun.objects.filter(task_id=task_id).update(attempts=F("attempts") + 1, **changes)


def job_run_finished(*, task_id: str, status: str, result: Any = None, error: str = "") -> None:
    changes: dict[str, Any] = {"status": status, "finished_at": timezone.now()}
    if isinstance(result, dict):
        changes["counts"] = _json_safe(result)
    if error:
        changes["error"] = error[:_MAX_ERROR_CHARS]
    JobRun.objects.filter(task_id=task_id).update(**changes)


def job_run_prune(*, older_than_days: int) -> dict[str, int]:
    """Delete finished job records older than the retention window."""
    cutoff = timezone.now() - timedelta(days=older_than_days)
    deleted, _ = JobRun.objects.filter(started_at__lt=cutoff).exclude(status=JobRun.Status.RUNNING).delete()
    return {"deleted": deleted}
