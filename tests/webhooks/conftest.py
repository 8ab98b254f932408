"""A loopback receiver for webhooks: a tiny threaded HTTP server that records every request and answers
with the status codes it is told to (then 200)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.time() on receipt


@dataclass
class Receiver:
    url: str
    requests: list[Received] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)  # answered in order, then 200

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{len(self.requests)} webhook requests received, expected {count}")
            time.sleep(0.01)
        return self.requests


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state: dict[str, Receiver] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            r = state["receiver"]
            r.requests.append(Received(self.path, dict(self.headers.items()), body, time.time()))
            status = r.statuses.pop(0) if r.statuses else 200
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"ok" if status < 300 else b"x" * 2000)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["receiver"] = Receiver(url=f"http://127.0.0.1:{server.server_address[1]}/hooks")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state["receiver"]
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def allow_private(settings: Any) -> None:
    """The tests receive on 127.0.0.1 (the worker's environment says the same: tests/fixtures)."""
    settings.WEBHOOKS_ALLOW_PRIVATE = True
