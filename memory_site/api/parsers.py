from __future__ import annotations

import io
import math
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from memory_site.api.exceptions import MESSAGE_PAYLOAD_TOO_LARGE, PayloadTooLarge

MAX_DEPTH = 64
MESSAGE_MALFORMED_JSON = "Malformed JSON."
MESSAGE_TOO_DEEP = f"JSON nested deeper than {MAX_DEPTH} levels."
MESSAGE_SURROGATE = "JSON strings must be valid Unicode (lone surrogate escapes such as \\ud800 are refused)."
MESSAGE_NUL = "JSON strings may not hold the NUL character (\\u0000): the database cannot store it."
MESSAGE_NOT_FINITE = "Out of range float values are not permitted (NaN, Infinity, or a number such as 1e999)."


def check_json_value(value: Any) -> None:
    """Refuse what PostgreSQL, Redis or the JSON encoder would choke on later: lone UTF-16 surrogates
    (valid JSON escapes, invalid Unicode), NUL characters (PostgreSQL's text and jsonb refuse them; found
    by schema fuzzing as a 500 from a workflow pool write), numbers that are not finite (NaN, Infinity, 1e999:
    no JSON encoder writes them back) and nesting deep enough to exhaust recursion. Iterative, so a
    hostile document cannot blow the stack here either."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ParseError(MESSAGE_TOO_DEEP)
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise ParseError(MESSAGE_SURROGATE) from None
            if "\x00" in item:
                raise ParseError(MESSAGE_NUL)
        elif isinstance(item, float) and not math.isfinite(item):
            raise ParseError(MESSAGE_NOT_FINITE)  # JSON has no such number; 1e999 parses as infinity
        elif isinstance(item, dict):
            for key, child in item.items():
                stack.append((key, depth + 1))
                stack.append((child, depth + 1))
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)


def body_too_large(size_bytes: int | None) -> PayloadTooLarge:
    extra = {"size_bytes": size_bytes} if size_bytes is not None else {}
    return PayloadTooLarge(MESSAGE_PAYLOAD_TOO_LARGE, extra={**extra, "limit_bytes": settings.API_MAX_BODY_BYTES})


class BoundedJSONParser(JSONParser):
    """JSON only, never more than API_MAX_BODY_BYTES, valid Unicode, bounded nesting. DRF reads the
    body stream directly, which skips Django's DATA_UPLOAD_MAX_MEMORY_SIZE check, so the bound is
    enforced here too (a body without Content-Length is refused earlier, by the middleware)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        limit = settings.API_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if declared and declared.isdigit() and int(declared) > limit:
            raise body_too_large(int(declared))
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise body_too_large(len(body))  # at least this many: the rest is never read
        try:
            data = super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError:
            raise ParseError(MESSAGE_TOO_DEEP) from None
        except ParseError as exc:  # where it broke goes to `extra`: the message stays a constant
            if "Out of range float" in str(exc.detail):  # NaN, Infinity: as when 1e999 parses as infinity
                raise ParseError(MESSAGE_NOT_FINITE) from None
            error = ParseError(MESSAGE_MALFORMED_JSON)
            error.extra = {"error": str(exc.detail).removeprefix("JSON parse error - ")}  # type: ignore[attr-defined]
            raise error from None
        check_json_value(data)
        return data
