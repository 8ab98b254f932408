"""Export and import of a person's whole memory (JSON lines, palace/services/portability/format.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.api.authentication import request_owner
from memory_site.api.schema import ERROR_RESPONSES
from palace.services.portability import export_download, import_lines
from palace.services.portability.format import CONTENT_TYPE

MESSAGE_NO_FILE: Final = (
    "Send the export file as the request body (application/x-ndjson) or as the multipart field 'file'."
)


class JsonLinesParser(BaseParser):
    """Hands the body over as an iterator of lines, read as the import consumes them: an export of a
    big palace is never held whole in memory."""

    media_type = CONTENT_TYPE

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        return iter(stream) if stream is not None else iter(())


class JsonlParser(JsonLinesParser):
    media_type = "application/jsonl"


class MemoryExportApi(APIView):
    @extend_schema(
        operation_id="memory_export",
        summary="Download all of your memory as JSON lines (a format-versioned header, then one row per line)",
        parameters=[
            OpenApiParameter(
                "embeddings", bool, description="Add the embedding vectors (left out by default: recomputed on import)"
            )
        ],
        responses={(200, CONTENT_TYPE): OpenApiTypes.STR, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        owner = request_owner(request)
        with_embeddings = request.query_params.get("embeddings", "").lower() in ("1", "true", "yes")
        return export_download(owner=owner, with_embeddings=with_embeddings)


class MemoryImportApi(APIView):
    parser_classes = [JsonLinesParser, JsonlParser, MultiPartParser]

    class OutputSerializer(serializers.Serializer):
        rows = serializers.DictField(child=serializers.IntegerField(), help_text="Rows read, per type")
        lines = serializers.IntegerField()
        embedded = serializers.IntegerField(help_text="Rows embedded after the import")

    @extend_schema(
        operation_id="memory_import",
        summary="Load an export file (idempotent: importing the same file twice changes nothing)",
        request={CONTENT_TYPE: OpenApiTypes.STR, "multipart/form-data": OpenApiTypes.BINARY},
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        owner = request_owner(request)
        if request.content_type.startswith("multipart/"):
            upload = request.FILES.get("file")
            if upload is None:
                raise ParseError(MESSAGE_NO_FILE)
            lines: Any = iter(upload)
        else:
            lines = request.data
        result = import_lines(owner=owner, lines=lines)
        return Response(self.OutputSerializer(result).data)
