from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework.parsers import JSONParser

from memory_site.api.exceptions import MESSAGE_PAYLOAD_TOO_LARGE, PayloadTooLarge


class BoundedJSONParser(JSONParser):
    """JSON only, and never more than API_MAX_BODY_BYTES: DRF reads the body stream directly, which
    skips Django's DATA_UPLOAD_MAX_MEMORY_SIZE check, so the bound is enforced here (also for chunked
    bodies that declare no length)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        limit = settings.API_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if declared and declared.isdigit() and int(declared) > limit:
            raise PayloadTooLarge(MESSAGE_PAYLOAD_TOO_LARGE)
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise PayloadTooLarge(MESSAGE_PAYLOAD_TOO_LARGE)
        return super().parse(io.BytesIO(body), media_type, parser_context)
