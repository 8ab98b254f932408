"""Sharing a value between agents of one owner, and saving a conversation's working memory to
PostgreSQL and putting it back."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.services import memory_require_enabled
from ledger import selectors, services
from ledger.api.common import ERRORS, AnyValue, FieldNameField, WorkingMemoryApi
from memory_site.api.authentication import HasApiKey, calling_agent, owned_agent, request_agent, request_owner
from memory_site.api.schema import ErrorEnvelope

# --- sharing between the owner's agents ---------------------------------------------------------------


class SharedMemoryShareApi(WorkingMemoryApi):
    permission_classes = [HasApiKey]

    class InputSerializer(serializers.Serializer):
        target_agent_id = serializers.UUIDField()
        key = FieldNameField()
        value = AnyValue()

    class OutputSerializer(serializers.Serializer):
        source_agent_id = serializers.UUIDField()
        target_agent_id = serializers.UUIDField()
        key = serializers.CharField()
        ttl_seconds = serializers.IntegerField()

    @extend_schema(
        summary="Share a value with another agent of the same owner",
        request=InputSerializer,
        responses={201: OutputSerializer, **ERRORS},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        source = calling_agent(request)
        target = owned_agent(request, data.validated_data["target_agent_id"])
        key = data.validated_data["key"]
        result = services.working_memory_share(
            owner_id=source.owner_id, source=source, target=target, key=key, value=data.validated_data["value"]
        )
        body = {
            "source_agent_id": source.id,
            "target_agent_id": target.id,
            "key": key,
            "ttl_seconds": result.ttl_seconds,
        }
        return Response(self.OutputSerializer(body).data, status=status.HTTP_201_CREATED)


class SharedMemoryRetrieveApi(WorkingMemoryApi):
    permission_classes = [HasApiKey]

    class OutputSerializer(serializers.Serializer):
        source_agent_id = serializers.UUIDField()
        key = serializers.CharField()
        value = AnyValue()

    @extend_schema(
        summary="Read what another agent of the same owner shared with this agent",
        responses={200: OutputSerializer, **ERRORS},
    )
    def get(self, request: Request, source_agent_id: uuid.UUID, key: str) -> Response:
        target = calling_agent(request)
        source = owned_agent(request, source_agent_id)
        value = selectors.working_memory_retrieve_shared(
            owner_id=target.owner_id, source=source, target=target, key=self.name("key", key)
        )
        return Response({"source_agent_id": str(source.id), "key": key, "value": value})


# --- persistence ------------------------------------------------------------------------------------


class WorkingMemoryPersistApi(WorkingMemoryApi):
    class OutputSerializer(serializers.Serializer):
        fields = serializers.IntegerField()  # type: ignore[assignment]
        size_bytes = serializers.IntegerField()
        ttl_seconds = serializers.IntegerField()
        persisted_at = serializers.DateTimeField()

    @extend_schema(
        summary="Save this conversation's working memory to PostgreSQL (replaces an earlier save)",
        request=None,
        responses={
            200: OutputSerializer,
            **ERRORS,
            409: OpenApiResponse(
                ErrorEnvelope, description="No working memory to persist; the saved copy is unchanged"
            ),
        },
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        _, conversation_id = self.conversation(conversation_id)
        memory_require_enabled(owner=request_owner(request))  # a snapshot is kept: not while paused (409)
        snapshot = services.working_memory_persist(
            owner=request_owner(request), conversation_id=conversation_id, agent=request_agent(request)
        )
        return Response(
            {
                "fields": len(snapshot.fields),
                "size_bytes": snapshot.size_bytes,
                "ttl_seconds": snapshot.ttl_seconds,
                "persisted_at": snapshot.persisted_at,
            }
        )


class WorkingMemoryLoadApi(WorkingMemoryApi):
    @extend_schema(
        summary="Put the saved working memory back in Redis, with a fresh TTL",
        request=None,
        responses={200: OpenApiResponse(description="`{field: value}` as restored"), **ERRORS},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        _, conversation_id = self.conversation(conversation_id)
        return Response(services.working_memory_load(owner=request_owner(request), conversation_id=conversation_id))
