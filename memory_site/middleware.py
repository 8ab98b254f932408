from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


def api_trailing_slash(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """`/api/v1/agents/` and `/api/v1/agents` are the same endpoint. API routes are declared without a
    trailing slash; a redirect would lose the body and method of a POST, so the slash is dropped here."""

    def middleware(request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if path.startswith("/api/v1/") and path.endswith("/") and len(path) > len("/api/v1/"):
            request.path_info = path.rstrip("/")
        return get_response(request)

    return middleware
