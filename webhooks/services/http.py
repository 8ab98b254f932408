"""One signed POST to an endpoint, connected to the address checked by webhooks/addresses.py (never
re-resolved between the check and the connection), redirects not followed."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from standardwebhooks.webhooks import Webhook

from webhooks.addresses import AddressRefused, HostUnresolved, address_resolve, url_check
from webhooks.models import SNIPPET_CHARS, Endpoint, Event


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    latency_ms: int
    snippet: str
    error: str
    retryable: bool

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def message_id(*, event: Event, endpoint: Endpoint) -> str:
    """Stable per event and endpoint, across retries and replays: receivers deduplicate on it."""
    return f"msg_{uuid.uuid5(endpoint.id, str(event.id)).hex}"


def body_of(event: Event) -> str:
    payload: dict[str, Any] = {"type": event.type, "timestamp": event.created_at.isoformat(), "data": event.payload}
    return json.dumps({"id": str(event.id), **payload}, separators=(",", ":"), sort_keys=True)


def signed_headers(*, secret: str, msg_id: str, body: str, at: datetime) -> dict[str, str]:
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id=msg_id, timestamp=at, data=body),
    }


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """Connects to the checked address while verifying the certificate (and sending SNI) for the host."""

    def __init__(self, host: str, address: str, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)


def _connection(scheme: str, host: str, port: int, address: str, timeout: float) -> http.client.HTTPConnection:
    if scheme == "https":
        return _PinnedHTTPSConnection(host, address, port=port, timeout=timeout)
    return http.client.HTTPConnection(address, port=port, timeout=timeout)


def post(*, endpoint: Endpoint, event: Event) -> Outcome:
    clock = time.perf_counter()

    def elapsed() -> int:
        return round((time.perf_counter() - clock) * 1000)

    try:
        scheme, port, host = url_check(endpoint.url)
        address = address_resolve(host, port)
    except AddressRefused as exc:
        return Outcome(None, elapsed(), "", str(exc), retryable=False)
    except HostUnresolved as exc:
        # Like a refused connection: a resolver outage or a record not published yet ends by itself.
        return Outcome(None, elapsed(), "", str(exc), retryable=True)
    body = body_of(event)
    headers = signed_headers(
        secret=endpoint.secret, msg_id=message_id(event=event, endpoint=endpoint), body=body, at=datetime.now(UTC)
    )
    parts = urlsplit(endpoint.url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host_header = host if port in (80, 443) else f"{host}:{port}"
    connection = _connection(scheme, host, port, address, settings.WEBHOOKS_TIMEOUT)
    try:
        connection.request(
            "POST",
            path,
            body=body.encode(),
            headers={**headers, "Host": host_header, "Content-Type": "application/json", "User-Agent": "Loci-Webhooks"},
        )
        response = connection.getresponse()
        snippet = response.read(SNIPPET_CHARS * 4).decode("utf-8", "replace")[:SNIPPET_CHARS]
    except (OSError, http.client.HTTPException) as exc:
        # Timeouts, refused connections, TLS failures, a reset mid-answer: worth another try.
        return Outcome(None, elapsed(), "", f"{type(exc).__name__}: {exc}"[:500], retryable=True)
    finally:
        connection.close()
    status = response.status
    retryable = status >= 500 or status in (408, 429)
    return Outcome(status, elapsed(), snippet, "" if 200 <= status < 300 else f"HTTP {status}", retryable)
