"""The keyword signal's queries: PostgreSQL full-text rank (`ts_rank_cd`) of a drawer's content and AAAK
tags against the query's content words, and the informative words that find keyword candidates (a
lexeme in more than COMMON_LEXEME_SHARE of all drawers, per PostgreSQL's statistics, would make it read
a large share of a big owner's drawers for little).
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterable

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection, models
from django.db.models import F, QuerySet
from django.db.models.expressions import RawSQL

from memory_site.lib.text import content_words
from palace.models import Drawer

MAX_QUERY_WORDS = 12
KEYWORD_SCAN_LIMIT = 1000  # matches ranked at most: a bound on the full-text work for very large owners
COMMON_LEXEME_SHARE = 0.002
RARE_SHARE = COMMON_LEXEME_SHARE / 4  # what a lexeme the statistics do not list is taken to be
# Question words that say what kind of answer is wanted, not what it is about; and the verbs of a question
# that gathers what was done to its subject ("which model kits have I worked on or bought?", "what charity
# things have I done?"): the subject is what the evidence names, the doing is said in any of many words.
QUERY_FILLER = frozenset(
    "many much long often time times ago first last recently remember tell told said say mentioned "
    "previous previously earlier before after since ever currently current did does know like get got "
    "day days week weeks month months year years context contexts detail details "
    "done doing bought buying purchased worked working tried trying went going made making used using "
    "spent spending took taken been having getting".split()
)


def query_words(query: str) -> list[str]:
    # Letters of any script and digits; a hyphenated word stays whole (the stemmer indexes it and its parts).
    words = [re.sub(r"[^\w-]|_", "", w.lower()).strip("-") for w in content_words(query)]
    return list(dict.fromkeys(w for w in words if len(w) > 1 and w not in QUERY_FILLER))[:MAX_QUERY_WORDS]


def keyword_query(query: str) -> SearchQuery | None:
    """What the keyword signal ranks by: the query's distinct content words (question filler like "how
    many days ago" is left to the other signals), any of them (`websearch_to_tsquery`, joined by `or`)."""
    words = query_words(query)
    return SearchQuery(" or ".join(words), search_type="websearch", config="english") if words else None


_common: tuple[float, dict[str, float]] = (0.0, {})


def common_lexemes() -> dict[str, float]:
    """The lexemes in more than COMMON_LEXEME_SHARE of all drawers, from PostgreSQL's own statistics
    of the full-text column (refreshed by ANALYZE/autovacuum; read again every ten minutes)."""
    global _common
    if time.monotonic() - _common[0] < 600:
        return _common[1]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats "
            "WHERE tablename = %s AND attname = 'search_vector'",
            [Drawer._meta.db_table],
        )
        row = cursor.fetchone()
    common = {}
    if row and row[0]:
        common = {
            lexeme: float(freq)
            for lexeme, freq in zip(row[0], row[1], strict=False)
            if float(freq) > COMMON_LEXEME_SHARE
        }
    _common = (time.monotonic(), common)
    return common


def forget_common_lexemes() -> None:
    """Read the statistics again on the next query (after an ANALYZE)."""
    global _common
    _common = (0.0, {})


def query_lexemes(query: str) -> list[str]:
    """The query's content words as PostgreSQL's English stemmer stores them."""
    words = query_words(query)
    if not words:
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT unnest(tsvector_to_array(to_tsvector('english', %s)))", [" ".join(words)])
        return [row[0] for row in cursor.fetchall()]


def lexeme_weights(lexemes: list[str]) -> dict[str, float]:
    """How much each query lexeme says: log(1 / its share of drawers), from PostgreSQL's statistics; a
    lexeme they do not list counts as rare (RARE_SHARE)."""
    common = common_lexemes()
    return {lexeme: math.log(1 / common.get(lexeme, RARE_SHARE)) for lexeme in lexemes}


def coverage(matched: Iterable[str], weights: dict[str, float]) -> float:
    """The weighted share of the query's lexemes a text holds: a drawer naming the one rare thing the
    query asks about scores high however often it repeats it."""
    total = sum(weights.values())
    return sum(weights.get(lexeme, 0.0) for lexeme in set(matched)) / total if total else 0.0


def matched(lexemes: list[str]) -> RawSQL:
    """An annotation: which of the query's `lexemes` a drawer's full-text vector holds (one containment
    test per lexeme, in the query that fetches the candidates)."""
    return RawSQL(
        "ARRAY(SELECT lexeme FROM unnest(%s::text[]) AS lexeme "
        "WHERE palace_drawer.search_vector @@ quote_literal(lexeme)::tsquery)",
        (lexemes,),
        output_field=ArrayField(models.TextField()),
    )


def retrieval_query(query: str, lexemes: list[str] | None = None, named: Iterable[str] = ()) -> SearchQuery | None:
    """What finds keyword candidates: the query's informative words only — a lexeme found in more than
    COMMON_LEXEME_SHARE of all drawers would make PostgreSQL read a large share of a big owner's rows
    for little. Common words still count in the keyword signal of every candidate (keyword_query). The
    lexemes of `named` (what the query names in the owner's palace, palace/anchors.py) are always looked
    for: they say what the question is about, however common they are across owners."""
    lexemes = query_lexemes(query) if lexemes is None else lexemes
    if not lexemes:
        return None
    common = common_lexemes()
    rare = [lexeme for lexeme in lexemes if lexeme not in common]
    rare += [lexeme for lexeme in named if lexeme in lexemes and lexeme not in rare]
    if not rare:
        return None
    return any_of(rare)


def any_of(lexemes: list[str]) -> SearchQuery | None:
    """A full-text query for drawers holding any of `lexemes` (already stemmed)."""
    if not lexemes:
        return None
    return SearchQuery(
        " | ".join(f"'{lexeme}'" for lexeme in dict.fromkeys(lexemes)), search_type="raw", config="simple"
    )


def keyword_candidates(queryset: QuerySet[Drawer], finder: SearchQuery, ranker: SearchQuery, limit: int) -> list[int]:
    """Up to KEYWORD_SCAN_LIMIT drawers holding an informative query word, ranked in one pass."""
    matches = list(
        queryset.filter(search_vector=finder)
        .annotate(rank=SearchRank(F("search_vector"), ranker, cover_density=True))
        .values_list("pk", "rank")[:KEYWORD_SCAN_LIMIT]
    )
    matches.sort(key=lambda row: (-row[1], row[0]))
    return [pk for pk, _ in matches[:limit]]
