"""Re-embed every row with the configured embedder, after a model change.

    manage.py reembed            # every episode and typed memory, with a progress bar
    manage.py reembed --missing  # only rows without an embedding (what the backfill job does)

When EMBEDDING_DIM no longer matches the vector columns (a model of another dimension), the columns are
changed to the new dimension first (their old vectors cannot be kept: they are cleared, then rebuilt
here), with their HNSW indexes dropped and rebuilt around it.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction

from episodic import providers, vector_tables


def _column_dim(table: str) -> int | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE c.relname = %s AND a.attname = 'embedding'",
            [table],
        )
        row = cursor.fetchone()
    return int(row[0][len("vector(") : -1]) if row and row[0].startswith("vector(") else None


def _hnsw_index(index: str, table: str) -> str:
    return (
        f'CREATE INDEX "{index}" ON "{table}" USING hnsw (embedding vector_cosine_ops) '
        "WITH (m = 16, ef_construction = 64)"
    )


class Command(BaseCommand):
    help = "Re-embed every episode and typed memory with the configured model (after a model change)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--missing", action="store_true", help="only rows without an embedding")
        parser.add_argument("--batch-size", type=int, default=32)

    def handle(self, *args: Any, missing: bool, batch_size: int, **options: Any) -> None:
        mismatch = providers.dimension_mismatch()
        if mismatch:
            raise CommandError(mismatch)
        embedder = providers.get_embedder()
        self.stdout.write(f"embedder: {embedder.provider} {embedder.name} ({embedder.dim} dimensions)")
        for table in vector_tables.tables():
            self._fit_column(table.model._meta.db_table, table.index_name)
        for table in vector_tables.tables():
            manager = table.model._default_manager
            queryset = manager.all() if not missing else manager.filter(embedding__isnull=True)
            self._reembed(table.model, queryset.order_by("pk"), table.text_field, batch_size)

    def _fit_column(self, table: str, index: str) -> None:
        dim = settings.EMBEDDING_DIM
        current = _column_dim(table)
        if current == dim:
            return
        self.stdout.write(f"{table}.embedding: vector({current}) -> vector({dim}); old vectors are cleared")
        with transaction.atomic(), connection.cursor() as cursor:
            # Deferred foreign-key checks of rows written earlier in the same transaction would block the ALTER.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            # The index is rebuilt as it was defined (a partial index keeps its condition).
            cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [index])
            row = cursor.fetchone()
            definition = row[0] if row else _hnsw_index(index, table)
            cursor.execute(f'DROP INDEX IF EXISTS "{index}"')
            cursor.execute(f'ALTER TABLE "{table}" ALTER COLUMN embedding TYPE vector({int(dim)}) USING NULL')
            cursor.execute(definition)

    def _reembed(self, model: Any, queryset: Any, text_field: str, batch_size: int) -> None:
        total = queryset.count()
        label = model._meta.verbose_name_plural
        done = failed = 0
        started = time.monotonic()
        last_pk = None
        while True:
            page = queryset if last_pk is None else queryset.filter(pk__gt=last_pk)
            rows = list(page.values("pk", "owner_id", text_field)[:batch_size])
            if not rows:
                break
            last_pk = rows[-1]["pk"]
            by_owner: dict[int, list[dict[str, Any]]] = {}
            for row in rows:
                by_owner.setdefault(row["owner_id"], []).append(row)
            for owner_id, owner_rows in by_owner.items():
                vectors = providers.embed_documents(owner_id=owner_id, texts=[r[text_field] for r in owner_rows])
                if vectors is None:
                    failed += len(owner_rows)
                    continue
                name = providers.get_embedder().name
                with transaction.atomic():
                    for row, vector in zip(owner_rows, vectors, strict=True):
                        model.objects.filter(pk=row["pk"]).update(embedding=vector, embedding_model=name)
            done += len(rows)
            self._progress(label, done, total, started)
        self._progress(label, done, total, started, final=True)
        if failed:
            self.stderr.write(f"{failed} {label} could not be embedded; the backfill job will retry them")

    def _progress(self, label: str, done: int, total: int, started: float, final: bool = False) -> None:
        width = 30
        filled = width if total == 0 else int(width * done / total)
        rate = done / max(time.monotonic() - started, 1e-9)
        line = f"\r{label:>15} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} ({rate:.1f}/s)"
        self.stdout.write(line, ending="\n" if final else "")
        self.stdout.flush()
