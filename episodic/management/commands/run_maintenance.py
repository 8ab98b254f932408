"""Run one maintenance job now, as beat would, or see what it would do.

    manage.py run_maintenance dedup --dry-run   # list the merges it would make, change nothing
    manage.py run_maintenance consolidation     # run it; recorded as a JobRun like a beat run

Jobs: consolidation, dedup, expired_cleanup, context_rot, embedding_backfill (episodic/services/maintenance/).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from episodic.services import maintenance
from ops import services as ops
from ops.models import JobRun


class Command(BaseCommand):
    help = "Run a maintenance job (or, with --dry-run, print what it would do)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("job", choices=maintenance.JOBS)
        parser.add_argument("--dry-run", action="store_true", help="change nothing; print what would be done")
        parser.add_argument(
            "--full", action="store_true", help="dedup: probe every entry, not only those changed since the last run"
        )

    def handle(self, *args: Any, job: str, dry_run: bool, full: bool, **options: Any) -> None:
        if full and job != "dedup":
            raise CommandError("--full is for dedup (the other jobs already look only at what is due)")
        extra: dict[str, Any] = {"full": True} if full else {}
        task_id = f"manual-{uuid.uuid4()}"
        if not dry_run:
            ops.job_run_started(task_id=task_id, name=f"episodic.{job}", args=[], kwargs={}, hostname="manage.py")
        started = time.perf_counter()
        try:
            report = maintenance.run(job, dry_run=dry_run, **extra)
        except Exception as exc:
            if not dry_run:
                ops.job_run_finished(task_id=task_id, status=JobRun.Status.FAILED, error=repr(exc))
            raise
        if not dry_run:
            ops.job_run_finished(task_id=task_id, status=JobRun.Status.SUCCEEDED, result=report.result())
        for action in report.actions:
            self.stdout.write(f"would {action}")
        if dry_run and sum(report.counts.values()) > len(report.actions):
            self.stdout.write(f"(listed the first {len(report.actions)})")
        counts = ", ".join(f"{name} {n}" for name, n in sorted(report.counts.items())) or "nothing to do"
        if report.looked_at:
            counts += " (" + ", ".join(f"{name} {n}" for name, n in sorted(report.looked_at.items())) + ")"
        verb = "would change" if dry_run else "done"
        self.stdout.write(f"{job}: {verb}: {counts} ({time.perf_counter() - started:.1f} s)")
