from __future__ import annotations

from typing import Any

from django.core.checks import Error, register
from django.db import DatabaseError, connection

from episodic.providers import dimension_mismatch


@register()
def embedding_dimension(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """Start-up refuses an embedder whose vectors do not fit the configured column dimension."""
    mismatch = dimension_mismatch()
    return [Error(mismatch, id="episodic.E001")] if mismatch else []


@register("database")
def vector_columns_match(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[Error]:
    """The vector columns in the database must have EMBEDDING_DIM dimensions (a change of model
    dimension is a migration plus `reembed`)."""
    from django.conf import settings

    if not databases or "default" not in databases:
        return []
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT c.relname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                "JOIN pg_class c ON c.oid = a.attrelid WHERE a.attname = 'embedding' AND c.relkind = 'r' "
                "AND format_type(a.atttypid, a.atttypmod) LIKE 'vector(%%)'"
            )
            rows = cursor.fetchall()
    except DatabaseError:
        return []
    expected = f"vector({settings.EMBEDDING_DIM})"
    return [
        Error(f"{table}.embedding is {kind} but EMBEDDING_DIM is {settings.EMBEDDING_DIM}", id="episodic.E002")
        for table, kind in rows
        if kind != expected
    ]
