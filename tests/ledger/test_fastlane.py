"""The hot path in front of Django (ledger/fastlane.py) answers exactly as the DRF views do: the same
requests are sent through Django alone and through the fast lane, on two conversations, and the answers
(status, body, headers) must match — while the fast lane really serves the plain ones itself and hands
everything else to Django."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from typing import Any

import pytest
import redis
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections
from django.test import override_settings

from accounts import auth_cache
from accounts.models import ApiKey
from accounts.services import api_key_revoke
from ledger import redis_store
from ledger.fastlane import FastLane
from tests.conftest import Personas

pytestmark = pytest.mark.django_db

Answer = tuple[int, dict[str, str], Any]


class Counting:
    """Django's WSGI handler, counting the requests that reach it."""

    def __init__(self) -> None:
        self.django = WSGIHandler()
        self.calls = 0

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        self.calls += 1
        return self.django(environ, start_response)


def call(app: Any, method: str, path: str, key: str | None, body: Any = None, **extra: str) -> Answer:
    raw = b"" if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(raw),
        "wsgi.errors": io.StringIO(),
        "CONTENT_LENGTH": str(len(raw)) if raw else "",
        "CONTENT_TYPE": "application/json" if raw else "",
        **({"HTTP_AUTHORIZATION": f"Bearer {key}"} if key else {}),
        **extra,
    }
    started: list[Any] = []
    # As Django's test client does: the request signals would close the test's connection (its transaction).
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        iterable = app(environ, lambda status, headers, *_: started.append((status, headers)))
        content = b"".join(iterable)
        getattr(iterable, "close", lambda: None)()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
    status, headers = started[0]
    names = {name: value for name, value in headers if name not in ("Content-Length",)}
    try:
        parsed = json.loads(content)
    except ValueError:
        parsed = content
    return int(status.split()[0]), names, parsed


# Numbers JSON does not have: Python's json module reads them, then cannot store them in Redis.
NOT_FINITE = [
    ("PUT", "/api/v1/working-memory/{c}", b'{"fields": {"x": NaN}}'),
    ("PUT", "/working-memory/{c}", b'{"fields": {"x": [1, {"y": 1e999}]}}'),
    ("POST", "/api/v1/ledger/{c}/check", b'{"item": "s", "value": -Infinity}'),
]
# (method, path template, body, served by the fast lane itself)
PLAIN = [
    ("PUT", "/api/v1/working-memory/{c}", {"fields": {"a": 1, "b": {"n": [1, "two", None]}, "é": "ü"}}, True),
    ("PUT", "/api/v1/working-memory/{c}/", {"fields": {"a": 2}, "ttl_seconds": 120}, True),
    ("GET", "/api/v1/working-memory/{c}", None, True),
    ("GET", "/working-memory/{c}", None, True),
    ("POST", "/api/v1/ledger/{c}/check", {"item": "skill-1"}, True),
    ("POST", "/api/v1/ledger/{c}/mark", {"item": "skill-1"}, True),
    ("POST", "/ledger/{c}/mark", {"item": "skill-1", "value": "v2"}, True),
    ("POST", "/api/v1/ledger/{c}/check", {"item": "skill-1"}, True),
]
ODD = [
    ("PUT", "/api/v1/working-memory/{c}", {"fields": {}}, False),
    ("PUT", "/api/v1/working-memory/{c}", {"fields": {"a": 1}, "ttl_seconds": None}, False),
    ("PUT", "/api/v1/working-memory/{c}", {"fields": {"a": 1}, "ttl_seconds": "5"}, False),
    ("PUT", "/api/v1/working-memory/{c}", {"fields": {"a": "x\u0000"}}, False),
    ("PUT", "/api/v1/working-memory/{c}", {"fields": {"big": "x" * 70_000}}, False),
    ("PUT", "/api/v1/working-memory/{c}", b"{not json", False),
    ("PUT", "/api/v1/working-memory/{c}", ["a"], False),
    *((method, path, body, False) for method, path, body in NOT_FINITE),
    ("POST", "/api/v1/ledger/{c}/mark", {"item": "s", "value": ""}, False),
    ("POST", "/api/v1/ledger/{c}/mark", {"item": 5}, False),
    ("POST", "/api/v1/ledger/{c}/check", {}, False),
    ("GET", "/api/v1/working-memory/bad%20id!", None, False),
    ("DELETE", "/api/v1/working-memory/{c}", None, False),
]


def _warm(lane: FastLane, key: str) -> None:
    """The first request of a key goes through Django, which puts it in the Redis auth cache."""
    call(lane, "GET", "/api/v1/working-memory/warm-up", key)


def test_the_fast_lane_answers_as_django_does_and_serves_the_plain_requests_itself(personas: Personas) -> None:
    inner = Counting()
    lane = FastLane(inner)
    django = WSGIHandler()
    key = personas.owner.key
    _warm(lane, key)
    for method, template, body, served in PLAIN + ODD:
        expected = call(django, method, template.format(c="conv-django"), key, body)
        before = inner.calls
        got = call(lane, method, template.format(c="conv-lane"), key, body)
        assert got == expected, (method, template, body)
        assert (inner.calls == before) is served, (method, template, body)


def test_the_fast_lane_keeps_owners_apart(personas: Personas) -> None:
    lane = FastLane(Counting())
    for persona in (personas.owner, personas.outsider):
        _warm(lane, persona.key)
    call(lane, "PUT", "/api/v1/working-memory/shared-name", personas.owner.key, {"fields": {"secret": "owner's"}})
    assert call(lane, "GET", "/api/v1/working-memory/shared-name", personas.owner.key)[2] == {"secret": "owner's"}
    assert call(lane, "GET", "/api/v1/working-memory/shared-name", personas.outsider.key)[2] == {}
    assert call(lane, "GET", "/api/v1/working-memory/shared-name", personas.teammate.key)[2] == {"secret": "owner's"}


def test_a_revoked_key_is_refused_at_once(personas: Personas, django_capture_on_commit_callbacks: Any) -> None:
    lane = FastLane(Counting())
    _warm(lane, personas.owner.key)
    assert call(lane, "GET", "/api/v1/working-memory/c1", personas.owner.key)[0] == 200
    with django_capture_on_commit_callbacks(execute=True):
        api_key_revoke(api_key=personas.owner.api_key)
    status, _, body = call(lane, "GET", "/api/v1/working-memory/c1", personas.owner.key)
    assert status == 401 and "message" in body
    assert call(lane, "GET", "/api/v1/working-memory/c1", None)[0] == 401


def test_requests_are_counted_against_the_keys_rate_limit(personas: Personas) -> None:
    lane = FastLane(Counting())
    with override_settings(API_THROTTLE_RATE="4/min"):
        answers = [call(lane, "GET", "/api/v1/working-memory/c2", personas.owner.key) for _ in range(6)]
    statuses = [status for status, _, _ in answers]
    assert statuses[:4] == [200] * 4 and statuses[4:] == [429, 429]
    assert "message" in answers[-1][2] and "Retry-After" in answers[-1][1]


def test_the_fast_lane_keeps_the_key_last_used_time(personas: Personas, raw_redis: redis.Redis) -> None:
    lane = FastLane(Counting())
    _warm(lane, personas.owner.key)
    ApiKey.objects.filter(pk=personas.owner.api_key.pk).update(last_used_at=None)
    raw_redis.delete(auth_cache.touch_key(personas.owner.api_key.prefix))
    assert call(lane, "GET", "/api/v1/working-memory/c3", personas.owner.key)[0] == 200
    assert ApiKey.objects.get(pk=personas.owner.api_key.pk).last_used_at is not None


def test_redis_down_answers_503_through_django(personas: Personas, unreachable_redis: None) -> None:
    inner = Counting()
    lane = FastLane(inner)
    status, _, body = call(lane, "GET", "/api/v1/working-memory/c4", personas.owner.key)
    assert status == 503 and "message" in body and inner.calls == 1


def test_the_fast_lane_writes_where_the_views_read(personas: Personas, raw_redis: redis.Redis) -> None:
    lane = FastLane(Counting())
    _warm(lane, personas.owner.key)
    call(lane, "PUT", "/api/v1/working-memory/c5", personas.owner.key, {"fields": {"k": [1, 2]}})
    stored = raw_redis.hgetall(redis_store.working_memory_key(personas.owner.user.pk, "c5"))
    assert stored == {"k": "[1,2]"}


@override_settings(
    SECURE_SSL_REDIRECT=True, SECURE_HSTS_SECONDS=3600, SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https")
)
def test_behind_tls_plain_http_is_redirected_and_https_gets_hsts(personas: Personas) -> None:
    inner = Counting()
    lane = FastLane(inner)
    django = WSGIHandler()
    key = personas.owner.key
    assert call(lane, "GET", "/api/v1/working-memory/c6", key)[0] == 301  # Django's redirect
    secure = {"HTTP_X_FORWARDED_PROTO": "https"}
    call(lane, "GET", "/api/v1/working-memory/warm-up", key, **secure)
    before = inner.calls
    got = call(lane, "GET", "/api/v1/working-memory/c6", key, **secure)
    assert inner.calls == before and got == call(django, "GET", "/api/v1/working-memory/c6", key, **secure)
    assert got[1]["Strict-Transport-Security"] == "max-age=3600"


def test_numbers_json_does_not_have_are_a_400_and_nothing_is_written(personas: Personas) -> None:
    lane = FastLane(Counting())
    key = personas.owner.key
    _warm(lane, key)
    for method, template, body in NOT_FINITE:
        status, _, answer = call(lane, method, template.format(c="conv-nan"), key, body)
        assert status == 400 and "float" in answer["message"], (template, body, answer)
    status, _, answer = call(lane, "GET", "/api/v1/working-memory/conv-nan", key)
    assert (status, answer) == (200, {}), answer
