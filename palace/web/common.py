"""What every page shares: the navigation, the paused banner, the person's timezone, full page or htmx
partial, pagination."""

from __future__ import annotations

import zoneinfo
from typing import Any

from django.contrib.auth.models import User
from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from accounts.services import memory_settings_ensure

NAV = [
    ("memory", "Palace"),
    ("memory-memories", "Memories"),
    ("memory-entities", "Entities"),
    ("memory-activity", "Activity"),
    ("memory-overview", "Overview"),
    ("settings-memory", "Settings"),
]
PAGE_SIZE = 25


def is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true" and request.headers.get("HX-History-Restore-Request") != "true"


def page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    partial: str | None = None,
    active: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The full page, or only `partial` (the page's inner template) for an htmx request. Dates render in
    the person's timezone (Settings → Memory)."""
    memory_settings = memory_settings_ensure(user=person(request))
    timezone.activate(zoneinfo.ZoneInfo(memory_settings.timezone))
    context = {
        "nav": NAV,
        "active": active,
        "paused": not memory_settings.enabled,
        "memory_settings": memory_settings,
        **context,
    }
    chosen = partial if partial is not None and is_htmx(request) else template
    return render(request, chosen, context, status=status)


def paginate(
    request: HttpRequest, items: QuerySet[Any] | list[Any], size: int = PAGE_SIZE, param: str = "page"
) -> Page:
    """One page of `items`; a page number out of range gives the last page, not an error."""
    return Paginator(items, size).get_page(request.GET.get(param))


def person(request: HttpRequest) -> User:
    """The logged-in person (every page is behind login_required)."""
    user = request.user
    assert isinstance(user, User), "the page is behind login_required"
    return user
