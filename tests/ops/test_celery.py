"""Jobs through a real worker process on the embedded Redis (not eager mode), recorded as JobRuns."""

from __future__ import annotations

import subprocess
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from memory_site.beat import HEARTBEAT_KEY
from memory_site.redis_client import get_redis
from ops.models import JobRun
from ops.tasks import prune_job_runs

pytestmark = pytest.mark.django_db(transaction=True)


def _old_run(task_id: str, days: int) -> JobRun:
    return JobRun.objects.create(
        task_id=task_id,
        name="ops.prune_job_runs",
        status=JobRun.Status.SUCCEEDED,
        started_at=timezone.now() - timedelta(days=days),
        finished_at=timezone.now() - timedelta(days=days),
    )


def _finished_run(task_id: str) -> JobRun:
    """The JobRun once its end is recorded: Celery stores a result before it sends task_postrun, so
    the record can trail the result by a moment."""
    deadline = time.monotonic() + 10
    while True:
        run = JobRun.objects.filter(task_id=task_id).first()
        if run is not None and run.finished_at is not None:
            return run
        assert time.monotonic() < deadline, f"job {task_id} was not recorded as finished"
        time.sleep(0.05)


def test_a_task_round_trips_through_a_real_worker_and_is_recorded(celery_worker: str) -> None:
    _old_run("old-1", days=40)
    _old_run("old-2", days=31)
    kept = _old_run("recent", days=1)

    result = prune_job_runs.delay(older_than_days=30)
    assert result.get(timeout=60) == {"deleted": 2}

    run = _finished_run(result.id)
    assert run.name == "ops.prune_job_runs"
    assert run.status == JobRun.Status.SUCCEEDED
    assert run.counts == {"deleted": 2}
    assert run.kwargs == {"older_than_days": 30}
    assert run.attempts == 1
    assert run.hostname == celery_worker
    assert run.started_at is not None and run.finished_at is not None and run.finished_at >= run.started_at
    assert set(JobRun.objects.values_list("task_id", flat=True)) == {kept.task_id, result.id}

    # Running it again is a no-op: the job is idempotent.
    assert prune_job_runs.delay(older_than_days=30).get(timeout=60) == {"deleted": 0}


def test_a_failing_job_is_recorded_with_its_error(celery_worker: str) -> None:
    result = prune_job_runs.delay(older_than_days="not a number")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        result.get(timeout=60)
    run = _finished_run(result.id)
    assert run.status == JobRun.Status.FAILED
    assert "TypeError" in run.error


def test_health_reports_every_component_up_with_a_worker_and_beat(
    celery_worker: str, celery_beat: subprocess.Popen[bytes], api: APIClient
) -> None:
    deadline = time.monotonic() + 30
    while get_redis().get(HEARTBEAT_KEY) is None:
        assert celery_beat.poll() is None, "beat exited"
        assert time.monotonic() < deadline, "beat left no heartbeat"
        time.sleep(0.2)
    body = api.get("/health").json()
    assert body["status"] == "ok"
    assert {name: c["status"] for name, c in body["components"].items()} == {
        "database": "up",
        "redis": "up",
        "worker": "up",
        "beat": "up",
    }
    assert celery_worker in body["components"]["worker"]["detail"]
