from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from memory_site.api.errors import is_api_path, json_error

MESSAGE_LENGTH_REQUIRED = "Send the body with a Content-Length (chunked transfer encoding is not supported)."


def api_trailing_slash(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """`/api/v1/agents/` and `/api/v1/agents` are the same endpoint. API routes are declared without a
    trailing slash; a redirect would lose the body and method of a POST, so the slash is dropped here."""

    def middleware(request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if (
            request.META.get("HTTP_TRANSFER_ENCODING", "").lower() == "chunked"
            and not request.META.get("CONTENT_LENGTH")
            and is_api_path(path)
        ):
            # WSGI gives a chunked body without a length as empty: refuse it rather than act on nothing.
            return json_error(411, MESSAGE_LENGTH_REQUIRED)
        if path.startswith("/api/v1/") and path.endswith("/") and len(path) > len("/api/v1/"):
            request.path_info = path.rstrip("/")
        return get_response(request)

    return middleware


def method_not_allowed_page(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    """A page's 405 (a GET to a form's action, say) is an empty body, which browsers show as their own
    error; give it the site's error page, keeping its Allow header. The API's 405s are JSON already."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if response.status_code != 405 or response.content or is_api_path(request.path):
            return response
        from memory_site.views import error_page

        page = error_page(request, 405, "Not here", "This address does not take that kind of request.")
        if response.has_header("Allow"):
            page["Allow"] = response["Allow"]
        return page

    return middleware
