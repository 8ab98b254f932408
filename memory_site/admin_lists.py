"""Admin lists that open fast on tables of millions of rows: no exact COUNT(*) per page load.

Django's changelist counts the filtered rows (for the paginator) and the whole table (for "N total").
`show_full_result_count = False` drops the second; `EstimatedCountPaginator` replaces the first with
PostgreSQL's planner estimate when the list is unfiltered (pg_class.reltuples, kept by autovacuum)
and keeps the exact count for filtered lists, which the indexes make cheap."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.contrib import admin
from django.core.paginator import Paginator
from django.db import connection

EXACT_BELOW = 10_000  # under this many rows an exact count is cheap: say it exactly


class EstimatedCountPaginator(Paginator):
    @cached_property
    def count(self) -> int:  # type: ignore[override]
        queryset: Any = self.object_list
        query = getattr(queryset, "query", None)
        if query is None or query.where or query.distinct:
            return super().count
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass", [queryset.model._meta.db_table]
            )
            row = cursor.fetchone()
        estimate = int(row[0]) if row and row[0] is not None else -1
        return super().count if estimate < EXACT_BELOW else estimate


class LargeTableAdmin(admin.ModelAdmin):
    """For the tables that grow with every turn (drawers, episodes, usage, activity)."""

    paginator = EstimatedCountPaginator
    show_full_result_count = False
    list_per_page = 50
