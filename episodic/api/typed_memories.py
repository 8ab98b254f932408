"""Typed memories over HTTP (one class per operation): create, query across types, a session's
timeline, an entity's facts, read, forget. Every read counts an access (episodic.services.typed_memories).
The reference service's paths (the typed-memory reference) are in episodic/api/compat.py."""

from __future__ import annotations

import uuid
from typing import ClassVar

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors as account_selectors
from episodic.api.common import keyed_list_response, serialized
from episodic.models import TypedMemory
from episodic.selectors import typed_memories as selectors
from episodic.services import typed_memories as services
from memory_site.api.authentication import HasApiKey, calling_agent, request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput, list_response
from memory_site.api.schema import ERROR_RESPONSES
from palace.api.forget import ReceiptEnvelope, forget_and_answer

MESSAGE_MEMORY_NOT_FOUND = "Memory not found."


# --- shapes -------------------------------------------------------------------------------------------


class TypedMemoryOutput(serializers.ModelSerializer):
    agent_id = serializers.UUIDField()

    class Meta:
        model = TypedMemory
        fields = [
            "id",
            "memory_type",
            "content",
            "agent_id",
            "scope",
            "shared_with",
            "session_id",
            "sequence_number",
            "entity_id",
            "steps",
            "trigger_conditions",
            "error_pattern",
            "severity",
            "source_trajectory_id",
            "metadata",
            "access_count",
            "last_accessed_at",
            "created_at",
        ]


class TypedHitOutput(serializers.Serializer):
    memory = TypedMemoryOutput(source="item")
    score = serializers.FloatField()
    similarity = serializers.FloatField(allow_null=True)
    keyword = serializers.FloatField()


class TypedQueryInput(serializers.Serializer):
    query = StrictCharField(max_length=2000)
    memory_types = serializers.ListField(child=serializers.ChoiceField(choices=TypedMemory.Type.values), required=False)
    top_k = serializers.IntegerField(min_value=1, max_value=50, default=10)


class TypedMemoryApi(APIView):
    permission_classes = [HasApiKey]
    not_found_message: ClassVar[str] = MESSAGE_MEMORY_NOT_FOUND


# --- operations ---------------------------------------------------------------------------------------


class TypedMemoryCreateApi(TypedMemoryApi):
    class InputSerializer(serializers.Serializer):
        content = StrictCharField(max_length=20_000)
        scope = serializers.ChoiceField(choices=TypedMemory.Scope.choices, required=False)
        shared_with = serializers.ListField(child=serializers.UUIDField(), required=False, max_length=100)
        session_id = StrictCharField(max_length=64, required=False)
        sequence_number = serializers.IntegerField(required=False, min_value=0)
        entity_id = StrictCharField(max_length=128, required=False)
        steps = serializers.ListField(child=StrictCharField(max_length=2000), required=False, max_length=100)
        trigger_conditions = serializers.ListField(
            child=StrictCharField(max_length=2000), required=False, max_length=100
        )
        error_pattern = StrictCharField(max_length=200, required=False)
        severity = serializers.ChoiceField(choices=TypedMemory.Severity.choices, required=False)
        source_trajectory_id = StrictCharField(max_length=200, required=False)
        metadata = serializers.DictField(required=False)

    @extend_schema(
        summary="Create a typed memory",
        request=InputSerializer,
        parameters=[OpenApiParameter("memory_type", str, OpenApiParameter.PATH, enum=TypedMemory.Type.values)],
        responses={201: TypedMemoryOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, memory_type: str) -> Response:
        if memory_type not in TypedMemory.Type.values:
            known = ", ".join(TypedMemory.Type.values)
            raise ValidationError({"memory_type": [f"Unknown memory type {memory_type!r}; one of {known}."]})
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        owner = request_owner(request)
        shared_with = [str(agent_id) for agent_id in fields.pop("shared_with", [])]
        for agent_id in shared_with:
            if account_selectors.agent_get(owner=owner, agent_id=agent_id) is None:
                raise ValidationError({"shared_with": [f"Unknown agent {agent_id}."]})
        memory = services.typed_memory_create(
            owner=owner, agent=calling_agent(request), memory_type=memory_type, shared_with=shared_with, **fields
        )
        return Response(TypedMemoryOutput(memory).data, status=status.HTTP_201_CREATED)


class TypedMemoryQueryApi(TypedMemoryApi):
    class OutputSerializer(ListOutput):
        results = TypedHitOutput(many=True)

    @extend_schema(
        summary="Query typed memories across chosen types",
        request=TypedQueryInput,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = TypedQueryInput(data=request.data)
        data.is_valid(raise_exception=True)
        hits = services.typed_memory_query(agent=calling_agent(request), **data.validated_data)
        return list_response(request, serialized(TypedHitOutput, hits))


class TypedSessionTimelineApi(TypedMemoryApi):
    class OutputSerializer(ListOutput):
        session_id = StrictCharField()
        results = TypedMemoryOutput(many=True)

    @extend_schema(
        summary="A session's episodic memories, in sequence order",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, session_id: str) -> Response:
        memories = services.typed_memory_session_timeline(agent=calling_agent(request), session_id=session_id)
        return keyed_list_response(request, serialized(TypedMemoryOutput, memories), session_id=session_id)


class TypedEntityFactsApi(TypedMemoryApi):
    class OutputSerializer(ListOutput):
        entity_id = StrictCharField()
        results = TypedMemoryOutput(many=True)

    @extend_schema(summary="All semantic memories of an entity", responses={200: OutputSerializer, **ERROR_RESPONSES})
    def get(self, request: Request, entity_id: str) -> Response:
        memories = services.typed_memory_entity_facts(agent=calling_agent(request), entity_id=entity_id)
        return keyed_list_response(request, serialized(TypedMemoryOutput, memories), entity_id=entity_id)


class TypedMemoryGetApi(TypedMemoryApi):
    @extend_schema(summary="One typed memory", responses={200: TypedMemoryOutput, **ERROR_RESPONSES})
    def get(self, request: Request, memory_id: uuid.UUID) -> Response:
        memory = services.typed_memory_read(agent=calling_agent(request), memory_id=memory_id)
        if memory is None:
            raise NotFound(MESSAGE_MEMORY_NOT_FOUND)
        return Response(TypedMemoryOutput(memory).data)


class TypedMemoryDeleteApi(TypedMemoryApi):
    @extend_schema(
        operation_id="memories_delete",
        summary="Forget a typed memory (one the calling agent can see)",
        responses={200: ReceiptEnvelope, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, memory_id: uuid.UUID) -> Response:
        memory = selectors.typed_get(agent=calling_agent(request), memory_id=memory_id)
        if memory is None:
            raise NotFound(MESSAGE_MEMORY_NOT_FOUND)
        return forget_and_answer(request, "typed_memory", [memory.pk])
