"""Work deferred past the response (memory_site/after_response.py): run when the server closes the
response, in order, one failure not stopping the rest; at once outside a request."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from memory_site.after_response import after_response, later


def test_work_waits_for_the_response_to_close_and_a_failure_does_not_stop_the_rest() -> None:
    done: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        later(lambda: done.append("meter"))
        later(lambda: 1 / 0)
        later(lambda: done.append("after the failure"))
        return HttpResponse("ok")

    response = after_response(view)(HttpRequest())
    assert done == []  # the response is built, not yet sent
    response.close()
    assert done == ["meter", "after the failure"]


def test_outside_a_request_work_runs_at_once() -> None:
    done: list[int] = []
    later(lambda: done.append(1))
    assert done == [1]
