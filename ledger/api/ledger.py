"""The injection ledger: which skills and context blocks a conversation has been given already."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from ledger import selectors, services
from ledger.api.common import ERRORS, FieldNameField, WorkingMemoryApi
from memory_site.api.fields import StrictCharField


class LedgerApi(WorkingMemoryApi):
    """Base of the ledger operations (the same conversation checks as working memory)."""


class LedgerItemInput(serializers.Serializer):
    item = FieldNameField(help_text="A skill or context block id.")


class LedgerGetApi(LedgerApi):
    @extend_schema(
        summary="Everything injected into a conversation: `{item: value}`",
        responses={200: OpenApiResponse(description="`{item: value}`"), **ERRORS},
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        return Response(selectors.ledger_get_all(owner_id=owner_id, conversation_id=conversation_id))


class LedgerCheckApi(LedgerApi):
    class InputSerializer(LedgerItemInput):
        pass

    class OutputSerializer(serializers.Serializer):
        item = serializers.CharField()
        injected = serializers.BooleanField()

    @extend_schema(
        summary="Has this item been injected?",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERRORS},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = data.validated_data["item"]
        injected = selectors.ledger_check(owner_id=owner_id, conversation_id=conversation_id, item=item)
        return Response({"item": item, "injected": injected})


class LedgerMarkApi(LedgerApi):
    class InputSerializer(LedgerItemInput):
        value = StrictCharField(default="injected", max_length=1024, trim_whitespace=False)

    class OutputSerializer(serializers.Serializer):
        item = serializers.CharField()
        value = serializers.CharField()
        newly_marked = serializers.BooleanField(help_text="False when it was marked already.")

    @extend_schema(
        summary="Mark an item injected (idempotent)",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERRORS},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item, value = data.validated_data["item"], data.validated_data["value"]
        new = services.ledger_mark(owner_id=owner_id, conversation_id=conversation_id, item=item, value=value)
        return Response({"item": item, "value": value, "newly_marked": new})


class LedgerEvictApi(LedgerApi):
    class InputSerializer(LedgerItemInput):
        pass

    class OutputSerializer(serializers.Serializer):
        item = serializers.CharField()
        evicted = serializers.BooleanField()

    @extend_schema(
        summary="Remove an item, allowing its re-injection",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERRORS},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = data.validated_data["item"]
        evicted = services.ledger_evict(owner_id=owner_id, conversation_id=conversation_id, item=item)
        return Response({"item": item, "evicted": evicted})
