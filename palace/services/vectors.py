"""Vectors written again from a table's text with the current embedder: the admin's re-embed action and
the passages' follow-up job (palace/services/passages.py). Slow calls stay outside the transactions."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import QuerySet

from episodic import providers
from palace.models import Drawer, Passage


def vectors_refresh(rows: QuerySet[Any], *, text_field: str, only_missing: bool) -> int:
    """Embed `rows` (drawers or passages) from their `text_field`, one batch per owner; the number
    written. `only_missing` writes a vector only while the row still has none (safe beside the backfill).
    An owner whose batch the embedder fails keeps its old vectors (or none: the backfill retries)."""
    model = rows.model
    found = list(rows.order_by("pk").values("pk", "owner_id", text_field))
    done = 0
    for owner_id in {row["owner_id"] for row in found}:
        owner_rows = [row for row in found if row["owner_id"] == owner_id]
        vectors = providers.embed_documents(owner_id=owner_id, texts=[row[text_field] for row in owner_rows])
        if vectors is None:
            continue
        name = providers.get_embedder().name
        with transaction.atomic():
            for row, vector in zip(owner_rows, vectors, strict=True):
                target = model._default_manager.filter(pk=row["pk"])
                if only_missing:
                    target = target.filter(embedding__isnull=True)
                done += target.update(embedding=vector, embedding_model=name)
    return done


def drawers_reembed(*, drawer_ids: list[int]) -> int:
    """Embed these drawers again with the current embedder (the operator's admin action, e.g. after a
    model change), and their passages with them; the number of drawers embedded. With the embedder down
    the rows keep their old vectors and 0 is returned."""
    vectors_refresh(Passage.objects.filter(drawer_id__in=drawer_ids), text_field="text", only_missing=False)
    return vectors_refresh(Drawer.objects.filter(pk__in=drawer_ids), text_field="content", only_missing=False)
