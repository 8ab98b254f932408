"""How far each maintenance job has got: the next run looks only at what changed since."""

from __future__ import annotations

from django.db import models


class MaintenanceMark(models.Model):
    """Rows changed before `probed_until` were probed by a completed run of `job`. Written only when a
    run completes, so a run that fails or is killed leaves the mark where it was and the next run looks
    at those rows again."""

    job = models.CharField(max_length=50, unique=True)
    probed_until = models.DateTimeField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.job} until {self.probed_until:%Y-%m-%d %H:%M:%S}"
