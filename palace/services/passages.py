"""Passages for drawers filed without them: palaces mined before passages existed, and imported ones.
Mining writes a new drawer's passages itself (palace/services/mining.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from episodic import providers
from palace.models import Drawer, Passage
from palace.passages import SPLIT_ROLES, passages_of

BATCH = 256  # drawers read at a time


@dataclass
class Built:
    drawers: int = 0  # drawers read
    passages: int = 0  # passages written
    embedded: int = 0  # of those, with a vector (the rest wait for the embedding backfill)
    total: int = 0  # drawers to read


def passages_build(*, owner_id: int | None = None, progress: Callable[[Built], None] | None = None) -> Built:
    """Split and embed the passages of every drawer (one owner's, or everyone's) that has none yet.
    Idempotent: a drawer with passages is skipped, and the unique (drawer, position) makes a run racing
    another write each passage once. With the embedder down the passages are written without vectors
    and the embedding_backfill job embeds them later."""
    drawers = Drawer.objects.filter(role__in=SPLIT_ROLES).exclude(
        Exists(Passage.objects.filter(drawer_id=OuterRef("pk")))
    )
    if owner_id is not None:
        drawers = drawers.filter(owner_id=owner_id)
    built = Built(total=drawers.count())
    last = 0
    while True:
        rows = list(drawers.filter(pk__gt=last).order_by("pk").values("pk", "owner_id", "role", "content")[:BATCH])
        if not rows:
            break
        last = rows[-1]["pk"]
        built.drawers += len(rows)
        by_owner: dict[int, list[Passage]] = {}
        for row in rows:
            for position, text in enumerate(passages_of(row["role"], row["content"])):
                by_owner.setdefault(row["owner_id"], []).append(
                    Passage(owner_id=row["owner_id"], drawer_id=row["pk"], position=position, text=text)
                )
        for owner, passages in by_owner.items():
            vectors = providers.embed_documents(owner_id=owner, texts=[p.text for p in passages])
            if vectors is not None:
                name = providers.get_embedder().name
                for passage, vector in zip(passages, vectors, strict=True):
                    passage.embedding, passage.embedding_model = vector, name
                built.embedded += len(passages)
            Passage.objects.bulk_create(passages, ignore_conflicts=True)
            built.passages += len(passages)
        if progress is not None:
            progress(built)
    return built
