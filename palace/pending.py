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

from django.db import connection

from episodic import providers
from palace import preferences
from palace.exclusions import exclusion_matcher
from palace.models import Conversation, Drawer

if TYPE_CHECKING:
    from palace.recall import Filters

PENDING_CANDIDATES = 20  # by full-text rank; a query rarely has more relevant turns still waiting
# The newest matching turns ranked, at most: behind a long backlog (a worker starved by load) ranking every
# match would make each recall slower the further mining falls behind; the newest are what recall needs most.
PENDING_SCAN = 300
PENDING_EMBEDDED = 8  # of those, embedded at query time (local embedder only)
POINTER = "§ new"  # in the <memory_context> block: filed moments from now, then it gets its own pointer


def is_pending(pk: int) -> bool:
    return pk < 0


# One statement with fixed text (only values are parameters): the ORM spent ~1.5 ms of a recall building
# this query, which runs in ~0.3 ms. The text search expression is the partial index's own.
_DOCUMENT = "to_tsvector('english'::regconfig, COALESCE(t.content, ''))"
_PENDING_SQL = f"""
SELECT t.id, t.conversation_id, t.index, t.role, t.content, t.occurred_at,
       ts_rank_cd({_DOCUMENT}, t.query) AS rank,
       ARRAY(SELECT unnest(tsvector_to_array({_DOCUMENT})) INTERSECT SELECT unnest(%(lexemes)s::text[])) AS matched
FROM (
    SELECT t.id, t.conversation_id, t.index, t.role, t.content, COALESCE(t.timestamp, c.started_at) AS occurred_at,
           q.query
    FROM palace_turn t
    JOIN palace_conversation c ON c.id = t.conversation_id
    LEFT JOIN accounts_agent a ON a.id = c.agent_id
    CROSS JOIN websearch_to_tsquery('english'::regconfig, %(words)s) AS q(query)
    WHERE t.pending AND c.owner_id = %(owner)s
      AND {_DOCUMENT} @@ q.query
      AND NOT COALESCE(a.config @> '{{"mining_paused": true}}'::jsonb, false)
      AND (%(agent)s::uuid IS NULL OR c.agent_id = %(agent)s::uuid)
      AND (%(since)s::timestamptz IS NULL OR COALESCE(t.timestamp, c.started_at) >= %(since)s::timestamptz)
      AND (%(until)s::timestamptz IS NULL OR COALESCE(t.timestamp, c.started_at) < %(until)s::timestamptz)
    ORDER BY t.id DESC
    LIMIT %(scan)s
) t
ORDER BY ts_rank_cd({_DOCUMENT}, t.query, 1) DESC, t.id
LIMIT %(limit)s
"""
_COLUMNS = ("pk", "conversation_id", "index", "role", "content", "occurred_at", "rank", "matched")


def pending_rows(
    *, owner_id: int, filters: Filters, words: list[str], lexemes: list[str], vector: list[float] | None
) -> dict[int, dict[str, Any]]:
    """The owner's pending turns holding any of the query's content `words`, as recall's candidate rows
    (keyed by the negated turn id), with `rank` and, when embedded here, `distance`.

    Chosen by rank over log length (normalisation 1): behind a backlog hundreds of turns wait, and a
    long answer that repeats a query word would otherwise push out the short turn the query is about.
    The signal itself is the plain rank, comparable with the drawers'. An agent whose mining is paused
    has nothing pending recalled."""
    if not words or filters.wing_id is not None or filters.room_id is not None:
        return {}  # not filed yet: in no wing or room
    params: dict[str, Any] = {
        "words": " or ".join(words),
        "lexemes": lexemes,
        "owner": owner_id,
        "agent": str(filters.agent_id) if filters.agent_id is not None else None,
        "since": filters.since,
        "until": filters.until,
        "limit": PENDING_CANDIDATES,
        "scan": PENDING_SCAN,
    }
    with connection.cursor() as cursor:
        cursor.execute(_PENDING_SQL, params)
        found = [dict(zip(_COLUMNS, row, strict=True)) for row in cursor.fetchall()]
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
            "matched": turn["matched"],
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
