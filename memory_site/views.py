"""The site root, and Django-level error pages: JSON envelopes under the API prefixes, the site's own page
elsewhere (its header and a way back, not a bare "Not Found")."""

from __future__ import annotations

import logging
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template import loader

from memory_site.api.errors import MESSAGE_NOT_FOUND, MESSAGE_SERVER_ERROR, is_api_path, json_error

logger = logging.getLogger(__name__)


def home(request: HttpRequest) -> HttpResponse:
    """`/`: the person's memory when logged in, the login page otherwise (the API docs are linked from both)."""
    return redirect("memory" if request.user.is_authenticated else "login")


def error_page(request: HttpRequest | None, status: int, heading: str, message: str) -> HttpResponse:
    """The error page in the site's layout. Without a request (a server error, where the database may be
    the trouble) it renders with no user and no menu."""
    context: dict[str, Any] = {"heading": heading, "message": message}
    if request is not None and request.user.is_authenticated:
        from palace.web.common import NAV  # the pages' menu; the palace app imports this module's package

        context["nav"] = NAV
    return HttpResponse(loader.render_to_string("error.html", context, request=request), status=status)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request.path):
        return json_error(404, MESSAGE_NOT_FOUND)
    return error_page(request, 404, "Not found", "There is nothing here, or it is not yours, or it was forgotten.")


def server_error(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    if is_api_path(request.path):
        return json_error(500, MESSAGE_SERVER_ERROR)
    return error_page(None, 500, "Something went wrong", "The error was logged. Nothing you sent was lost.")


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request.path):
        return json_error(400, "Bad request.")
    return error_page(request, 400, "Bad request", "The page could not read that request.")


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request.path):
        return json_error(403, "You do not have permission to perform this action.")
    return error_page(request, 403, "Not allowed", "You do not have permission to do that.")


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form posted without its token, or from a page left open too long."""
    if is_api_path(request.path):
        return json_error(403, f"CSRF Failed: {reason}")
    message = "The form had expired or came from elsewhere. Go back, reload the page and try again."
    return error_page(request, 403, "That form could not be sent", message)
