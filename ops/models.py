"""Operations: a record of every Celery job run."""

from __future__ import annotations

from django.db import models


class JobRun(models.Model):
    """One row per Celery task id, written by the signal receivers in `ops.signals`. A retried or
    re-delivered task (acks_late after a lost worker) keeps its task id: `attempts` counts the runs."""

    class Status(models.TextChoices):
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        RETRYING = "retrying"

    task_id = models.CharField(max_length=255, unique=True)
    name = models.CharField(max_length=200, db_index=True)
    args = models.JSONField(default=list, blank=True)
    kwargs = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    hostname = models.CharField(max_length=255, blank=True, default="")
    started_at = models.DateTimeField(null=True, blank=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    counts = models.JSONField(default=dict, blank=True, help_text="What the job reported it did.")
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["name", "-started_at"], name="jobrun_name_started")]

    def __str__(self) -> str:
        return f"{self.name} [{self.status}] {self.task_id}"

    @property
    def duration_seconds(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()
