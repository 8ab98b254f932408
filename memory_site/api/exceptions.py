"""The HTTP layer's own exceptions (DRF `APIException`s) and the stable messages of the envelope.

Two kinds of error reach the client, and they live apart:
- domain errors, raised by services and selectors: `memory_site.lib.errors.ServiceError` and its
  subclasses, free of DRF so tasks and commands can raise them too;
- HTTP-level errors that only the request plumbing can raise (a body over the parser's limit) or that
  the exception handler answers infrastructure failures with (503): these, here.
`memory_site.api.errors.exception_handler` maps both to the one envelope.

Kept free of DRF's views so the parsers can import it without a cycle (DRF's APIView imports the
parser classes at class creation)."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, status

MESSAGE_INVALID_INPUT = "Invalid input."
MESSAGE_NOT_FOUND = "Not found."
MESSAGE_SERVER_ERROR = "Internal server error."
MESSAGE_REDIS_DOWN = "Redis is unavailable; try again shortly."
MESSAGE_DATABASE_DOWN = "The database is unavailable; try again shortly."
MESSAGE_PAYLOAD_TOO_LARGE = "Request body too large."


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = MESSAGE_PAYLOAD_TOO_LARGE
    default_code = "payload_too_large"

    def __init__(self, detail: str | None = None, *, extra: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.extra = extra or {}  # goes to the envelope's "extra" as given (numbers stay numbers)


class ServiceUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = "Service unavailable."
    default_code = "service_unavailable"
