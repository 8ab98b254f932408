"""Two beat processes started by mistake (issue 19 §3): each scheduled job is still sent once per period,
through a real worker, because a beat claims the period in Redis before sending (memory_site/beat.py)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from memory_site.beat import SENT_KEY
from memory_site.redis_client import get_redis
from ops.models import JobRun
from tests.fixtures.celery_worker import _start, _stop

pytestmark = pytest.mark.django_db(transaction=True)
PERIOD, WATCH = 3, 13  # seconds


def test_two_beats_send_a_scheduled_job_once_per_period(
    celery_worker: str, celery_env: dict[str, str], tmp_path: Path
) -> None:
    every, _ = IntervalSchedule.objects.get_or_create(every=PERIOD, period=IntervalSchedule.SECONDS)
    probe = PeriodicTask.objects.create(
        name="two-beats probe", task="ops.prune_job_runs", interval=every, kwargs='{"older_than_days": 3650}'
    )
    get_redis().delete(SENT_KEY.format(probe.name))
    command = [sys.executable, "-m", "celery", "-A", "memory_site", "beat", "--loglevel", "INFO", "--pidfile="]
    beats = [_start(command, celery_env, tmp_path / f"beat-{i}.log") for i in range(2)]
    try:
        time.sleep(WATCH)
    finally:
        for beat in beats:
            _stop(beat)
    time.sleep(1)  # the last sends reach the worker
    runs = JobRun.objects.filter(name="ops.prune_job_runs", kwargs={"older_than_days": 3650}).count()
    logs = "".join((tmp_path / f"beat-{i}.log").read_text() for i in range(2))
    skipped = logs.count("was sent by another beat this period")
    # One beat alone sends about WATCH / PERIOD times; two without the claim would send twice as often.
    assert 2 <= runs <= WATCH // PERIOD + 1, (runs, logs[-3000:])
    assert skipped >= 1, logs[-3000:]
