"""The one shape of every list under /api/v1/: `{"count", "next", "previous", "results"}`.

- `results`: at most one bounded page (a `limit` / `page_size`, or a ranked search's `top_k`).
- `count`: how many items match in all; for a ranked search, how many results came back.
- `next` / `previous`: the URL of the neighbouring page, or null (always null for a ranked search).

It is the envelope of DRF's page-number pagination, so paginated querysets (`paginated_response`) and
limit/offset lists (`list_response`) read the same. Each list's schema is a named subclass of
`ListOutput` with its own `results` (`class EpisodeListOutput(ListOutput): results = EpisodeOutput(many=True)`).
The compatibility paths keep their reference services' shapes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

# An offset past any list's end: a larger one (the database's bigint ends at 2**63) was a 500, not a 400.
MAX_OFFSET = 1_000_000_000


def offset_field() -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=0, max_value=MAX_OFFSET, default=0, help_text="Skip this many (newest first)."
    )


class ListOutput(serializers.Serializer):
    count = serializers.IntegerField(help_text="Items matching in all; for a ranked search, results returned.")
    next = serializers.URLField(allow_null=True, help_text="The next page, or null.")
    previous = serializers.URLField(allow_null=True, help_text="The previous page, or null.")


def list_response(
    request: Request,
    results: Sequence[Any],
    *,
    count: int | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> Response:
    """A list in the one shape. Give `count`, `limit` and `offset` for a limit/offset page of a longer
    list (the links keep the request's other query parameters); leave them out for a ranked search."""
    total = len(results) if count is None else count
    next_url = previous_url = None
    if limit is not None and request.method == "GET":
        url = request.build_absolute_uri()
        if offset + len(results) < total:
            next_url = replace_query_param(url, "offset", offset + limit)
        if offset > 0:
            previous_offset = max(offset - limit, 0)
            previous_url = (
                remove_query_param(url, "offset")
                if previous_offset == 0
                else replace_query_param(url, "offset", previous_offset)
            )
    return Response({"count": total, "next": next_url, "previous": previous_url, "results": list(results)})
