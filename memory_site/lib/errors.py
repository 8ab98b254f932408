"""The base of every domain error a service raises.

A service says what went wrong and how an HTTP client should hear it (status, message, extra); the
API's one exception handler (memory_site/api/errors.py) turns it into the error envelope. Views never
catch these themselves. Kept free of Django and DRF so services, tasks and commands can raise it; the
few errors only the HTTP layer raises (a body over the parser's limit) are DRF exceptions in
memory_site/api/exceptions.py.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ServiceError(Exception):
    """A domain error with its HTTP meaning. Subclasses set `status_code` and `message`; an instance
    may override the message and carry `extra` (goes to the envelope's "extra" as given)."""

    status_code: ClassVar[int] = 400
    message: ClassVar[str] = "The request cannot be done."

    def __init__(self, message: str | None = None, *, extra: dict[str, Any] | None = None) -> None:
        self.detail = message or type(self).message
        self.extra = extra or {}
        super().__init__(self.detail)


class NotFoundError(ServiceError):
    status_code = 404
    message = "Not found."


class ConflictError(ServiceError):
    status_code = 409
    message = "Conflict."


class ForbiddenError(ServiceError):
    status_code = 403
    message = "Not allowed."


class UnavailableError(ServiceError):
    status_code = 503
    message = "Service unavailable."


class InvalidFieldError(ServiceError):
    """Bad input only the service can judge (it needs the database or another field): answered like a
    serializer's error, under the field's name."""

    status_code = 400
    message = "Invalid input."

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(extra={"fields": {field: [reason]}})
        self.field, self.reason = field, reason
