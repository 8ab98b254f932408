"""The smallest WSGI app, served by bench/working_memory.py under the launcher's gunicorn settings: the
ceiling the working-memory endpoints are measured against (same machine, same run, same client)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

BODY = b'{"fields": {"step": 1, "note": "observation 1"}, "version": 1}'


def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length:
        environ["wsgi.input"].read(length)
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))])
    return [BODY]
