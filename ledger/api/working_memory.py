"""A conversation's working memory as a whole: read it, merge fields into it, delete fields or all of it."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from ledger import selectors, services
from ledger.api.common import (
    ERRORS,
    MESSAGE_BAD_FIELD_NAME,
    AnyValue,
    FieldNameField,
    WorkingMemoryApi,
    WriteOutput,
    is_valid_field_name,
)


class WorkingMemoryGetApi(WorkingMemoryApi):
    @extend_schema(
        summary="All fields of a conversation's working memory (refreshes its TTL)",
        description="Values come back decoded from JSON. An unknown conversation answers `{}`.",
        responses={200: OpenApiResponse(description="`{field: value}`"), **ERRORS},
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        return Response(selectors.working_memory_get(owner_id=owner_id, conversation_id=conversation_id))


class WorkingMemoryMergeApi(WorkingMemoryApi):
    class InputSerializer(serializers.Serializer):
        fields = serializers.DictField(  # type: ignore[assignment]
            child=AnyValue(), help_text="Merged into the hash; other fields stay."
        )
        ttl_seconds = serializers.IntegerField(
            required=False, min_value=1, help_text="Whole-key TTL; default WORKING_MEMORY_TTL."
        )

        def validate_fields(self, value: dict[str, Any]) -> dict[str, Any]:
            if not value:
                raise serializers.ValidationError("Give at least one field.")
            if len(value) > services.MAX_FIELDS_PER_WRITE:
                raise serializers.ValidationError(f"At most {services.MAX_FIELDS_PER_WRITE} fields per write.")
            if not all(is_valid_field_name(name) for name in value):
                raise serializers.ValidationError(MESSAGE_BAD_FIELD_NAME)
            return value

        def validate_ttl_seconds(self, value: int) -> int:
            if value > settings.WORKING_MEMORY_MAX_TTL:
                raise serializers.ValidationError(f"At most {settings.WORKING_MEMORY_MAX_TTL} seconds.")
            return value

    class OutputSerializer(WriteOutput):
        updated = serializers.ListField(child=serializers.CharField())

    @extend_schema(
        summary="Merge fields into a conversation's working memory",
        description=(
            "Refused with 413, changing nothing, when the hash would pass 64 KB (field names + encoded values)."
        ),
        request=InputSerializer,
        responses={200: OutputSerializer, **ERRORS},
    )
    def put(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data["fields"]
        result = services.working_memory_merge(
            owner_id=owner_id,
            conversation_id=conversation_id,
            fields=fields,
            ttl_seconds=data.validated_data.get("ttl_seconds"),
        )
        return Response({"updated": sorted(fields), "size_bytes": result.size_bytes, "ttl_seconds": result.ttl_seconds})


class WorkingMemoryDeleteApi(WorkingMemoryApi):
    class InputSerializer(serializers.Serializer):
        fields = serializers.ListField(  # type: ignore[assignment]
            child=FieldNameField(),
            required=False,
            allow_empty=False,
            max_length=services.MAX_FIELDS_PER_WRITE,
            help_text="Omit the body (or this key) to delete everything; an empty list is refused.",
        )

    class OutputSerializer(serializers.Serializer):
        deleted = serializers.IntegerField(help_text="How many fields were removed.")
        whole = serializers.BooleanField(help_text="True when the whole working memory was removed.")

    @extend_schema(
        summary="Delete named fields, or the whole working memory when none are named",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERRORS},
    )
    def delete(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        fields = data.validated_data.get("fields") or None
        deleted = services.working_memory_delete(owner_id=owner_id, conversation_id=conversation_id, fields=fields)
        return Response({"deleted": deleted, "whole": fields is None})
