"""Work a request owes but its caller need not wait for: a meter row for a query embedding is written
after the response's last byte has gone (when the WSGI server closes the response), not before it.
Outside a request (a worker, a command, a test calling a service) the work runs at once.

    later(fn)  -> runs fn after this request's response is sent, or now when there is no request
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

_pending: contextvars.ContextVar[list[Callable[[], object]] | None] = contextvars.ContextVar(
    "loci_after_response", default=None
)


def later(work: Callable[[], object]) -> None:
    queue = _pending.get()
    if queue is None:
        work()
    else:
        queue.append(work)


def _run(queue: list[Callable[[], object]]) -> None:
    for work in queue:
        try:
            work()
        except Exception:
            logger.exception("work after a response failed")


def after_response(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """Collects `later` work during the request and runs it when the server closes the response (before
    Django's own request_finished handlers close the database connection)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        queue: list[Callable[[], object]] = []
        token = _pending.set(queue)
        try:
            response = get_response(request)
        finally:
            _pending.reset(token)
        if queue:
            response._resource_closers.insert(0, lambda: _run(queue))  # type: ignore[attr-defined]
        return response

    return middleware
