"""Context assembly: every memory layer in one call, deduplicated, ranked and fitted to a token budget.

A layer is one small adapter — a function registered with `@layer(name)` that turns a `ContextQuery`
into `Piece`s (a label and a body, a reference, a relevance in 0..1, when it happened, its embedding if
it has one) or raises `LayerDown`, which leaves it out and names it in `degraded`. The layers here: the
conversation's working memory (Redis), the session's short-term entries (the session is the
conversation id) and the long-term context entries the calling agent may read, episodes, typed
memories the agent may read, and palace drawers (through recall). The query is embedded once and
shared; when the embedder is down every layer searches by keywords alone and `semantic` is reported
degraded.

Then:
1. **relevance**: cosine similarity to the query where there is one, else half the normalised keyword
   rank (a searched piece sharing no word with the query and less similar than RECALL_MIN_SIMILARITY is
   left out, as recall leaves such a drawer out); working memory is the conversation's own state and
   counts as 1, the session's short-term entries 0.8 (they are read, so they count an access, which is
   what consolidation promotes by);
2. **rank**: score = relevance x (0.8 + 0.2 x recency), recency halving every 30 days before the
   reference time;
3. **dedup**: a piece whose whitespace-normalised, case-folded text equals or is contained in a
   better-scored piece's, or whose embedding has cosine >= CONTEXT_DEDUP_COSINE with one, is dropped;
4. **budget**: pieces are taken best first while the rendered block stays within the budget; a piece
   that does not fit is skipped whole (text is never cut or paraphrased). Tokens are the default
   embedder's word pieces (its tokenizer ships with the model) or, with another embedder, an estimate
   of 4 characters per token.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Agent
from accounts.services import memory_settings_ensure
from episodic import providers
from episodic.selectors.episodes import episodes_visible
from episodic.selectors.search import Hit, hybrid_search
from episodic.selectors.typed_memories import typed_visible
from episodic.services.context_entries import entry_search
from episodic.services.short_term import short_term_read_session
from ledger.redis_store import RedisUnavailable
from ledger.selectors import working_memory_get
from palace import pending
from palace.recall import recall, recall_skipped

CONTEXT_DEDUP_COSINE = 0.92
RECENCY_HALF_LIFE_DAYS = 30.0


class LayerDown(Exception):
    """The layer's store is unreachable: assembly goes on without it and reports it degraded."""


@dataclass(frozen=True)
class ContextQuery:
    owner: User
    agent: Agent | None
    text: str
    vector: list[float] | None
    conversation_id: str | None
    per_layer: int
    reference_time: datetime
    tz: ZoneInfo


@dataclass
class Piece:
    source: str
    ref: str
    label: str  # where and when it comes from, e.g. "[episode 2024-03-01]"
    body: str  # what it says; duplicates are found by their bodies, whatever their labels
    relevance: float
    occurred_at: datetime | None
    vector: list[float] | None = None
    score: float = 0.0
    tokens: int = 0
    drawer_id: int | None = None  # a palace drawer's: its read is recorded when the piece is sent

    @property
    def text(self) -> str:
        """The line as it appears in the block."""
        return f"{self.label} {self.body}"

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "ref": self.ref,
            "text": self.text,
            "relevance": round(self.relevance, 6),
            "score": round(self.score, 6),
            "occurred_at": self.occurred_at.isoformat() if self.occurred_at else None,
            "tokens": self.tokens,
        }


Layer = Callable[[ContextQuery], list[Piece]]
LAYERS: dict[str, Layer] = {}


def layer(name: str) -> Callable[[Layer], Layer]:
    def register(function: Layer) -> Layer:
        LAYERS[name] = function
        return function

    return register


def layer_names() -> list[str]:
    return list(LAYERS)


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _relevance(similarity: float | None, keyword: float, best_keyword: float) -> float:
    if similarity is not None:
        return max(0.0, min(1.0, similarity))
    return 0.5 * (keyword / best_keyword) if best_keyword else 0.0


@layer("working_memory")
def _working_memory(q: ContextQuery) -> list[Piece]:
    if not q.conversation_id:
        return []
    try:
        fields = working_memory_get(owner_id=q.owner.pk, conversation_id=q.conversation_id)
    except RedisUnavailable as exc:
        raise LayerDown(str(exc)) from exc
    return [
        Piece(
            source="working_memory",
            ref=name,
            label="[working memory]",
            body=f"{name}: {_json_text(value)}",
            relevance=1.0,
            occurred_at=q.reference_time,
        )
        for name, value in sorted(fields.items())
    ]


@layer("short_term")
def _short_term(q: ContextQuery) -> list[Piece]:
    if q.agent is None or not q.conversation_id:
        return []
    entries = short_term_read_session(agent=q.agent, session_id=q.conversation_id, limit=q.per_layer)
    return [
        Piece(
            source="short_term",
            ref=f"{e.session_id}/{e.key}",
            label=f"[short-term {e.memory_type}]",
            body=f"{e.key}: {_json_text(e.value)}",
            relevance=0.8,
            occurred_at=e.updated_at,
        )
        for e in entries
    ]


def _searched(
    source: str,
    hits: list[Hit[Any]],
    *,
    label: Callable[[Any], str],
    body: Callable[[Any], str],
    occurred_at: Callable[[Any], datetime],
) -> list[Piece]:
    """Pieces from a hybrid search's hits (long-term entries, episodes, typed memories alike), searched
    with RECALL_MIN_SIMILARITY as recall is: the nearest vector of a small set is not relevant because it
    is nearest, and a hit left out is neither counted as read nor takes the place of a related one."""
    best = max((h.keyword for h in hits), default=0.0)
    return [
        Piece(
            source=source,
            ref=str(h.item.pk),
            label=label(h.item),
            body=body(h.item),
            relevance=_relevance(h.similarity, h.keyword, best),
            occurred_at=occurred_at(h.item),
            vector=list(h.item.embedding) if h.item.embedding is not None else None,
        )
        for h in hits
    ]


def _hybrid(q: ContextQuery, queryset: QuerySet[Any]) -> list[Hit[Any]]:
    """The layer's search, with recall's relevance floor."""
    return hybrid_search(
        queryset, query=q.text, vector=q.vector, limit=q.per_layer, min_similarity=settings.RECALL_MIN_SIMILARITY
    )


@layer("long_term")
def _long_term(q: ContextQuery) -> list[Piece]:
    if q.agent is None:
        return []
    return _searched(
        "long_term",
        entry_search(
            agent=q.agent,
            query=q.text,
            limit=q.per_layer,
            vector=q.vector,
            min_similarity=settings.RECALL_MIN_SIMILARITY,
        ),
        label=lambda entry: f"[{entry.entry_type} {entry.created_at.astimezone(q.tz):%Y-%m-%d}]",
        body=lambda entry: entry.content,
        occurred_at=lambda entry: entry.created_at,
    )


@layer("episodes")
def _episodes(q: ContextQuery) -> list[Piece]:
    return _searched(
        "episodes",
        _hybrid(q, episodes_visible(owner=q.owner)),
        label=lambda episode: f"[episode {episode.occurred_at.astimezone(q.tz):%Y-%m-%d}]",
        body=lambda episode: episode.summary,
        occurred_at=lambda episode: episode.occurred_at,
    )


@layer("typed_memories")
def _typed_memories(q: ContextQuery) -> list[Piece]:
    if q.agent is None:
        return []
    return _searched(
        "typed_memories",
        _hybrid(q, typed_visible(agent=q.agent)),
        label=lambda memory: f"[{memory.memory_type} memory]",
        body=lambda memory: memory.content,
        occurred_at=lambda memory: memory.created_at,
    )


@layer("drawers")
def _drawers(q: ContextQuery) -> list[Piece]:
    result = recall(
        owner=q.owner,
        query=q.text,
        top_k=q.per_layer,
        reference_time=q.reference_time,
        vector=q.vector,
        use_rerank=False,
        with_vectors=True,
    )
    asked = _normal(q.text)
    return [
        Piece(
            source="drawers",
            ref=hit.drawer.aaak or pending.POINTER,
            label=f"{hit.drawer.aaak or pending.POINTER} [{hit.drawer.occurred_at.astimezone(q.tz):%Y-%m-%d}] "
            f"{hit.drawer.role}:",
            body=hit.drawer.content.strip(),
            relevance=hit.signals["semantic"] if q.vector is not None else 0.5 * hit.signals["keyword"],
            occurred_at=hit.drawer.occurred_at,
            vector=list(hit.drawer.embedding) if hit.drawer.embedding is not None else None,
            drawer_id=hit.drawer.pk,
        )
        for hit in result.hits
        # The message being asked about, and any turn of this very conversation still being filed: the agent
        # holds them in its own window already (the README loop appends the message, then asks).
        if _normal(hit.drawer.content) != asked and not (hit.pending and _same_conversation(hit, q.conversation_id))
    ]


def _same_conversation(hit: Any, conversation_id: str | None) -> bool:
    conversation = getattr(hit.drawer, "conversation", None)
    return bool(conversation_id) and conversation is not None and conversation.external_id == conversation_id


@dataclass
class Assembled:
    memory_context: str
    pieces: list[Piece]
    tokens: int
    token_budget: int
    token_counter: str
    degraded: list[str] = field(default_factory=list)
    skipped: str | None = None
    dropped: dict[str, int] = field(default_factory=lambda: {"duplicates": 0, "over_budget": 0})

    def as_json(self) -> dict[str, Any]:
        return {
            "memory_context": self.memory_context,
            "pieces": [p.as_json() for p in self.pieces],
            "tokens": self.tokens,
            "token_budget": self.token_budget,
            "token_counter": self.token_counter,
            "degraded": self.degraded,
            "skipped": self.skipped,
            "dropped": self.dropped,
        }


def token_counter() -> tuple[str, Callable[[list[str]], list[int]]]:
    """The default embedder's tokenizer when it is loaded, else 4 characters per token."""
    counter = getattr(providers.get_embedder(), "count_tokens", None)
    if counter is not None:
        return "all-MiniLM-L6-v2 word pieces", counter
    return "estimate: 4 characters per token", lambda texts: [math.ceil(len(t) / 4) for t in texts]


def _normal(text: str) -> str:
    return " ".join(text.casefold().split())


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _deduplicate(pieces: list[Piece]) -> tuple[list[Piece], int]:
    kept: list[Piece] = []
    kept_bodies: list[str] = []
    for piece in pieces:  # best first
        body = _normal(piece.body)
        duplicate = any(body == other or (len(body) >= 20 and body in other) for other in kept_bodies) or any(
            piece.vector is not None
            and other.vector is not None
            and _cosine(piece.vector, other.vector) >= CONTEXT_DEDUP_COSINE
            for other in kept
        )
        if not duplicate:
            kept.append(piece)
            kept_bodies.append(body)
    return kept, len(pieces) - len(kept)


OPEN, CLOSE = "<memory_context>", "</memory_context>"


def assemble(
    *,
    owner: User,
    agent: Agent | None,
    query: str,
    conversation_id: str | None = None,
    token_budget: int,
    per_layer: int = 5,
    layers: list[str] | None = None,
    reference_time: datetime | None = None,
) -> Assembled:
    name, count = token_counter()
    result = Assembled(memory_context="", pieces=[], tokens=0, token_budget=token_budget, token_counter=name)
    memory_settings = memory_settings_ensure(user=owner)
    result.skipped = recall_skipped(memory_settings=memory_settings, agent=agent)
    if result.skipped is not None:
        return result
    reference = reference_time or timezone.now()
    vector = providers.embed_query(owner_id=owner.pk, text=query)
    if vector is None:
        result.degraded.append("semantic")
    q = ContextQuery(
        owner=owner,
        agent=agent,
        text=query,
        vector=vector,
        conversation_id=conversation_id,
        per_layer=per_layer,
        reference_time=reference,
        tz=ZoneInfo(memory_settings.timezone),
    )
    pieces: list[Piece] = []
    for layer_name in layers or layer_names():
        try:
            pieces += LAYERS[layer_name](q)
        except LayerDown:
            result.degraded.append(layer_name)
    for piece in pieces:
        age_days = max((reference - piece.occurred_at).total_seconds() / 86400, 0.0) if piece.occurred_at else 0.0
        piece.score = piece.relevance * (0.8 + 0.2 * 0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS))
    pieces.sort(key=lambda p: -p.score)
    pieces, result.dropped["duplicates"] = _deduplicate(pieces)

    for piece, tokens in zip(pieces, count([p.text for p in pieces]), strict=True):
        piece.tokens = tokens
    frame = sum(count([OPEN, CLOSE]))
    used = frame
    chosen: list[Piece] = []
    for piece in pieces:
        if used + piece.tokens <= token_budget:
            chosen.append(piece)
            used += piece.tokens
        else:
            result.dropped["over_budget"] += 1
    block = "\n".join([OPEN, *(p.text for p in chosen), CLOSE]) if chosen else ""
    # The whole block counted again: a join must never push it over the budget.
    while chosen and count([block])[0] > token_budget:
        chosen.pop()
        result.dropped["over_budget"] += 1
        block = "\n".join([OPEN, *(p.text for p in chosen), CLOSE]) if chosen else ""
    result.pieces = chosen
    result.memory_context = block
    result.tokens = count([block])[0] if block else 0
    return result
