"""Memory pools over HTTP (one class per operation); workflow pools are in episodic/api/workflow_pools.py.

Both are JSON documents written with optimistic concurrency: a write that names the `version` it read
lands only over that version, else 409 with the current version in `extra`; a write that names none
is retried by the service over concurrent writes, so nothing is lost. A memory pool the calling agent
may not use at the level an operation needs answers 404, like a missing one: its existence never
leaks. A workflow run's pools are shared by all of the owner's agents.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.services import memory_require_enabled
from episodic.api.common import AgentAccessControl, ListedChoiceField, check_agents, one_of, serialized
from episodic.models import MemoryPool
from episodic.selectors import pools as selectors
from episodic.services import pools as services
from memory_site.api.authentication import HasApiKey, calling_agent, request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput, list_response
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope

MESSAGE_POOL_NOT_FOUND = "Memory pool not found."
MESSAGE_POOL_EXISTS = services.MESSAGE_POOL_EXISTS
MESSAGE_STALE_VERSION = services.MESSAGE_STALE_VERSION
MESSAGE_SLASH_IN_POOL_ID = "Pool ids may not contain '/'."
MESSAGE_EXPIRY_TWICE = "Give expires_at or ttl_seconds, not both."
MESSAGE_EXPIRY_PAST = "Must be in the future."

MAX_ID_LENGTH = 200  # the columns' length
MAX_TTL_SECONDS = 365 * 86400

WRITE_ERRORS = {
    **ERROR_RESPONSES,
    409: OpenApiResponse(ErrorEnvelope, description="Stale version (`extra.current_version`)"),
}
_CREATE_ERRORS = {**ERROR_RESPONSES, 409: OpenApiResponse(ErrorEnvelope, description="The pool id is taken")}


# --- shapes -------------------------------------------------------------------------------------------


def _version_field() -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=1,
        required=False,
        allow_null=True,
        help_text="The version you read: the write lands only over it, else 409. Omit it and the write "
        "lands over whatever is stored, concurrent writes included.",
    )


class AccessControl(AgentAccessControl):
    public_read = serializers.BooleanField(
        default=False, help_text="Every agent of the account may read (not for agent_private pools)."
    )


class PoolOutput(serializers.ModelSerializer):
    access_control = AccessControl()
    created_by = serializers.UUIDField(source="created_by_id", allow_null=True, help_text="The creating agent.")
    # Plain strings here: the same enums in two components would collide in the schema (see ListedChoiceField).
    pool_type = StrictCharField(help_text=one_of(MemoryPool.Type.values))
    scope = StrictCharField(help_text=one_of(MemoryPool.Scope.values))

    class Meta:
        model = MemoryPool
        fields = [
            "pool_id",
            "pool_type",
            "scope",
            "task_id",
            "data",
            "version",
            "access_control",
            "created_by",
            "expires_at",
            "created_at",
            "updated_at",
        ]


class StatsOutput(serializers.Serializer):
    entries = serializers.IntegerField(help_text="Top-level keys of the document.")
    size_bytes = serializers.IntegerField(help_text="The document as compact JSON.")
    reads = serializers.IntegerField()
    writes = serializers.IntegerField()
    version = serializers.IntegerField()
    last_accessed_at = serializers.DateTimeField(allow_null=True)


class WriteInput(serializers.Serializer):
    # "data" shadows Serializer.data for the type checker only: the API's field name wins.
    data = serializers.DictField(  # type: ignore[assignment]
        help_text="The new document (a JSON object); replaces the stored one."
    )
    version = _version_field()


class MergeInput(serializers.Serializer):
    data = serializers.DictField(  # type: ignore[assignment]
        help_text="A JSON merge patch (RFC 7396): objects merge key by key, null deletes a key."
    )
    version = _version_field()


# --- memory pools -------------------------------------------------------------------------------------


class PoolApi(APIView):
    """Base of the pool operations: the services' domain errors become API errors here, in one place."""

    permission_classes = [HasApiKey]
    not_found_message: ClassVar[str] = MESSAGE_POOL_NOT_FOUND

    def pool(self, pool_id: str, level: selectors.Level) -> MemoryPool:
        pool = selectors.pool_get(agent=calling_agent(self.request), pool_id=pool_id, level=level)
        if pool is None:
            raise NotFound(MESSAGE_POOL_NOT_FOUND)
        return pool


class PoolListApi(PoolApi):
    class OutputSerializer(ListOutput):
        results = PoolOutput(many=True)

    @extend_schema(
        operation_id="pools_list",
        summary="The memory pools the calling agent may read",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return list_response(request, serialized(PoolOutput, selectors.pool_list(agent=calling_agent(request))))


class PoolCreateApi(PoolApi):
    class InputSerializer(serializers.Serializer):
        pool_id = StrictCharField(max_length=MAX_ID_LENGTH, trim_whitespace=False)
        pool_type = serializers.ChoiceField(choices=MemoryPool.Type.choices, default=MemoryPool.Type.SHARED)
        scope = ListedChoiceField(
            choices=MemoryPool.Scope.choices,
            default=MemoryPool.Scope.ACCOUNT,
            help_text="account and global pools are open to all of the account's agents "
            "unless access_control names writers.",
        )
        data = serializers.DictField(  # type: ignore[assignment]
            default=dict, help_text="The initial document (a JSON object)."
        )
        access_control = AccessControl(required=False)
        task_id = StrictCharField(max_length=MAX_ID_LENGTH, required=False, allow_blank=True, default="")
        expires_at = serializers.DateTimeField(required=False)
        ttl_seconds = serializers.IntegerField(min_value=60, max_value=MAX_TTL_SECONDS, required=False)

        def validate_pool_id(self, value: str) -> str:
            if "/" in value:
                raise serializers.ValidationError(MESSAGE_SLASH_IN_POOL_ID)
            return value

        def validate_expires_at(self, value: Any) -> Any:
            if value <= timezone.now():
                raise serializers.ValidationError(MESSAGE_EXPIRY_PAST)
            return value

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if "expires_at" in attrs and "ttl_seconds" in attrs:
                raise serializers.ValidationError({"ttl_seconds": [MESSAGE_EXPIRY_TWICE]})
            return attrs

    @extend_schema(
        operation_id="pools_create",
        summary="Create a memory pool (the calling agent is its creator)",
        request=InputSerializer,
        responses={201: PoolOutput, **_CREATE_ERRORS},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        acl = fields.pop("access_control", None)
        if acl is not None:
            owner = request_owner(request)
            acl = {
                "read": check_agents(owner, "access_control.read", acl["read"]),
                "write": check_agents(owner, "access_control.write", acl["write"]),
                "public_read": acl["public_read"],
            }
        ttl_seconds = fields.pop("ttl_seconds", None)
        if ttl_seconds is not None:
            fields["expires_at"] = timezone.now() + timedelta(seconds=ttl_seconds)
        memory_require_enabled(owner=request_owner(request))  # paused memory keeps nothing new (409)
        pool = services.pool_create(agent=calling_agent(request), access_control=acl, **fields)
        return Response(PoolOutput(pool).data, status=status.HTTP_201_CREATED)


class PoolReadApi(PoolApi):
    @extend_schema(
        operation_id="pools_read",
        summary="Read a memory pool (counts a read)",
        responses={200: PoolOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, pool_id: str) -> Response:
        pool = services.pool_read(pool=self.pool(pool_id, "read"))
        if pool is None:
            raise NotFound(MESSAGE_POOL_NOT_FOUND)
        return Response(PoolOutput(pool).data)


class PoolWriteApi(PoolApi):
    @extend_schema(
        operation_id="pools_write",
        summary="Replace a memory pool's document (needs write access)",
        request=WriteInput,
        responses={200: PoolOutput, **WRITE_ERRORS},
    )
    def put(self, request: Request, pool_id: str) -> Response:
        data = WriteInput(data=request.data)
        data.is_valid(raise_exception=True)
        pool = self.pool(pool_id, "write")
        memory_require_enabled(owner=pool.owner)  # paused memory keeps nothing new (409)
        pool = services.pool_write(
            pool=pool,
            data=data.validated_data["data"],
            expected_version=data.validated_data.get("version"),
        )
        return Response(PoolOutput(pool).data)


class PoolMergeApi(PoolApi):
    @extend_schema(
        operation_id="pools_merge",
        summary="Merge a patch into a memory pool (needs write access)",
        request=MergeInput,
        responses={200: PoolOutput, **WRITE_ERRORS},
    )
    def patch(self, request: Request, pool_id: str) -> Response:
        data = MergeInput(data=request.data)
        data.is_valid(raise_exception=True)
        pool = self.pool(pool_id, "write")
        memory_require_enabled(owner=pool.owner)  # paused memory keeps nothing new (409)
        pool = services.pool_merge(
            pool=pool,
            patch=data.validated_data["data"],
            expected_version=data.validated_data.get("version"),
        )
        return Response(PoolOutput(pool).data)


class PoolDeleteApi(PoolApi):
    @extend_schema(
        operation_id="pools_delete",
        summary="Delete a memory pool (needs write access)",
        responses={204: None, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, pool_id: str) -> Response:
        services.pool_delete(pool=self.pool(pool_id, "write"))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PoolGrantApi(PoolApi):
    class InputSerializer(serializers.Serializer):
        agent_id = serializers.UUIDField(help_text="One of the account's agents.")
        level = serializers.ChoiceField(choices=["read", "write"], help_text="write implies read.")

    @extend_schema(
        operation_id="pools_grant",
        summary="Let an agent read or write a memory pool (needs write access)",
        request=InputSerializer,
        responses={200: PoolOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, pool_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        pool = self.pool(pool_id, "write")
        [agent_id] = check_agents(request_owner(request), "agent_id", [data.validated_data["agent_id"]])
        pool = services.pool_grant(pool=pool, agent_id=agent_id, level=data.validated_data["level"])
        return Response(PoolOutput(pool).data)


class PoolRevokeApi(PoolApi):
    class InputSerializer(serializers.Serializer):
        agent_id = serializers.UUIDField()

    @extend_schema(
        operation_id="pools_revoke",
        summary="Take back an agent's grants on a memory pool (needs write access)",
        description="The creating agent keeps its access; so does everyone on an open pool.",
        request=InputSerializer,
        responses={200: PoolOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, pool_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # No agent check: the grant of an agent deleted since must still be revocable.
        pool = services.pool_revoke(pool=self.pool(pool_id, "write"), agent_id=str(data.validated_data["agent_id"]))
        return Response(PoolOutput(pool).data)


class PoolStatsApi(PoolApi):
    @extend_schema(
        operation_id="pools_stats",
        summary="A memory pool's statistics (not counted as a read)",
        responses={200: StatsOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, pool_id: str) -> Response:
        return Response(StatsOutput(selectors.statistics(self.pool(pool_id, "read"))).data)
