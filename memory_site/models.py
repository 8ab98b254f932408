"""Abstract bases for what the searchable memories (Episode, TypedMemory, ContextEntry, Drawer) repeat:
timestamps, an embedding with its HNSW index, a generated tsvector with its GIN index.

The indexes are built by functions, not declared in the bases' Meta: their database names predate the
bases and do not all follow the class name (`typed_embedding_hnsw`, `context_entry_search_gin`), so each
model names its own and says which query reads it.

A base's fields come first in the model's `_meta.fields` (Django orders fields by creation); the
table's columns keep the order the migrations gave them. Code that builds rows positionally
(`Model.from_db` with every column, as accounts.selectors does for Agent) must follow `_meta`."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from pgvector.django import HnswIndex, VectorField


def _search_vector(column: str) -> models.GeneratedField:
    # Stored: PostgreSQL indexes no other kind of generated column.
    return models.GeneratedField(
        expression=SearchVector(column, config="english"), output_field=SearchVectorField(), db_persist=True
    )


class SearchableText(models.Model):
    """Full-text search over `search_text`, a column the model declares and its service fills with what
    a search should find (more than one field's words)."""

    search_vector = _search_vector("search_text")

    class Meta:
        abstract = True


class SearchableContent(models.Model):
    """Full-text search over the model's `content` column."""

    search_vector = _search_vector("content")

    class Meta:
        abstract = True


def search_gin_index(*, name: str) -> GinIndex:
    """For `search_vector @@ websearch_to_tsquery('english', :query)`."""
    return GinIndex(fields=["search_vector"], name=name)


class Embedded(models.Model):
    """An embedding of the row's text (null until the embedder has run, or while it is down) and the
    model that made it: vectors of different models are not comparable."""

    embedding = VectorField(dimensions=settings.EMBEDDING_DIM, null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        abstract = True


def embedding_hnsw_index(*, name: str, condition: models.Q | None = None) -> HnswIndex:
    """HNSW (cosine) for `ORDER BY embedding <=> :query LIMIT k`; m and ef_construction are pgvector's
    defaults, spelled out so that a change to them shows up as a migration."""
    return HnswIndex(
        name=name, fields=["embedding"], m=16, ef_construction=64, opclasses=["vector_cosine_ops"], condition=condition
    )


class Created(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class Timestamped(Created):
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True
