"""Hybrid search: pgvector cosine (HNSW) and PostgreSQL full-text search over any queryset of a table
with `embedding` and `search_vector` columns, fused by reciprocal rank. The callers narrow the queryset
(owner, visibility) first; palace's context assembly uses it too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection, transaction
from django.db.models import F, Model, QuerySet
from pgvector.django import CosineDistance

# Reciprocal rank fusion (Cormack et al. 2009): score = sum over lists of 1 / (RRF_K + rank).
RRF_K = 60
CANDIDATES_PER_RESULT = 4

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class Hit(Generic[M]):
    item: M
    score: float  # the fused score
    similarity: float | None  # cosine similarity to the query, when both have embeddings
    keyword: float  # full-text rank, 0 when the words do not match


def hybrid_search(
    queryset: QuerySet[M], *, query: str, vector: list[float] | None, limit: int, min_similarity: float | None = None
) -> list[Hit[M]]:
    """pgvector cosine (HNSW) and PostgreSQL full-text search over `queryset`, fused by reciprocal
    rank. Without a query vector (the embedder is down) it is keyword search alone."""
    candidates = limit * CANDIDATES_PER_RESULT
    semantic: list[tuple[Any, float]] = []
    if vector is not None:
        with transaction.atomic(), connection.cursor() as cursor:
            # The owner filter runs after the index scan; iterative scan keeps scanning until enough
            # rows pass it, so a small owner among large ones still gets its k results (pgvector 0.8).
            cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            cursor.execute("SET LOCAL hnsw.ef_search = %s", [max(40, candidates)])
            semantic = list(
                queryset.filter(embedding__isnull=False)
                .annotate(distance=CosineDistance("embedding", vector))
                .order_by("distance")
                .values_list("pk", "distance")[:candidates]
            )
        semantic.sort(key=lambda row: row[1])  # relaxed order: put it right
    tsquery = SearchQuery(query, search_type="websearch", config="english")
    lexical = list(
        queryset.filter(search_vector=tsquery)
        .annotate(rank=SearchRank(F("search_vector"), tsquery))
        .order_by("-rank")
        .values_list("pk", "rank")[:candidates]
    )
    similarity = {pk: 1 - float(distance) for pk, distance in semantic}
    keyword = {pk: float(rank) for pk, rank in lexical}
    fused: dict[Any, float] = {}
    for ranking in (semantic, lexical):
        for position, (pk, _) in enumerate(ranking, start=1):
            fused[pk] = fused.get(pk, 0.0) + 1 / (RRF_K + position)
    if min_similarity is not None:
        fused = {pk: s for pk, s in fused.items() if pk in keyword or similarity.get(pk, 1.0) >= min_similarity}
    top = sorted(fused, key=lambda pk: -fused[pk])[:limit]
    rows: dict[Any, M] = {row.pk: row for row in queryset.filter(pk__in=top)}
    missing = [pk for pk in top if pk not in similarity]
    if vector is not None and missing:
        # Keyword-only hits still report how close they are in meaning.
        for pk, distance in (
            queryset.filter(pk__in=missing, embedding__isnull=False)
            .annotate(distance=CosineDistance("embedding", vector))
            .values_list("pk", "distance")
        ):
            similarity[pk] = 1 - float(distance)
    return [
        Hit(
            item=rows[pk],
            score=round(fused[pk], 6),
            similarity=similarity.get(pk),
            keyword=round(keyword.get(pk, 0.0), 6),
        )
        for pk in top
        if pk in rows
    ]
