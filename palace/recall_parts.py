"""Questions about several events at once ("Put these in order: getting my new lens, the birdwatching
workshop and meeting the designer", "How many days between the gala and my last race?"): each event is a
part of its own, and the best drawer for each part leads the results. Ranked by the whole question, the
events the question says most about take the top places and the third event's evidence falls out of them;
ranked by each part too, every event keeps one.

Only questions about an order or a span of events (palace/temporal.py `spanning`, "how many days after …")
are split, into 2 to MAX_PARTS parts (the first ones named), each with a content word of its own; each part is
embedded (beside the question, cached like any query) and scored like the question, by meaning and by its words."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pgvector.django import CosineDistance

from episodic import providers
from palace import keywords, temporal

MAX_PARTS = 4
# Between the events of one question (kept by the split, to tell a comma from an "and"): a colon after "Put these
# in order", commas, "and", "or", "then"; the verb between two events of a span ("how many days after the concert
# did I go to the festival", "since I bought X when I …").
_SPLIT = re.compile(r"(\s*[:;]\s*|,\s*(?:(?:and|or|then)\s+)?|\s+(?:and|or|then|did|was|were|when)\s+)", re.I)
_SENTENCES = re.compile(r"(?<=[.?!])\s+")
# A quoted title is one event's, whatever it holds: "listening to 'Sapiens: A Brief History of Humankind'".
_QUOTED = re.compile(r"(?<!\w)(?:'[^']+'|\"[^\"]+\"|\u2018[^\u2019]+\u2019|\u201c[^\u201d]+\u201d)(?!\w)")
_UNMASK = re.compile(r"\x00(\d+)\x00")
# "Which task did I complete first, A or B?", "Order these events: A, B, C": the question's own lead, before
# its first comma or colon, is no event when it asks for the order.
_LEAD = re.compile(r"\b(?:first|earlier|order|chronologic\w*)\b", re.I)
# "How many days after the concert did I …", "how long before my trip was …", "how many days had passed since I
# bought X when I …": a span between two events.
_AFTER = re.compile(
    r"\bhow (?:many \w+|long) (?:after|before)\b|\bhow many \w+ (?:had |have )?(?:passed|gone by|elapsed) since\b"
    r".+\bwhen\b",
    re.I,
)
# The words of the question itself, not of an event: "put these in order", "which did I do first".
_ORDER_WORDS = frozenset(
    "put these those order sort rank list which did do happened came first earliest latest last between how "
    "many long days weeks months years after before passed from to most recent oldest newest conversation "
    "conversations chat chats asked talked told mentioned event events apart far roughly chronological had have "
    "gone elapsed since when".split()
)
# A part's best leads only when it is about that part: close in meaning or holding its words.
PART_MEANING = 0.35
PART_WORDS = 0.5


class _Candidate(Protocol):
    score: float
    row: dict[str, Any]


def event_parts(query: str) -> list[str]:
    """The events a question about an order or a span names, or [] for any other question: each sentence's
    parts in turn, up to MAX_PARTS, a later sentence's part only when it names no event already named
    ("How long after my first therapy session …" after "starting therapy")."""
    if not (temporal.spanning(query) or _AFTER.search(query)):
        return []
    parts: list[str] = []
    named: set[str] = set()
    for sentence in _SENTENCES.split(query.strip()):
        said: set[str] = set()
        for part in _pieces(sentence):
            words = {w for w in keywords.query_words(part) if w not in _ORDER_WORDS}
            if words and not words & named and len(parts) < MAX_PARTS:
                parts.append(part)
                said |= words
        named |= said
    return parts if len(parts) >= 2 else []


def _pieces(sentence: str) -> list[str]:
    """A sentence's events: split between them, an "and" before a single word kept inside its event
    ("replacing my bike's chain and cassette"), and an ordering lead before the first comma or colon
    dropped ("Which task did I complete first, …", "In what order did these happen: …")."""
    quoted = _QUOTED.findall(sentence)
    number = itertools.count()
    masked = _QUOTED.sub(lambda _: f"\x00{next(number)}\x00", sentence.strip())
    split = [_UNMASK.sub(lambda m: quoted[int(m.group(1))], part) for part in _SPLIT.split(masked.rstrip("?!"))]
    pieces = [split[0].strip()]
    lead = 0  # how many pieces come before the first comma or colon
    for separator, piece in zip(split[1::2], split[2::2], strict=True):
        if not lead and separator.strip()[:1] in (",", ":", ";"):
            lead = len(pieces)
        piece = piece.strip()
        if separator.strip().lower() == "and" and len(piece.split()) == 1 and pieces[-1]:
            pieces[-1] = f"{pieces[-1]}{separator}{piece}"
        else:
            pieces.append(piece)
    if lead and _LEAD.search(" ".join(pieces[:lead])) and len(pieces) - lead >= 2:
        pieces = pieces[lead:]
    return [p for p in pieces if p]


def embed_parts(owner_id: int, parts: Sequence[str]) -> Callable[[], list[list[float]] | None]:
    """Start embedding the parts, in one batch in the background beside the question's own embedding."""
    if not parts:
        return lambda: None
    return providers.embed_queries_start(owner_id=owner_id, texts=list(parts))


def annotate(rows_qs: Any, vectors: Sequence[list[float]] | None) -> tuple[Any, list[str]]:
    """Each candidate's distance to each part's vector, in the query that reads the candidates."""
    fields = []
    for n, vector in enumerate(vectors or ()):
        rows_qs = rows_qs.annotate(**{f"part_{n}": CosineDistance("embedding", vector)})
        fields.append(f"part_{n}")
    return rows_qs, fields


def lead_each_part(leads: list[Any], parts: Sequence[str], keyword_weight: float) -> list[Any]:
    """The results with, first, the best for each part (by its meaning and its words; in the order of their
    fused scores), then the rest in their order. A part's best leads only when it is about the part."""
    firsts: dict[int, Any] = {}
    for n, part in enumerate(parts):
        weights = keywords.lexeme_weights(keywords.query_lexemes(part))
        fits = [(_fit(c, n, weights), c) for c in leads if id(c) not in firsts]
        if not fits:
            continue
        (meaning, words), best = max(fits, key=lambda fit: fit[0][0] + keyword_weight * fit[0][1])
        if meaning >= PART_MEANING or words >= PART_WORDS:
            firsts[id(best)] = best
    led = sorted(firsts.values(), key=lambda c: -c.score)
    return led + [c for c in leads if id(c) not in firsts]


def _fit(candidate: _Candidate, n: int, weights: dict[str, float]) -> tuple[float, float]:
    """A candidate's meaning and words for part `n`."""
    distance = candidate.row.get(f"part_{n}")
    meaning = 1.0 - float(distance) if distance is not None else 0.0
    return meaning, keywords.coverage(candidate.row.get("matched", ()), weights)
