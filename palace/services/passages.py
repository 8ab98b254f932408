"""Passages: their vectors once mining has filed the drawers (`passages_embed`, a job of its own on the
mining queue), and passages for drawers filed without them (`passages_build`: palaces mined before
passages existed, and imported ones). Mining writes a new drawer's passages, without vectors, itself
(palace/services/mining.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from celery import current_app
from django.db.models import Exists, OuterRef

from episodic import providers
from memory_site.redis_client import BREAKER
from palace.models import Drawer, Passage
from palace.passages import SPLIT_ROLES, passages_of
from palace.services.vectors import vectors_refresh

logger = logging.getLogger(__name__)

BATCH = 256  # drawers read at a time
EMBED_TASK = "palace.embed_passages"  # sent by name: services never import tasks (palace/tasks.py)


def passages_embed_send(*, conversation_ids: list[Any]) -> bool:
    """Ask the mining queue to embed these conversations' passages; True when sent. Queued behind the
    mining jobs already waiting, so a backlog's drawers are filed first. A broker outage leaves them to
    the embedding_backfill job, which embeds every passage still without a vector."""
    if not conversation_ids or BREAKER.is_open:
        return False  # the breaker: Redis (the broker) was just found unavailable; the backfill has them
    try:
        current_app.send_task(EMBED_TASK, args=([str(c) for c in conversation_ids],), retry=False)
    except Exception:
        logger.warning("could not send the passages' embedding job; the backfill will embed them", exc_info=True)
        return False
    return True


def passages_embed(*, conversation_ids: list[Any]) -> int:
    """Embed the passages of these conversations' drawers that have no vector yet; the number embedded.
    Idempotent and safe beside the backfill: a vector is written only while the passage still has none.
    With the embedder down, nothing is written and the backfill retries later."""
    missing = Passage.objects.filter(drawer__conversation_id__in=conversation_ids, embedding__isnull=True)
    return vectors_refresh(missing, text_field="text", only_missing=True)


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
