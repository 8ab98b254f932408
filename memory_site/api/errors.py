"""The one error envelope: every API error answers `{"message": str, "extra": {...}}`.

`exception_handler` is DRF's EXCEPTION_HANDLER: it maps the services' domain errors
(`memory_site.lib.errors.ServiceError`), DRF's and our HTTP-level exceptions (`memory_site.api.exceptions`)
and infrastructure outages (503) in one place. `json_error` answers Django-level errors (an unknown URL,
a crash outside DRF) under the API prefixes the same way (memory_site/views.py). Messages are module
constants so tests and clients can rely on them.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from django.core.exceptions import ObjectDoesNotExist, RequestDataTooBig
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from memory_site.api.exceptions import (
    MESSAGE_DATABASE_DOWN,
    MESSAGE_INVALID_INPUT,
    MESSAGE_NOT_FOUND,
    MESSAGE_PAYLOAD_TOO_LARGE,
    MESSAGE_REDIS_DOWN,
    MESSAGE_SERVER_ERROR,
    PayloadTooLarge,
    ServiceUnavailable,
)
from memory_site.api.parsers import body_too_large
from memory_site.lib.errors import ServiceError

logger = logging.getLogger(__name__)

__all__ = [
    "MESSAGE_DATABASE_DOWN",
    "MESSAGE_INVALID_INPUT",
    "MESSAGE_NOT_FOUND",
    "MESSAGE_PAYLOAD_TOO_LARGE",
    "MESSAGE_REDIS_DOWN",
    "MESSAGE_SERVER_ERROR",
    "PayloadTooLarge",
    "ServiceUnavailable",
    "exception_handler",
]


def envelope(message: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"message": message, "extra": extra or {}}


class _ServiceErrorAnswer(exceptions.APIException):
    """A service's domain error as DRF sees it: its status, message and extra, nothing else."""

    def __init__(self, exc: ServiceError) -> None:
        super().__init__(exc.detail)
        self.status_code = exc.status_code
        self.extra = exc.extra


def _as_api_exception(exc: Exception, view: Any = None) -> exceptions.APIException | None:
    if isinstance(exc, exceptions.APIException):
        return exc
    if isinstance(exc, ServiceError):
        return _ServiceErrorAnswer(exc)
    if isinstance(exc, RequestDataTooBig):
        # Django's own bound (DATA_UPLOAD_MAX_MEMORY_SIZE) tripped before our parser's.
        declared = str((getattr(view, "request", None) and view.request.META.get("CONTENT_LENGTH")) or "")
        return body_too_large(int(declared) if declared.isdigit() else None)
    if isinstance(exc, (Http404, ObjectDoesNotExist)):
        # A row deleted between a view's access check and the service's write: the view names the thing.
        return exceptions.NotFound(getattr(view, "not_found_message", MESSAGE_NOT_FOUND))
    if isinstance(exc, DjangoPermissionDenied):
        return exceptions.PermissionDenied()
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    # Infrastructure outages are the client's 503, not our 500: the request may succeed on retry.
    if isinstance(exc, redis.RedisError):
        logger.warning("Redis unavailable: %s", exc)
        return ServiceUnavailable(MESSAGE_REDIS_DOWN)
    if isinstance(exc, (OperationalError, InterfaceError)):
        logger.warning("database unavailable: %s", exc)
        return ServiceUnavailable(MESSAGE_DATABASE_DOWN)
    return None


def _message_and_extra(exc: exceptions.APIException) -> tuple[str, dict[str, Any]]:
    detail = exc.detail
    if isinstance(exc, exceptions.ValidationError):
        fields = detail if isinstance(detail, dict) else {"non_field_errors": detail}
        return MESSAGE_INVALID_INPUT, {"fields": fields}
    extra: dict[str, Any] = dict(getattr(exc, "extra", None) or {})
    wait = getattr(exc, "wait", None)
    if isinstance(exc, exceptions.Throttled) and wait is not None:
        extra["retry_after_seconds"] = int(wait)
    if isinstance(detail, dict):
        # A few DRF exceptions carry structured details; keep them, under a stable message.
        return str(detail.get("message", exc.default_detail)), {
            **extra,
            **{k: v for k, v in detail.items() if k != "message"},
        }
    if isinstance(detail, list):
        return " ".join(str(item) for item in detail), extra
    return str(detail), extra


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    api_exc = _as_api_exception(exc, context.get("view"))
    set_rollback()
    if api_exc is None:
        view = context.get("view")
        logger.exception("unhandled error in %s", type(view).__name__ if view else "API", exc_info=exc)
        return Response(envelope(MESSAGE_SERVER_ERROR), status=status.HTTP_500_INTERNAL_SERVER_ERROR)
    message, extra = _message_and_extra(api_exc)
    headers: dict[str, str] = {}
    auth_header = getattr(api_exc, "auth_header", None)
    if auth_header:
        headers["WWW-Authenticate"] = auth_header
    wait = getattr(api_exc, "wait", None)
    if wait is not None:
        headers["Retry-After"] = str(int(wait))
    return Response(envelope(message, extra), status=api_exc.status_code, headers=headers)


# --- Django-level errors under the API prefixes ---------------------------------------------------

API_PATH_PREFIXES = ("/api/", "/health", "/working-memory/", "/ledger/", "/episodic/", "/memories/")


def is_api_path(path: str) -> bool:
    return path.startswith(API_PATH_PREFIXES)


def json_error(status_code: int, message: str) -> JsonResponse:
    return JsonResponse(envelope(message), status=status_code)
