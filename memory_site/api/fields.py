"""Serializer fields shared by the apps' APIs."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from memory_site.lib.ids import MESSAGE_BAD_CONVERSATION_ID, is_valid_conversation_id


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would turn 5 into "5"."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            raise serializers.ValidationError("Must be a string.")
        return str(super().to_internal_value(data))


class ConversationIdField(StrictCharField):
    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 256)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        if not is_valid_conversation_id(value):
            raise serializers.ValidationError(MESSAGE_BAD_CONVERSATION_ID)
        return value


class NoUnknownFields(serializers.Serializer):
    """Refuses keys it does not know: a misspelt setting or option (`topk` for `top_k`) must not be a silent
    no-op."""

    def to_internal_value(self, data: Any) -> Any:
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, dict) else []
        errors: dict[str, Any] = {key: ["Unknown field."] for key in unknown}
        try:
            value = super().to_internal_value({k: v for k, v in data.items() if k not in unknown} if unknown else data)
        except serializers.ValidationError as exc:  # every field's error in one answer, the unknown ones too
            if not isinstance(exc.detail, dict):
                raise
            errors.update(exc.detail)
        if errors:
            raise serializers.ValidationError(errors)
        return value
