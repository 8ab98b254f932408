"""Embedding backfill: embed the rows of every table with embeddings (episodic.vector_tables) that were
stored without one, because the embedder was down."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction

from episodic import providers, vector_tables
from episodic.services.maintenance.report import Report


def embedding_backfill(*, batch_size: int = 64, max_batches: int = 50) -> dict[str, int]:
    """Embed rows stored without an embedding (the embedder was down, or a paid embedder was held back
    by the owner's budget). Safe to run twice at once: each row is written only while its embedding is
    still null. Owners over budget are left for a later run (next month, or once the limit is raised)
    and counted in `owners_over_budget`."""
    counts: dict[str, int] = {"failed": 0, "owners_over_budget": 0}
    over_budget: set[int] = set()
    for table in vector_tables.tables():
        model, text_field = table.model, table.text_field
        key = str(model._meta.verbose_name_plural).replace(" ", "_")
        counts.setdefault(key, 0)
        for _ in range(max_batches):
            # Their oldest rows would otherwise fill every batch and starve the other owners.
            rows = list(
                model._default_manager.filter(embedding__isnull=True)
                .exclude(owner_id__in=over_budget)
                .order_by("created_at")
                .values("pk", "owner_id", text_field)[:batch_size]
            )
            if not rows:
                break
            by_owner: dict[int, list[dict[str, Any]]] = {}
            for row in rows:
                by_owner.setdefault(row["owner_id"], []).append(row)
            progressed = False
            for owner_id, owner_rows in by_owner.items():
                if providers.embedding_over_budget(owner_id=owner_id):
                    over_budget.add(owner_id)
                    counts["owners_over_budget"] = len(over_budget)
                    progressed = True  # the next batch excludes them: the loop moves on
                    continue
                vectors = providers.embed_documents(owner_id=owner_id, texts=[r[text_field] for r in owner_rows])
                if vectors is None:
                    counts["failed"] += len(owner_rows)
                    continue
                name = providers.get_embedder().name
                with transaction.atomic():
                    for row, vector in zip(owner_rows, vectors, strict=True):
                        counts[key] += model._default_manager.filter(pk=row["pk"], embedding__isnull=True).update(
                            embedding=vector, embedding_model=name
                        )
                progressed = True
            if not progressed:
                return counts  # the embedder is still down; the next run tries again
    return counts


def embedding_backfill_job(report: Report, now: datetime) -> None:
    if report.dry_run:
        for table in vector_tables.tables():
            key = str(table.model._meta.verbose_name_plural).replace(" ", "_")
            missing = table.model._default_manager.filter(embedding__isnull=True).count()
            report.add(key, missing, action=f"embed {missing} {key}" if missing else "")
        return
    report.counts.update(embedding_backfill())
