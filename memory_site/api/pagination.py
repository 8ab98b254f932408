from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import PageNumberPagination


class BoundedPageNumberPagination(PageNumberPagination):
    """`?page=N&page_size=M`; page_size is capped at API_MAX_PAGE_SIZE whatever the client asks."""

    page_size_query_param = "page_size"

    def __init__(self) -> None:
        self.page_size = settings.API_PAGE_SIZE
        self.max_page_size = settings.API_MAX_PAGE_SIZE
