"""The one exception the client raises: an answer in Loci's error envelope, a network failure, or a job
that did not finish in time."""

from __future__ import annotations

from typing import Any

import httpx


class LociError(Exception):
    """`status` is the HTTP status, or None when no answer came (network error, timeout, a wait that ran
    out); `message` and `extra` are the envelope's (`{"message": ..., "extra": {...}}`)."""

    def __init__(self, status: int | None, message: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {message}" if status is not None else message)
        self.status = status
        self.message = message
        self.extra: dict[str, Any] = extra or {}

    def __repr__(self) -> str:
        return f"LociError(status={self.status!r}, message={self.message!r}, extra={self.extra!r})"


def from_response(response: httpx.Response) -> LociError:
    """The envelope when the body is one; a proxy's HTML page or an empty body keeps the status and says
    what came instead."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        extra = body.get("extra")
        return LociError(response.status_code, body["message"], extra if isinstance(extra, dict) else {})
    text = response.text[:200]
    return LociError(response.status_code, response.reason_phrase or "HTTP error", {"body": text} if text else {})


def from_transport(exc: httpx.HTTPError) -> LociError:
    return LociError(None, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__, {})
