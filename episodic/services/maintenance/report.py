"""What every maintenance job shares: its report, keyset batches, and deletes in batches."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import QuerySet

_MAX_LISTED = 200


@dataclass
class Report:
    dry_run: bool
    counts: dict[str, int] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)  # what a dry run would do (the first _MAX_LISTED)
    looked_at: dict[str, int] = field(default_factory=dict)  # rows examined, apart from the changes counted

    def add(self, name: str, n: int = 1, action: str = "") -> None:
        self.counts[name] = self.counts.get(name, 0) + n
        if action and self.dry_run and len(self.actions) < _MAX_LISTED:
            self.actions.append(action)

    def result(self) -> dict[str, int]:
        return {**self.counts, **self.looked_at, "dry_run": int(self.dry_run)}


def batches(queryset: QuerySet[Any], size: int) -> Iterator[list[Any]]:
    """Keyset batches by primary key, each read fresh (rows changed by the previous batch are seen)."""
    last = None
    while True:
        page = queryset.order_by("pk")
        if last is not None:
            page = page.filter(pk__gt=last)
        rows = list(page[:size])
        if not rows:
            return
        yield rows
        last = rows[-1].pk


def delete_in_batches(report: Report, name: str, queryset: QuerySet[Any], describe: Callable[[Any], str]) -> None:
    if report.dry_run:
        for batch in batches(queryset, settings.MAINTENANCE_BATCH_SIZE):
            for row in batch:
                report.add(name, action=describe(row))
        report.counts.setdefault(name, 0)
        return
    report.counts.setdefault(name, 0)
    while True:
        ids = list(queryset.order_by("pk").values_list("pk", flat=True)[: settings.MAINTENANCE_BATCH_SIZE])
        if not ids:
            return
        deleted = queryset.model._default_manager.filter(pk__in=ids).delete()[1].get(queryset.model._meta.label, 0)
        report.add(name, deleted)
