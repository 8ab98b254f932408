"""Short-term memory over HTTP (one class per operation): key -> JSON value per agent and session, with
a TTL. The agent is the API key's; an agent never sees another agent's entries, not even a teammate's,
and an expired or foreign entry answers 404 like a missing one."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.services import memory_require_enabled
from episodic.api.common import serialized
from episodic.models import ShortTermMemory
from episodic.selectors import short_term as selectors
from episodic.services import short_term as services
from memory_site.api.authentication import HasApiKey, calling_agent
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput, list_response
from memory_site.api.schema import ERROR_RESPONSES

MESSAGE_ENTRY_NOT_FOUND = "Short-term entry not found."
MAX_ID_LENGTH = 256  # the columns' length
MIN_TTL_SECONDS = 60
MAX_TTL_SECONDS = 30 * 86400


def _ttl_field() -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=MIN_TTL_SECONDS,
        max_value=MAX_TTL_SECONDS,
        required=False,
        help_text="Seconds the entry lives from now (default: MAINTENANCE_SHORT_TERM_TTL).",
    )


class Address(serializers.Serializer):
    """The path's session id and key, checked like body fields (the URL itself bounds neither)."""

    session_id = StrictCharField(max_length=MAX_ID_LENGTH, trim_whitespace=False)
    key = StrictCharField(max_length=MAX_ID_LENGTH, trim_whitespace=False, required=False)

    @classmethod
    def checked(cls, session_id: str, key: str | None = None) -> dict[str, Any]:
        address = cls(data={"session_id": session_id} if key is None else {"session_id": session_id, "key": key})
        address.is_valid(raise_exception=True)
        return dict(address.validated_data)


class ShortTermOutput(serializers.ModelSerializer):
    value = serializers.JSONField()
    # A plain string: the enum stays in the write's input alone, or the schema's enum components collide.
    memory_type = StrictCharField(help_text=f"One of: {', '.join(ShortTermMemory.Type.values)}.")

    class Meta:
        model = ShortTermMemory
        fields = [
            "session_id",
            "key",
            "value",
            "memory_type",
            "ttl_seconds",
            "expires_at",
            "access_count",
            "last_accessed_at",
            "created_at",
            "updated_at",
        ]


class ShortTermListApi(APIView):
    permission_classes = [HasApiKey]

    class InputSerializer(serializers.Serializer):
        session_id = StrictCharField(max_length=MAX_ID_LENGTH, trim_whitespace=False, required=False)

    class OutputSerializer(ListOutput):
        results = ShortTermOutput(many=True)

    @extend_schema(
        operation_id="short_term_list",
        summary="The calling agent's live short-term entries",
        description="Ordered by session and key. Listing does not count as reading the entries.",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        entries = selectors.short_term_list(
            agent=calling_agent(request), session_id=data.validated_data.get("session_id")
        )
        return list_response(request, serialized(ShortTermOutput, entries))


class ShortTermWriteApi(APIView):
    permission_classes = [HasApiKey]

    class InputSerializer(serializers.Serializer):
        value = serializers.JSONField(help_text="Any JSON value but null.")
        memory_type = serializers.ChoiceField(
            choices=ShortTermMemory.Type.choices, default=ShortTermMemory.Type.TASK_CONTEXT
        )
        ttl_seconds = _ttl_field()

    @extend_schema(
        operation_id="short_term_write",
        summary="Write a short-term entry (creates or replaces it)",
        description="A rewrite keeps the access count and restarts the TTL.",
        request=InputSerializer,
        responses={200: ShortTermOutput, **ERROR_RESPONSES},
    )
    def put(self, request: Request, session_id: str, key: str) -> Response:
        address = Address.checked(session_id, key)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        agent = calling_agent(request)
        memory_require_enabled(owner=agent.owner)  # paused memory keeps nothing new (409)
        entry = services.short_term_write(agent=agent, **address, **data.validated_data)
        return Response(ShortTermOutput(entry).data)


class ShortTermReadApi(APIView):
    permission_classes = [HasApiKey]

    @extend_schema(
        operation_id="short_term_read",
        summary="Read a short-term entry (counts an access)",
        responses={200: ShortTermOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, session_id: str, key: str) -> Response:
        entry = services.short_term_read(agent=calling_agent(request), **Address.checked(session_id, key))
        if entry is None:
            raise NotFound(MESSAGE_ENTRY_NOT_FOUND)
        return Response(ShortTermOutput(entry).data)


class ShortTermDeleteApi(APIView):
    permission_classes = [HasApiKey]

    @extend_schema(
        operation_id="short_term_delete", summary="Forget a short-term entry", responses={204: None, **ERROR_RESPONSES}
    )
    def delete(self, request: Request, session_id: str, key: str) -> Response:
        if not services.short_term_delete(agent=calling_agent(request), **Address.checked(session_id, key)):
            raise NotFound(MESSAGE_ENTRY_NOT_FOUND)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ShortTermRefreshApi(APIView):
    permission_classes = [HasApiKey]

    class InputSerializer(serializers.Serializer):
        ttl_seconds = _ttl_field()

    @extend_schema(
        operation_id="short_term_refresh",
        summary="Restart a short-term entry's TTL",
        description="The entry lives `ttl_seconds` (the new one given, else its own) from now.",
        request=InputSerializer,
        responses={200: ShortTermOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, session_id: str, key: str) -> Response:
        address = Address.checked(session_id, key)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = services.short_term_refresh(agent=calling_agent(request), **address, **data.validated_data)
        if entry is None:
            raise NotFound(MESSAGE_ENTRY_NOT_FOUND)
        return Response(ShortTermOutput(entry).data)


class ShortTermSessionDeleteApi(APIView):
    permission_classes = [HasApiKey]

    class OutputSerializer(serializers.Serializer):
        deleted = serializers.IntegerField(help_text="How many entries were forgotten.")

    @extend_schema(
        operation_id="short_term_session_delete",
        summary="Forget all of a session's short-term entries",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, session_id: str) -> Response:
        deleted = services.short_term_delete(agent=calling_agent(request), **Address.checked(session_id))
        return Response({"deleted": deleted})
