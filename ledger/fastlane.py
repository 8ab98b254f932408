"""The working-memory and ledger hot path, served in front of Django: read working memory, merge fields
into it, check and mark ledger items — the calls an agent makes on every LLM turn.

Through Django and DRF such a request cost ~2.9 ms, of which ~1 ms was two Redis round trips (the key
cache with the rate-limit count, then the operation's script) and the rest middleware and DRF dispatch
(bench/working_memory.py, issue 17). Here the same request is one Redis round trip and a few dozen lines:

- the API key is hashed and looked up in a small per-process memo of keys the Redis auth cache has
  served (accounts.auth_cache), holding only the owner's id, the key's id and its prefix;
- one Lua script (GATE + the operation) checks that the key is still in the Redis auth cache (revoking
  a key or changing its agent deletes that entry at once, and it expires after API_KEY_CACHE_SECONDS,
  so a revocation or a deactivated user is seen exactly as on the Django path), counts the request in
  the key's rate window, claims the last-used marker, and runs the operation on the owner's keys;
- the answer is rendered as DRF renders it, with the headers Django's middleware adds.

Anything else goes to Django unchanged, with its body: a request without an API key, a key this process
has not seen yet or one the cache no longer holds, any input that is not plainly valid (Django answers
with the one error envelope), an over-limit merge, a throttled request's answer, Redis errors (the
circuit breaker and the 503 envelope live there). The views in ledger/api stay the schema and the
reference: tests/ledger/test_fastlane.py sends the same requests both ways and compares the answers.
"""

from __future__ import annotations

import io
import json
import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

import redis
from django.conf import settings
from django.db import close_old_connections, connection
from rest_framework.renderers import JSONRenderer

from accounts import auth_cache
from accounts.models import ApiKey
from accounts.services import api_key_hash, api_key_prefix, api_key_touch
from ledger import redis_store
from ledger.api.common import is_valid_field_name
from ledger.services import MAX_FIELDS_PER_WRITE
from memory_site.api.parsers import check_json_value
from memory_site.api.throttling import Window
from memory_site.lib.ids import is_valid_conversation_id

logger = logging.getLogger(__name__)

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WsgiApp = Callable[[Environ, StartResponse], Iterable[bytes]]

WORKING_MEMORY: Final = re.compile(r"^(?:/api/v1/working-memory/([^/]+)/?|/working-memory/([^/]+))$")
LEDGER: Final = re.compile(r"^(?:/api/v1/ledger/([^/]+)/(check|mark)/?|/ledger/([^/]+)/(check|mark))$")
MEMO_SIZE: Final = 4096  # keys remembered per process

# The gate in front of an operation's own script (redis_store.READ, MERGE, LEDGER, run unchanged on
# KEYS[4..] and ARGV[4..]). KEYS: auth cache entry, rate window, last-used marker, then the operation's.
# ARGV: rate limit, window ttl, marker ttl, then the operation's. Returns {status, touch due, result}:
# status 0 done (result: the operation's), -9 key not in the auth cache (nothing done), -429 over the
# rate limit (counted, nothing else done).
GATE: Final = """
if redis.call('EXISTS', KEYS[1]) == 0 then return {-9, 0, 0} end
local count = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
if count > tonumber(ARGV[1]) then return {-429, 0, count} end
local touch = redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[3]) and 1 or 0
local op_keys, op_argv = {}, {}
for i = 4, #KEYS do op_keys[#op_keys + 1] = KEYS[i] end
for i = 4, #ARGV do op_argv[#op_argv + 1] = ARGV[i] end
local result = (function(KEYS, ARGV)
%s
end)(op_keys, op_argv)
return {0, touch, result}
"""
SCRIPTS: Final = {
    "get": GATE % redis_store.READ,
    "merge": GATE % redis_store.MERGE,
    "check": GATE % redis_store.LEDGER,
    "mark": GATE % redis_store.LEDGER,
}

# What Django's middleware adds to an API answer (SecurityMiddleware, XFrameOptionsMiddleware) and what
# DRF adds (Allow), so a client cannot tell the two paths apart.
ALLOW: Final = {"working-memory": "GET, PUT, DELETE, HEAD, OPTIONS", "ledger": "POST, OPTIONS"}


@dataclass(frozen=True)
class Known:
    """What the hot path needs of an API key the Redis auth cache has served."""

    key_id: int
    owner_id: int
    prefix: str
    key_hash: str


class Delegate(Exception):
    """Hand the request to Django as it came."""


class FastLane:
    """WSGI middleware: serve the hot operations, hand everything else to `app` (Django)."""

    def __init__(self, app: WsgiApp) -> None:
        self.app = app
        self.memo: OrderedDict[str, Known] = OrderedDict()
        self.lock = threading.Lock()
        self.renderer = JSONRenderer()
        self.headers = self._static_headers()

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "")
        route = self._route(path, method)
        if route is None or (settings.SECURE_SSL_REDIRECT and not self._secure(environ)):
            return self.app(environ, start_response)  # not ours, or plain HTTP to be redirected by Django
        body = b""
        try:
            body = self._body(environ)
            return self._serve(environ, start_response, route, body)
        except Delegate:
            environ["wsgi.input"] = io.BytesIO(body)
            return self.app(environ, start_response)

    @staticmethod
    def _secure(environ: Environ) -> bool:
        proxy = settings.SECURE_PROXY_SSL_HEADER
        if proxy and environ.get(proxy[0], "").split(",")[0].strip() == proxy[1]:
            return True
        return bool(environ.get("wsgi.url_scheme") == "https")

    # --- routing and input -------------------------------------------------------------------------

    @staticmethod
    def _route(path: str, method: str) -> tuple[str, str, str] | None:
        """(kind, op, conversation id) of a hot request, else None."""
        if method == "GET" or method == "PUT":
            match = WORKING_MEMORY.match(path)
            if match:
                return "working-memory", "get" if method == "GET" else "merge", match.group(1) or match.group(2)
        elif method == "POST":
            match = LEDGER.match(path)
            if match:
                return "ledger", match.group(2) or match.group(4), match.group(1) or match.group(3)
        return None

    @staticmethod
    def _body(environ: Environ) -> bytes:
        if environ.get("REQUEST_METHOD") == "GET":
            return b""
        length = environ.get("CONTENT_LENGTH") or ""
        if not length.isdigit() or int(length) > settings.API_MAX_BODY_BYTES:
            raise Delegate  # chunked, missing or too large: Django's answers
        body: bytes = environ["wsgi.input"].read(int(length))
        return body

    @staticmethod
    def _json(environ: Environ, body: bytes) -> dict[str, Any]:
        content_type = environ.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise Delegate
        try:
            data = json.loads(body, parse_constant=_not_a_number)
            check_json_value(data)
        except Exception:  # noqa: BLE001 - whatever is wrong, Django says it in the envelope
            raise Delegate from None
        if not isinstance(data, dict):
            raise Delegate
        return data

    # --- authentication -----------------------------------------------------------------------------

    @staticmethod
    def _raw_key(environ: Environ) -> str:
        header = environ.get("HTTP_X_API_KEY")
        if header is not None:
            return str(header).strip()
        parts = environ.get("HTTP_AUTHORIZATION", "").split()
        if len(parts) == 2 and parts[0].lower() == "bearer":
            return str(parts[1])
        raise Delegate  # no key, a browser session or a malformed header

    def _known(self, raw_key: str) -> Known:
        prefix = api_key_prefix(raw_key)
        if prefix is None:
            raise Delegate
        key_hash = api_key_hash(raw_key)
        with self.lock:
            known = self.memo.get(key_hash)
            if known is not None:
                self.memo.move_to_end(key_hash)
                return known
        try:
            api_key = auth_cache.peek(key_hash=key_hash)
        except redis.RedisError:
            raise Delegate from None
        if api_key is None or api_key.revoked_at is not None or not api_key.agent.owner.is_active:
            raise Delegate  # not cached yet (Django caches it) or not valid (Django refuses it)
        known = Known(key_id=api_key.pk, owner_id=api_key.agent.owner_id, prefix=prefix, key_hash=key_hash)
        with self.lock:
            self.memo[key_hash] = known
            while len(self.memo) > MEMO_SIZE:
                self.memo.popitem(last=False)
        return known

    def _forget(self, known: Known) -> None:
        with self.lock:
            self.memo.pop(known.key_hash, None)

    # --- the operation ------------------------------------------------------------------------------

    def _serve(
        self, environ: Environ, start_response: StartResponse, route: tuple[str, str, str], body: bytes
    ) -> Iterable[bytes]:
        kind, op, conversation_id = route
        if not conversation_id.isascii() or not is_valid_conversation_id(conversation_id):
            raise Delegate
        args = self._op_args(op, {} if op == "get" else self._json(environ, body))
        known = self._known(self._raw_key(environ))
        window = Window(f"key:{known.prefix}")
        first = (redis_store.working_memory_key if kind == "working-memory" else redis_store.ledger_key)(
            known.owner_id, conversation_id
        )
        keys = [
            auth_cache.cache_key(known.key_hash),
            window.key,
            auth_cache.touch_key(known.prefix),
            first,
            redis_store.ttl_policy_key(known.owner_id, conversation_id),
        ]
        try:
            answer = redis_store.run(
                SCRIPTS[op], keys, [window.limit, window.ttl, settings.API_KEY_TOUCH_INTERVAL, *args]
            )
        except redis.RedisError:
            raise Delegate from None  # the breaker, the 503 envelope and the log live on the Django path
        assert isinstance(answer, list)
        status, touch_due, result = answer
        if status == -9:
            self._forget(known)
        if status != 0 or (op == "merge" and int(result[0]) == -1):
            # Not cached, throttled (counted: Django counts it again and answers 429) or over the size
            # limit (nothing written: Django refuses it the same way, with the 413 envelope).
            raise Delegate
        if touch_due:  # once per API_KEY_TOUCH_INTERVAL per key, across processes (the marker)
            self._touch(known.key_id)
        return self._answer(start_response, kind, self._result(op, args, result))

    @staticmethod
    def _touch(key_id: int) -> None:
        """Keep last_used_at current, with the connection handling of a Django request around the write."""
        fresh = not connection.in_atomic_block  # inside a transaction (a test's), the connection is not ours
        if fresh:
            close_old_connections()
        try:
            api_key_touch(api_key=ApiKey(pk=key_id), due=True)
        finally:
            if fresh:
                close_old_connections()

    @staticmethod
    def _op_args(op: str, data: dict[str, Any]) -> list[str | int]:
        """The operation's script arguments from a plainly valid body, or Delegate."""
        default_ttl = settings.WORKING_MEMORY_TTL
        if op == "get":
            return [default_ttl, "all"]
        if op == "merge":
            fields, ttl = data.get("fields"), data.get("ttl_seconds")
            if not isinstance(fields, dict) or not fields or len(fields) > MAX_FIELDS_PER_WRITE:
                raise Delegate
            if not all(is_valid_field_name(name) for name in fields):
                raise Delegate
            if "ttl_seconds" in data and (type(ttl) is not int or not 1 <= ttl <= settings.WORKING_MEMORY_MAX_TTL):
                raise Delegate
            args: list[str | int] = [settings.WORKING_MEMORY_MAX_BYTES, ttl or default_ttl, default_ttl, 0]
            for name, value in fields.items():
                args += [name, redis_store.encode(value)]
            return args
        item, value = data.get("item"), data.get("value", "injected")
        if not isinstance(item, str) or not is_valid_field_name(item):
            raise Delegate
        if op == "mark" and (not isinstance(value, str) or not value or len(value) > 1024):
            raise Delegate
        return [default_ttl, op, item, value if op == "mark" else ""]

    @staticmethod
    def _result(op: str, args: list[str | int], result: Any) -> Any:
        if op == "get":
            return {result[i]: redis_store.decode(result[i + 1]) for i in range(0, len(result), 2)}
        if op == "merge":
            names = sorted(str(args[j]) for j in range(4, len(args), 2))
            return {"updated": names, "size_bytes": int(result[1]), "ttl_seconds": int(result[2])}
        if op == "check":
            return {"item": args[2], "injected": bool(result)}
        return {"item": args[2], "value": args[3], "newly_marked": bool(result)}

    # --- the answer ---------------------------------------------------------------------------------

    def _answer(self, start_response: StartResponse, kind: str, data: Any) -> Iterable[bytes]:
        content = self.renderer.render(data)
        headers = [
            ("Content-Type", "application/json"),
            ("Allow", ALLOW[kind]),
            *self.headers,
            ("Content-Length", str(len(content))),
        ]
        if settings.SECURE_HSTS_SECONDS:  # only reached over HTTPS (see __call__), as SecurityMiddleware does
            hsts = f"max-age={settings.SECURE_HSTS_SECONDS}"
            hsts += "; includeSubDomains" if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS else ""
            hsts += "; preload" if settings.SECURE_HSTS_PRELOAD else ""
            headers.append(("Strict-Transport-Security", hsts))
        start_response("200 OK", headers)
        return [content]

    @staticmethod
    def _static_headers() -> list[tuple[str, str]]:
        headers = [("X-Frame-Options", getattr(settings, "X_FRAME_OPTIONS", "DENY"))]
        if getattr(settings, "SECURE_CONTENT_TYPE_NOSNIFF", True):
            headers.append(("X-Content-Type-Options", "nosniff"))
        policy = getattr(settings, "SECURE_REFERRER_POLICY", "same-origin")
        if policy:
            headers.append(("Referrer-Policy", policy if isinstance(policy, str) else ",".join(policy)))
        opener = getattr(settings, "SECURE_CROSS_ORIGIN_OPENER_POLICY", "same-origin")
        if opener:
            headers.append(("Cross-Origin-Opener-Policy", opener))
        return headers


def _not_a_number(literal: str) -> None:
    raise ValueError(f"{literal} is not JSON")  # Python's json module accepts NaN and Infinity; JSON does not


def fast_lane(app: WsgiApp) -> WsgiApp:
    """`app` behind the hot path, unless FAST_LANE is off (then every request goes through Django)."""
    return FastLane(app) if settings.FAST_LANE else app
