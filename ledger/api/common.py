"""What the ledger app's API modules share: the conversation-scoped base view, field-name checks, the
any-JSON value field and the answer of a write."""

from __future__ import annotations

import unicodedata
from typing import Any, Final

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.views import APIView

from ledger import services
from memory_site.api.authentication import request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope
from memory_site.lib.ids import MESSAGE_BAD_CONVERSATION_ID, is_valid_conversation_id

MESSAGE_BAD_FIELD_NAME: Final = "Field names are 1 to 256 characters with no control characters."

ERRORS: Final = {
    **ERROR_RESPONSES,
    413: OpenApiResponse(ErrorEnvelope, description="Over the 64 KB limit; nothing written"),
}


class AnyValue(serializers.JSONField):
    """Any JSON value: object, array, string, number, boolean or null."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)


def is_valid_field_name(name: str) -> bool:
    return 0 < len(name) <= services.MAX_FIELD_NAME_LENGTH and not any(
        unicodedata.category(char) == "Cc" for char in name
    )


class FieldNameField(StrictCharField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=services.MAX_FIELD_NAME_LENGTH, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        if not is_valid_field_name(value):
            raise serializers.ValidationError(MESSAGE_BAD_FIELD_NAME)
        return value


class MessagesField(serializers.ListField):
    """A message list, at most WORKING_MEMORY_MAX_MESSAGES long (read when validating, not at import)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.DictField(child=AnyValue()), **kwargs)

    def to_internal_value(self, data: Any) -> list[Any]:
        if isinstance(data, list) and len(data) > settings.WORKING_MEMORY_MAX_MESSAGES:
            raise serializers.ValidationError(f"At most {settings.WORKING_MEMORY_MAX_MESSAGES} messages.")
        return list(super().to_internal_value(data))


class WorkingMemoryApi(APIView):
    """Base of the conversation-scoped operations: the owner and a validated conversation id."""

    def conversation(self, conversation_id: str) -> tuple[int, str]:
        if not is_valid_conversation_id(conversation_id):
            raise ValidationError({"conversation_id": [MESSAGE_BAD_CONVERSATION_ID]})
        return request_owner(self.request).pk, conversation_id

    def name(self, field: str, value: str) -> str:
        if not is_valid_field_name(value):
            raise ValidationError({field: [MESSAGE_BAD_FIELD_NAME]})
        return value


class WriteOutput(serializers.Serializer):
    size_bytes = serializers.IntegerField(help_text="Size of the whole working memory after the write.")
    ttl_seconds = serializers.IntegerField()
