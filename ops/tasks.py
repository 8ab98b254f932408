from __future__ import annotations

from celery import shared_task
from django.conf import settings

from ops import services


@shared_task(name="ops.prune_job_runs", ignore_result=False)
def prune_job_runs(older_than_days: int | None = None) -> dict[str, int]:
    """Delete job records older than JOB_RUN_RETENTION_DAYS (beat: daily)."""
    return services.job_run_prune(older_than_days=older_than_days or settings.JOB_RUN_RETENTION_DAYS)
