from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer


class BoundedPageNumberPagination(PageNumberPagination):
    """`?page=N&page_size=M`; page_size is capped at API_MAX_PAGE_SIZE whatever the client asks."""

    page_size_query_param = "page_size"

    def __init__(self) -> None:
        self.page_size = settings.API_PAGE_SIZE
        self.max_page_size = settings.API_MAX_PAGE_SIZE


def paginated_response(request: Any, view: Any, queryset: Any, serializer: type[BaseSerializer]) -> Response:
    """One page of `queryset`, serialised, in the paginator's envelope."""
    paginator = BoundedPageNumberPagination()
    page: Any = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer(page, many=True).data)
