"""Pending turns in recall: turns posted but not yet filed as drawers by the miner.

A turn is findable as soon as its POST returns. Mining runs behind a queue (seconds when the worker is
idle, longer behind a backlog), so recall also reads the owner's pending turns through a partial
full-text index that holds only them (`turn_pending_text`: a backlog's worth of rows, whatever the
table's size). The best of them by full-text rank are embedded on the spot when the embedder is the
local one (free, ~2 ms a short turn, and the query's vector is already there), so they compete with
filed drawers on meaning as well as words; with a paid embedder they compete by words only, and the
worker's embedding comes when it files them.

A pending turn has no drawer yet: no id, no pointer, no wing or room. Its row carries the turn's id
negated as `pk`, which keeps it apart from every drawer id (all positive) through fusion; recall turns
it into an unsaved Drawer for the response. Exclusion rules are applied here as the miner would apply
them, and an agent whose mining is paused has nothing pending recalled: what the person held back is
not remembered by the back door.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db.models import F, Value
from django.db.models.functions import Coalesce

from episodic import providers
from palace import preferences
from palace.exclusions import exclusion_matcher
from palace.models import Conversation, Drawer, Turn

if TYPE_CHECKING:
    from palace.recall import Filters

PENDING_CANDIDATES = 20  # by full-text rank; a query rarely has more relevant turns still waiting
PENDING_EMBEDDED = 8  # of those, embedded at query time (local embedder only)
POINTER = "§ new"  # in the <memory_context> block: filed moments from now, then it gets its own pointer


def is_pending(pk: int) -> bool:
    return pk < 0


def pending_rows(
    *, owner_id: int, filters: Filters, ranker: SearchQuery, vector: list[float] | None
) -> dict[int, dict[str, Any]]:
    """The owner's pending turns matching the query's words, as recall's candidate rows (keyed by the
    negated turn id), with `rank` and, when embedded here, `distance`."""
    if filters.wing_id is not None or filters.room_id is not None:
        return {}  # not filed yet: in no wing or room
    turns = Turn.objects.filter(pending=True, conversation__owner_id=owner_id).exclude(
        conversation__agent__config__contains={"mining_paused": True}
    )
    if filters.agent_id is not None:
        turns = turns.filter(conversation__agent_id=filters.agent_id)
    turns = turns.annotate(occurred_at=Coalesce("timestamp", "conversation__started_at"))
    if filters.since is not None:
        turns = turns.filter(occurred_at__gte=filters.since)
    if filters.until is not None:
        turns = turns.filter(occurred_at__lt=filters.until)
    # The same expression as the partial index, so PostgreSQL reads the index.
    matched = turns.annotate(document=SearchVector("content", config="english")).filter(document=ranker)
    # Chosen by rank over log length: behind a backlog hundreds of turns wait, and a long answer that
    # repeats a query word would otherwise push out the short turn the query is about. The signal
    # itself is the plain rank, comparable with the drawers'.
    found = list(
        matched.annotate(
            rank=SearchRank(F("document"), ranker, cover_density=True),
            choice=SearchRank(F("document"), ranker, cover_density=True, normalization=Value(1)),
        )
        .order_by("-choice", "pk")
        .values("pk", "conversation_id", "index", "role", "content", "occurred_at", "rank")[:PENDING_CANDIDATES]
    )
    if not found:
        return {}
    excluded = exclusion_matcher(owner=owner_id)
    found = [turn for turn in found if excluded(turn["content"]) is None]
    distances = _distances(owner_id, [t["content"] for t in found[:PENDING_EMBEDDED]], vector)
    rows = {}
    for position, turn in enumerate(found):
        rows[-turn["pk"]] = {
            "pk": -turn["pk"],
            "conversation_id": turn["conversation_id"],
            "turn_index": turn["index"],
            "role": turn["role"],
            "occurred_at": turn["occurred_at"],
            "stated_preference": turn["role"] == "user" and preferences.states_preference(turn["content"]),
            "pinned": False,
            "content": turn["content"],
            "tags": {},
            "rank": turn["rank"],
            "distance": distances[position] if position < len(distances) else None,
        }
    return rows


def _distances(owner_id: int, texts: list[str], vector: list[float] | None) -> list[float | None]:
    """Cosine distances of the texts to the query's vector (both unit length), embedded here only with
    the local embedder; None each when not embedded."""
    if vector is None or not texts or providers.embedder_is_paid():
        return [None] * len(texts)
    vectors = providers.embed_documents_cached(owner_id=owner_id, texts=texts)
    if vectors is None:
        return [None] * len(texts)
    return [1.0 - sum(a * b for a, b in zip(v, vector, strict=True)) for v in vectors]


def pending_drawers(rows: list[dict[str, Any]], owner_id: int) -> dict[int, Drawer]:
    """Unsaved drawers standing for pending turns in recall's hits (no id, no pointer, no room)."""
    conversations = Conversation.objects.in_bulk({row["conversation_id"] for row in rows})
    return {
        row["pk"]: Drawer(
            owner_id=owner_id,
            conversation=conversations[row["conversation_id"]],
            turn_index=row["turn_index"],
            role=row["role"],
            content=row["content"],
            occurred_at=row["occurred_at"],
            aaak="",
            tags={},
        )
        for row in rows
        if row["conversation_id"] in conversations
    }
