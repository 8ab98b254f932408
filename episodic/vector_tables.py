"""The tables whose rows carry an embedding of one of their text columns. Apps register theirs (palace
registers drawers from its AppConfig.ready), so the backfill job and `reembed` cover every table
without this app importing the apps above it."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Model


@dataclass(frozen=True)
class EmbeddedTable:
    model: type[Model]
    text_field: str
    index_name: str


_TABLES: list[EmbeddedTable] = []


def register(model: type[Model], *, text_field: str, index_name: str) -> None:
    if all(table.model is not model for table in _TABLES):
        _TABLES.append(EmbeddedTable(model=model, text_field=text_field, index_name=index_name))


def tables() -> list[EmbeddedTable]:
    return list(_TABLES)
