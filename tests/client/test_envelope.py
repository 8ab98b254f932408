"""Answers the live server never gives (a proxy's HTML error page, a 200 that is not JSON), through
httpx's mock transport: they still come out as one LociError."""

from __future__ import annotations

import httpx
import pytest

from loci_client import Loci, LociError  # isort: skip


def _loci(status: int, body: bytes, content_type: str) -> Loci:
    def answer(request: httpx.Request) -> httpx.Response:
        assert request.headers["Authorization"] == "Bearer loci_a_b"
        return httpx.Response(status, content=body, headers={"Content-Type": content_type})

    return Loci("http://loci.test", "loci_a_b", transport=httpx.MockTransport(answer))


def test_a_proxys_error_page_keeps_its_status_and_shows_its_start() -> None:
    with _loci(502, b"<html>Bad Gateway</html>", "text/html") as loci, pytest.raises(LociError) as caught:
        loci.recall("anything")
    assert (caught.value.status, caught.value.message) == (502, "Bad Gateway")
    assert caught.value.extra == {"body": "<html>Bad Gateway</html>"}


def test_a_success_that_is_not_json_is_an_error() -> None:
    with _loci(200, b"ok", "text/plain") as loci, pytest.raises(LociError) as caught:
        loci.job_get("x")
    assert caught.value.status == 200 and caught.value.message == "The answer was not JSON."


def test_an_envelope_without_extra_gives_an_empty_extra() -> None:
    with _loci(503, b'{"message": "Down."}', "application/json") as loci, pytest.raises(LociError) as caught:
        loci.ledger_check("c1", "x")
    assert (caught.value.status, caught.value.message, caught.value.extra) == (503, "Down.", {})
