"""Recall: the drawers an agent should see before its next LLM call, and the `<memory_context>` block.

Seven signals, each normalised to 0..1 for every candidate drawer:
- **semantic**: cosine similarity of the drawer's embedding to the query's (pgvector HNSW, owner-filtered,
  with pgvector 0.8's iterative scan so a small owner among large ones still gets its candidates), or of
  its best passage's when that is closer by RECALL_PASSAGE_MARGIN: a user turn's sentences have vectors of their own
  (palace/passages.py), so a fact told in passing inside a turn about something else is found by meaning;
- **keyword**: the weighted share of the query's content words (as PostgreSQL's English stemmer stores
  them) that the drawer's content and AAAK tags hold, each word weighted by log(1 / its share of
  drawers) per PostgreSQL's statistics: a drawer naming the one rare thing the query asks about scores
  high however often it repeats it, and common words count little. Keyword candidates are found, and
  ranked by `ts_rank_cd`, by the query's informative words (not in more than 0.2% of drawers), so a
  common word never makes it read a large share of a big owner's drawers;
- **temporal**: how well the drawer's time (when it happened, not when it was recorded) fits the date
  the query names, read in the owner's timezone (palace/temporal.py); for "latest / currently" queries,
  recency (not for a question about an order or a span of events); 0 for every drawer of a time-neutral
  query, which therefore gets no temporal effect. A query that is only a time ("what did I tell you last
  week?") takes the window's drawers as candidates, newest first, and keeps them however far their words are;
- **preference**: stated preferences and topics the user keeps returning to (palace/preferences.py);
- **entity**: 1 for a drawer about a person, place, organisation or work the query names by a wing's
  name or alias (palace/anchors.py), whose names are always looked for by words, however common;
- **speaker**: for a question in the first person, a user turn's semantic or keyword score, the higher (1
  when it says one of the question's "my …" phrases itself; 0 for a task set to the assistant, "Write me
  …"): what the person said about themselves is the evidence, an assistant's reply on the subject is
  commentary;
- **pinned**: 1 for a drawer the person pinned, else 0. Pinned drawers (up to PINNED_CANDIDATES) join
  every query's candidates, but pass the same relevance test as any other: a pin boosts a relevant
  drawer, it never puts an unrelated one in the block. Without pins every score is what it was.

A drawer marked never_recall is never a candidate, nor a partner turn: it stays browsable only.

A candidate that shares no word with the query and whose similarity is below RECALL_MIN_SIMILARITY is
not recalled at all: with nothing relevant, the block is empty.

Candidates are the union of the best RECALL_CANDIDATES drawers by meaning (their own vectors, and their passages')
and by words (and the pins); every signal is
computed for every candidate, and the fused score is the weighted sum
`sum of RECALL_WEIGHTS[signal] * signal`, so a result's per-signal scores explain its fused score exactly.
Turns posted but not filed yet (the miner is behind) join the candidates by full text, embedded on the
spot with the local embedder, and come back as results without a drawer id or pointer (palace/pending.py).
A user question and the assistant answer that follows it are one result (the better-scoring turn leads,
the other comes along as its `partner`); drawers are quoted verbatim, never paraphrased.

With `use_rerank` on and an LLM configured, the best 20 results go to the reader model, which picks the
best 5 and moves them to the top (palace/rerank.py); a failure keeps the fused order and says so.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from pgvector.django import CosineDistance

from accounts.models import Agent, MemorySettings
from accounts.services import memory_settings_ensure
from episodic import providers
from palace import anchors, keywords, pending, preferences, recall_parts, temporal
from palace import recall_cues as cues
from palace.models import Drawer, Passage
from palace.recall_block import render_block
from palace.rerank import RERANK_POOL, rerank, rerank_wanted

logger = logging.getLogger(__name__)

SIGNALS = ("semantic", "keyword", "temporal", "preference", "pinned", "speaker", "entity")
# The nearest passages read per query. On the dev and hard cases 30 gave what 100 gave (20 lost a question):
# the passages that lift a drawer into the top are among the nearest few dozen. 40 is one HNSW pass at the
# default ef_search, and no look-up of the other candidates' passages is needed (bench README, longmemeval).
PASSAGE_CANDIDATES = 40
PINNED_CANDIDATES = 200  # pins are a person's handful; a bound keeps an over-pinned owner's recall cheap
# A hit's drawer is quoted, never searched again: its full-text columns and vector stay in the database.
HEAVY_COLUMNS = ("search_vector", "search_text", "embedding")


@dataclass(frozen=True)
class Filters:
    wing_id: int | None = None
    room_id: int | None = None
    agent_id: uuid.UUID | None = None
    since: datetime | None = None
    until: datetime | None = None


@dataclass
class Hit:
    drawer: Drawer
    score: float
    signals: dict[str, float]
    partner: Drawer | None = None

    @property
    def pending(self) -> bool:
        """Posted, not filed yet: no drawer id, pointer, wing or room (palace/pending.py)."""
        return self.drawer.pk is None


@dataclass
class Candidate:
    """A drawer found relevant, with its fused score and per-signal scores (`row`: its fetched fields)."""

    score: float
    signals: dict[str, float]
    row: dict[str, Any]


@dataclass
class Recall:
    hits: list[Hit]
    memory_context: str
    skipped: str | None = None  # why nothing was recalled on purpose: memory_disabled, recall_disabled
    degraded: list[str] = field(default_factory=list)  # signals that could not run (semantic)
    when: dict[str, Any] | None = None  # the time the query is about, as read
    rerank: dict[str, Any] = field(default_factory=lambda: {"used": False})
    timings: dict[str, float] = field(default_factory=dict)  # milliseconds per stage
    top_k: int = 0
    timezone: str = "UTC"  # the owner's


def recall_skipped(*, memory_settings: MemorySettings, agent: Agent | None) -> str | None:
    """Why nothing is recalled on purpose (recall and context assembly alike): the owner turned memory
    off (`memory_disabled`), or the calling agent's recall is off (`recall_disabled`); None otherwise."""
    if not memory_settings.enabled:
        return "memory_disabled"
    if agent is not None and agent.recall_disabled:
        return "recall_disabled"
    return None


def _queryset(owner_id: int, filters: Filters) -> QuerySet[Drawer]:
    queryset = Drawer.objects.filter(owner_id=owner_id, never_recall=False)
    if filters.wing_id is not None:
        queryset = queryset.filter(Q(room__wing_id=filters.wing_id) | Q(room__linked_wings=filters.wing_id))
    if filters.room_id is not None:
        queryset = queryset.filter(room_id=filters.room_id)
    if filters.agent_id is not None:
        queryset = queryset.filter(conversation__agent_id=filters.agent_id)
    if filters.since is not None:
        queryset = queryset.filter(occurred_at__gte=filters.since)
    if filters.until is not None:
        queryset = queryset.filter(occurred_at__lt=filters.until)
    return queryset


def _hnsw_settings(cursor: Any) -> None:
    """Both settings in one round trip (set_config(..., true) is SET LOCAL). The iterative scan goes on
    until `limit` rows pass the filters, so ef_search sets how wide each step looks, not how many come
    back: 40 read a 1.1M-row table's graph faster than 100 with the same dev-set results."""
    cursor.execute(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', %s, true)",
        [str(settings.RECALL_EF_SEARCH)],
    )


def _semantic(
    queryset: QuerySet[Drawer], passages: QuerySet[Passage], vector: list[float], limit: int
) -> tuple[list[int], dict[int, float]]:
    """The `limit` drawers nearest the query by their own vectors, and the drawers of the
    PASSAGE_CANDIDATES passages nearest it, each with its best passage's distance (both probes in one
    transaction: the HNSW settings are set once). A drawer whose passages are not among these keeps its
    own distance: no per-candidate look-up of passages."""
    with transaction.atomic(), connection.cursor() as cursor:
        # The owner filter runs after the index scan; iterative scan keeps scanning until enough rows
        # pass it (pgvector 0.8). A small owner is read exactly through its own index instead.
        _hnsw_settings(cursor)
        nearest = queryset.filter(embedding__isnull=False).order_by(CosineDistance("embedding", vector))
        found = list(nearest.values_list("pk", flat=True)[:limit])
        distance = CosineDistance("embedding", vector)
        by_passage: dict[int, float] = {}
        for drawer_id, passage_distance in (
            passages.annotate(distance=distance).order_by(distance).values_list("drawer_id", "distance")
        )[:PASSAGE_CANDIDATES]:
            # relaxed_order: the scan may return rows slightly out of order, so keep each drawer's minimum.
            by_passage[drawer_id] = min(passage_distance, by_passage.get(drawer_id, passage_distance))
        if len(found) < limit:
            # Short of `limit`: either the owner (after filters) has no more rows, or the index scan hit
            # hnsw.max_scan_tuples in a graph crowded by other owners' rows (or dead ones not yet
            # vacuumed) before enough of this owner's passed the filter. Both mean few rows: read them
            # exactly, without the vector index.
            cursor.execute("SET LOCAL enable_indexscan = off")
            found = list(nearest.values_list("pk", flat=True)[:limit])
        return found, by_passage


def _passages(owner_id: int, queryset: QuerySet[Drawer], filters: Filters) -> QuerySet[Passage]:
    """The owner's embedded passages; narrowed to the filtered drawers only when there are filters (the
    usual call scans the passages' own HNSW index, owner-filtered like the drawers'). The fetch that
    follows reads every candidate through the owner's drawer queryset, so a never_recall drawer found
    by a passage is dropped there."""
    passages = Passage.objects.filter(owner_id=owner_id, embedding__isnull=False)
    return passages.filter(drawer__in=queryset) if filters != Filters() else passages


def _in_window(queryset: QuerySet[Drawer], when: temporal.TimeWindow) -> QuerySet[Drawer]:
    """The drawers of a time window, the newest first (by the owner's (owner, occurred_at) index)."""
    return queryset.filter(occurred_at__gte=when.start, occurred_at__lt=when.end).order_by("-occurred_at")


def _distance(drawer: float | None, passage: float | None) -> float | None:
    """A drawer's distance to the query: its own, or its best passage's when that is closer by more than
    RECALL_PASSAGE_MARGIN. A short sentence sits closer to a query than a whole turn of the same meaning;
    without the margin any turn with one on-topic sentence would outrank a turn entirely about it."""
    if passage is None:
        return drawer
    passage += settings.RECALL_PASSAGE_MARGIN
    return passage if drawer is None else min(drawer, passage)


def _pair_key(row: dict[str, Any]) -> tuple[Any, int]:
    """A user (or system) turn and the answer after it share a key: (conversation, question's index)."""
    index = row["turn_index"]
    return row["conversation_id"], index - 1 if row["role"] in ("assistant", "tool") and index else index


def recall(
    *,
    owner: User,
    query: str,
    top_k: int | None = None,
    agent: Agent | None = None,
    filters: Filters | None = None,
    reference_time: datetime | None = None,
    candidates: int | None = None,
    use_rerank: bool | None = None,
    vector: list[float] | Literal["embed"] | None = "embed",
    with_vectors: bool = False,
) -> Recall:
    """Recall for `owner` (every query is filtered by it). `agent` is the caller: an agent with recall
    disabled gets nothing. `top_k` defaults to the owner's setting. `vector` is the query's embedding
    when the caller already has it (None: the embedder is down). The hits' drawers come without their
    embedding (384 floats to parse each) unless `with_vectors`."""
    memory_settings = memory_settings_ensure(user=owner)
    top_k = top_k or memory_settings.top_k
    skipped = recall_skipped(memory_settings=memory_settings, agent=agent)
    if skipped is not None:
        return Recall(hits=[], memory_context="", skipped=skipped, top_k=top_k, timezone=memory_settings.timezone)
    tz = ZoneInfo(memory_settings.timezone)
    reference = reference_time or timezone.now()
    weights = settings.RECALL_WEIGHTS
    pool = max(candidates or settings.RECALL_CANDIDATES, top_k * 4)
    result = Recall(hits=[], memory_context="", top_k=top_k, timezone=memory_settings.timezone)
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        result.timings[stage] = round((now - clock) * 1000, 2)
        clock = now

    # The query's embedding runs in the background while the keyword candidates and pins are read;
    # "embed" is then the time left to wait for it.
    embedding = providers.embed_query_start(owner_id=owner.pk, text=query) if vector == "embed" else None
    events = recall_parts.event_parts(query) if vector is not None else []
    event_vectors = recall_parts.embed_parts(owner.pk, events)
    queryset = _queryset(owner.pk, filters or Filters())
    tsquery = keywords.keyword_query(query)
    lexemes = keywords.query_lexemes(query) if tsquery is not None else []
    named = anchors.named_in(owner_id=owner.pk, query=query)
    named_lexemes = keywords.query_lexemes(" ".join(named.names)) if named else []
    # "Which relatives have I mentioned?": the turns saying "my niece" or "my brother" are found by those words,
    # and hold the class word's place in the keyword signal.
    asked = cues.class_asked(query)
    said_member = cues.members_said(asked[1], asked[2]) if asked is not None else None
    class_lexemes = keywords.query_lexemes(asked[0]) if asked is not None else []
    finder = keywords.retrieval_query(query, lexemes, named_lexemes) if tsquery is not None else None
    keyword_ids = (
        keywords.keyword_candidates(queryset, finder, tsquery, pool)
        if finder is not None and tsquery is not None
        else []
    )
    if asked is not None:  # the person's own turns naming a member, by the full-text index
        members = keywords.any_of(keywords.query_lexemes(asked[1].replace("|", " ")))
        if members is not None:
            keyword_ids += keywords.keyword_candidates(queryset.filter(role="user"), members, members, pool)
    # One scan of the partial index drawer_owner_pinned (an empty one for an owner without pins).
    pinned_ids = list(queryset.filter(pinned=True).values_list("pk", flat=True)[:PINNED_CANDIDATES])
    when = temporal.parse(query, reference, memory_settings.timezone)
    words = keywords.query_words(query)
    # "What did I tell you last week / in October?": the time is all the query says, so what was said then is
    # the answer.
    subject = [w for w in keywords.query_words(temporal.without_dates(query)) if w not in temporal.SAYING]
    time_only = isinstance(when, temporal.TimeWindow) and not subject
    window_ids = (
        list(_in_window(queryset, when).values_list("pk", flat=True)[:pool])
        if time_only and isinstance(when, temporal.TimeWindow)
        else []
    )
    lap("keyword")
    vector = embedding() if embedding is not None else vector if isinstance(vector, list) else None
    if vector is None:
        result.degraded.append("semantic")
    lap("embed")
    semantic_ids, passage_best = (
        _semantic(queryset, _passages(owner.pk, queryset, filters or Filters()), vector, pool)
        if vector is not None
        else ([], {})
    )
    passage_ids = list(passage_best)
    lap("semantic")
    union = list(dict.fromkeys([*semantic_ids, *passage_ids, *keyword_ids, *pinned_ids, *window_ids]))
    waiting = pending.pending_rows(
        owner_id=owner.pk, filters=filters or Filters(), words=words, lexemes=lexemes, vector=vector
    )
    lap("pending")
    if not union and not waiting:
        return result

    # Every signal for every candidate, in one query.
    # Through the owner's filtered queryset: a passage's drawer may be outside the filters or never_recall.
    rows_qs = queryset.filter(pk__in=union)
    if vector is not None:
        rows_qs = rows_qs.annotate(distance=CosineDistance("embedding", vector))
    fields = ["pk", "conversation_id", "turn_index", "role", "occurred_at", "stated_preference", "pinned"]
    fields += ["content", "tags"]
    if lexemes:
        rows_qs = rows_qs.annotate(matched=keywords.matched(lexemes))
    fields += ["distance"] * (vector is not None) + ["matched"] * bool(lexemes)
    rows_qs, part_fields = recall_parts.annotate(rows_qs, event_vectors())
    fields += part_fields
    rows = {row["pk"]: row for row in rows_qs.values(*fields)} if union else {}
    rows.update(waiting)
    lap("fetch")
    if isinstance(when, temporal.TimeWindow):
        result.when = {"expression": when.label, "start": when.start.isoformat(), "end": when.end.isoformat()}
    elif isinstance(when, temporal.Recency):
        result.when = {"expression": when.label, "recency": True}
    lexeme_weights = keywords.lexeme_weights(lexemes)
    first_person = bool(cues.FIRST_PERSON.search(query))
    mine = cues.own_words(query) if first_person else None
    recurring = preferences.recurring_scores(
        owner_id=owner.pk, query=query, drawers={pk: (r["content"], r["tags"] or {}) for pk, r in rows.items()}
    )
    scored: list[Candidate] = []
    for pk, row in rows.items():
        distance = _distance(row.get("distance"), passage_best.get(pk))
        signals = {
            "semantic": round(max(0.0, 1.0 - float(distance)), 6) if distance is not None else 0.0,
            "keyword": round(keywords.coverage(cues.words_matched(row, said_member, class_lexemes), lexeme_weights), 6),
            "temporal": (
                round(temporal.fit_of(when, row["occurred_at"], row["content"], tz.key, own=row["role"] == "user"), 6)
                if when is not None
                else 0.0
            ),
            "preference": round(1.0 if row["stated_preference"] else recurring.get(pk, 0.0), 6),
            "pinned": 1.0 if row["pinned"] else 0.0,
        }
        if first_person and row["role"] == "user" and not cues.TASK.match(row["content"]):
            own = mine is not None and bool(mine.search(row["content"]))
            # Said about the subject in the person's own turn: by meaning, or by the query's words (a list
            # question's subject told in passing: "the signed jersey I got at a charity auction").
            signals["speaker"] = 1.0 if own else max(signals["semantic"], signals["keyword"])
        else:
            signals["speaker"] = 0.0
        signals["entity"] = 1.0 if named and named.about(row["content"], row["tags"] or {}) else 0.0
        said_then = time_only and signals["temporal"] == 1  # in the window a time-only query asks about
        far = signals["semantic"] < settings.RECALL_MIN_SIMILARITY and not said_then
        if signals["keyword"] == 0 and (far or cues.PHATIC.fullmatch(row["content"])):
            # Unrelated: time or preference alone never make a drawer relevant, and a bare "hi" or "thanks!"
            # sits near every query the embedder cannot place (gibberish, a new subject) without saying anything.
            continue
        score = round(sum(weights[name] * signals[name] for name in SIGNALS), 6)
        scored.append(Candidate(score, signals, row))
    scored.sort(key=lambda candidate: (-candidate.score, candidate.row["pk"]))

    # Neighbouring turns: a question and its answer are one result, led by the better of the two.
    leads: dict[tuple[Any, int], Candidate] = {}
    for candidate in scored:
        leads.setdefault(_pair_key(candidate.row), candidate)
    reranked = rerank_wanted(use_rerank, memory_settings, owner.pk, result)
    wanted = max(top_k, RERANK_POOL) if reranked else top_k
    ordered = list(leads.values())
    if part_fields:  # a question about several events: each event's best drawer leads
        ordered = recall_parts.lead_each_part(ordered, events, weights["keyword"])
    chosen = ordered[:wanted]
    lap("fusion")

    filed = [c.row["pk"] for c in chosen if not pending.is_pending(c.row["pk"])]
    unread = HEAVY_COLUMNS if not with_vectors else HEAVY_COLUMNS[:2]
    wanted_partners = _partner_turns(chosen)
    filed_ids = set(filed)
    # The hits and their partner turns in one query.
    condition = Q(pk__in=filed)
    if wanted_partners:
        turns = Q()
        for conversation, index in wanted_partners:
            turns |= Q(conversation_id=conversation, turn_index=index)
        condition |= turns & Q(never_recall=False)
    loaded = Drawer.objects.filter(condition).select_related("room__wing", "conversation").defer(*unread)
    drawers: dict[int, Drawer] = {}
    by_turn: dict[tuple[Any, int], Drawer] = {}
    for drawer in loaded:
        if drawer.pk in filed_ids:
            drawers[drawer.pk] = drawer
        by_turn[(drawer.conversation_id, drawer.turn_index)] = drawer
    drawers.update(pending.pending_drawers([c.row for c in chosen if pending.is_pending(c.row["pk"])], owner.pk))
    partner_of = _partners(wanted_partners, by_turn, drawers)
    hits = [
        Hit(drawer=drawers[pk], score=c.score, signals=dict(c.signals), partner=partner_of.get(pk))
        for c in chosen
        if (pk := c.row["pk"]) in drawers
    ]
    lap("load")
    if reranked:
        hits = rerank(owner, query, hits, memory_settings.rerank_model, result)
        lap("rerank")
    result.hits = hits[:top_k]
    result.memory_context = render_block(result.hits, tz)
    lap("render")
    return result


def _partner_turns(chosen: list[Candidate]) -> dict[tuple[Any, int], int]:
    """(conversation, turn index) of the other turn of each leading drawer's question/answer pair -> the lead."""
    wanted: dict[tuple[Any, int], int] = {}
    for candidate in chosen:
        row = candidate.row
        conversation, question = _pair_key(row)
        other = question + 1 if row["turn_index"] == question else question
        if other != row["turn_index"]:
            wanted[(conversation, other)] = row["pk"]
    return wanted


def _partners(
    wanted: dict[tuple[Any, int], int], by_turn: dict[tuple[Any, int], Drawer], drawers: dict[int, Drawer]
) -> dict[int, Drawer]:
    """The partner of each lead that has one: a user turn followed by the answer, or the reverse."""
    partners: dict[int, Drawer] = {}
    for turn, lead in wanted.items():
        drawer, lead_row = by_turn.get(turn), drawers.get(lead)
        if drawer is None or lead_row is None or drawer.never_recall:
            continue
        question_first = lead_row.role in ("user", "system")
        if (question_first and drawer.role in ("assistant", "tool")) or (
            not question_first and drawer.role in ("user", "system")
        ):
            partners[lead] = drawer
    return partners
