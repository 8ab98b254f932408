"""The site root, and Django-level error pages: JSON envelopes under the API prefixes, Django's defaults elsewhere."""

from __future__ import annotations

import logging
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views import defaults

from memory_site.api.errors import MESSAGE_NOT_FOUND, MESSAGE_SERVER_ERROR, is_api_path, json_error

logger = logging.getLogger(__name__)


def home(request: HttpRequest) -> HttpResponse:
    """`/`: the person's memory when logged in, the login page otherwise (the API docs are linked from both)."""
    return redirect("memory" if request.user.is_authenticated else "login")


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request.path):
        return json_error(404, MESSAGE_NOT_FOUND)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    if is_api_path(request.path):
        return json_error(500, MESSAGE_SERVER_ERROR)
    return defaults.server_error(request)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request.path):
        return json_error(400, "Bad request.")
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api_path(request.path):
        return json_error(403, "You do not have permission to perform this action.")
    return defaults.permission_denied(request, exception)
