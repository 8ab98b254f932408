"""Persistent contexts over HTTP (one class per operation): the contexts, their grants, snapshots and
the access log (their entries are in episodic/api/context_entries.py). The rules live in
episodic.selectors.contexts (who may read and write) and episodic.services.contexts.

A context the calling agent may not read answers 404, like a missing one: its existence never leaks.
One it may read but not write answers 403 to a write, with MESSAGE_READ_ONLY. Every read of a context
or its entries (the context, the entry list, one entry, an entry's history, a search) is logged in
the context's access log; listing contexts, snapshots and the log itself is not.
"""

from __future__ import annotations

import uuid
from typing import ClassVar

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from episodic.api.common import AgentAccessControl, ListedChoiceField, check_agents, one_of, serialized
from episodic.models import ContextAccessLog, ContextEntry, ContextSnapshot, PersistentContext
from episodic.selectors import contexts as selectors
from episodic.services import contexts as services
from episodic.services import snapshots
from memory_site.api.authentication import HasApiKey, calling_agent, request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput, list_response, offset_field
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope

MESSAGE_CONTEXT_NOT_FOUND = "Context not found."
MESSAGE_ENTRY_NOT_FOUND = "Entry not found."
MESSAGE_SNAPSHOT_NOT_FOUND = "Snapshot not found."
MESSAGE_CONTEXT_EXISTS = services.MESSAGE_CONTEXT_EXISTS
MESSAGE_READ_ONLY = "This agent may read this context but not write to it."
MESSAGE_RESERVED_NAME = "Names starting with 'agent-memory:' are reserved for the agents' own long-term memory."

MAX_NAME_LENGTH = 200  # the column's length
MAX_CONTENT_LENGTH = 20_000
RESERVED_NAME_PREFIX = "agent-memory:"  # services.agent_memory_context's names

_CREATE_ERRORS = {**ERROR_RESPONSES, 409: OpenApiResponse(ErrorEnvelope, description="The name is taken")}


# --- shapes -------------------------------------------------------------------------------------------


class ContextAccessControl(AgentAccessControl):
    pass


class ContextOutput(serializers.ModelSerializer):
    agent_id = serializers.UUIDField(allow_null=True, help_text="The creating agent.")
    # Plain strings in the outputs: typed memories have enums of these names too, and the same name on
    # two choice sets, each in several components, cannot be named apart in the schema.
    scope = StrictCharField(help_text=one_of(PersistentContext.Scope.values))
    access_control = ContextAccessControl()

    class Meta:
        model = PersistentContext
        fields = [
            "id",
            "name",
            "context_type",
            "scope",
            "description",
            "access_control",
            "agent_id",
            "archived_at",
            "created_at",
            "updated_at",
        ]


class ContextDetailOutput(ContextOutput):
    entry_count = serializers.SerializerMethodField(help_text="Live entries: current, not archived, not merged.")

    class Meta(ContextOutput.Meta):
        fields = [*ContextOutput.Meta.fields, "entry_count"]

    def get_entry_count(self, obj: PersistentContext) -> int:
        return selectors.entry_count(context=obj)


class ContextSnapshotOutput(serializers.ModelSerializer):
    context_id = serializers.UUIDField()
    agent_id = serializers.UUIDField(allow_null=True, help_text="The agent that took it.")

    class Meta:
        model = ContextSnapshot
        fields = ["id", "context_id", "agent_id", "label", "entry_count", "created_at"]


class AccessLogRecordOutput(serializers.ModelSerializer):
    agent_id = serializers.UUIDField(allow_null=True)
    detail = serializers.DictField()

    class Meta:
        model = ContextAccessLog
        fields = ["id", "agent_id", "action", "detail", "created_at"]


# --- the base -----------------------------------------------------------------------------------------


class PersistentContextApi(APIView):
    """Base of the context operations: access checks and the services' domain errors, in one place."""

    permission_classes = [HasApiKey]
    not_found_message: ClassVar[str] = MESSAGE_CONTEXT_NOT_FOUND

    def context(self, context_id: uuid.UUID, level: selectors.Level = "read") -> PersistentContext:
        agent = calling_agent(self.request)
        context = selectors.context_get(agent=agent, context_id=context_id)
        if context is None:
            raise NotFound(MESSAGE_CONTEXT_NOT_FOUND)
        if level == "write" and not selectors.context_accessible_by(context, agent, "write"):
            raise PermissionDenied(MESSAGE_READ_ONLY)
        return context

    def entry(self, context: PersistentContext, entry_id: uuid.UUID) -> ContextEntry:
        """Any version of an entry of `context`, archived and merged ones included."""
        entry = selectors.entry_get(context=context, entry_id=entry_id)
        if entry is None:
            raise NotFound(MESSAGE_ENTRY_NOT_FOUND)
        return entry


# --- contexts -----------------------------------------------------------------------------------------


class ContextListApi(PersistentContextApi):
    class InputSerializer(serializers.Serializer):
        include_archived = serializers.BooleanField(default=False)

    class OutputSerializer(ListOutput):
        results = ContextOutput(many=True)

    @extend_schema(
        operation_id="contexts_list",
        summary="The contexts the calling agent may read",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        found = selectors.context_list(agent=calling_agent(request), **data.validated_data)
        return list_response(request, serialized(ContextOutput, found))


class ContextCreateApi(PersistentContextApi):
    class InputSerializer(serializers.Serializer):
        name = StrictCharField(max_length=MAX_NAME_LENGTH, help_text="Unique among the account's contexts.")
        context_type = serializers.ChoiceField(
            choices=PersistentContext.Type.choices, default=PersistentContext.Type.AGENT_MEMORY
        )
        scope = ListedChoiceField(
            choices=PersistentContext.Scope.choices,
            default=PersistentContext.Scope.AGENT,
            help_text="agent and team contexts are open to the creating agent and the agents in access_control; "
            "account and global ones to every agent of the account (writing too, unless "
            "access_control names writers).",
        )
        description = StrictCharField(max_length=MAX_CONTENT_LENGTH, required=False, allow_blank=True, default="")
        access_control = ContextAccessControl(required=False)

        def validate_name(self, value: str) -> str:
            if value.startswith(RESERVED_NAME_PREFIX):
                raise serializers.ValidationError(MESSAGE_RESERVED_NAME)
            return value

    @extend_schema(
        operation_id="contexts_create",
        summary="Create a context (the calling agent is its creator)",
        request=InputSerializer,
        responses={201: ContextOutput, **_CREATE_ERRORS},
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
            }
        context = services.context_create(agent=calling_agent(request), access_control=acl, **fields)
        return Response(ContextOutput(context).data, status=status.HTTP_201_CREATED)


class ContextReadApi(PersistentContextApi):
    @extend_schema(
        operation_id="contexts_read",
        summary="One context, with its count of live entries (logged as a read)",
        responses={200: ContextDetailOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, context_id: uuid.UUID) -> Response:
        context = services.context_read(agent=calling_agent(request), context=self.context(context_id))
        return Response(ContextDetailOutput(context).data)


class ContextUpdateApi(PersistentContextApi):
    class InputSerializer(serializers.Serializer):
        description = StrictCharField(max_length=MAX_CONTENT_LENGTH, allow_blank=True)

    @extend_schema(
        operation_id="contexts_update",
        summary="Change a context's description (needs write access)",
        request=InputSerializer,
        responses={200: ContextOutput, **ERROR_RESPONSES},
    )
    def patch(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = services.context_update(context=self.context(context_id, "write"), **data.validated_data)
        return Response(ContextOutput(context).data)


class ContextDeleteApi(PersistentContextApi):
    @extend_schema(
        operation_id="contexts_delete",
        summary="Delete a context, its entries, snapshots and log (needs write access)",
        responses={204: None, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, context_id: uuid.UUID) -> Response:
        services.context_delete(context=self.context(context_id, "write"))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ContextArchiveApi(PersistentContextApi):
    @extend_schema(
        operation_id="contexts_archive",
        summary="Archive a context: listed only with include_archived, left out of searches (needs write access)",
        request=None,
        responses={200: ContextOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        context = self.context(context_id, "write")
        context = services.context_set_archived(agent=calling_agent(request), context=context, archived=True)
        return Response(ContextOutput(context).data)


class ContextUnarchiveApi(PersistentContextApi):
    @extend_schema(
        operation_id="contexts_unarchive",
        summary="Bring an archived context back (needs write access)",
        request=None,
        responses={200: ContextOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        context = self.context(context_id, "write")
        context = services.context_set_archived(agent=calling_agent(request), context=context, archived=False)
        return Response(ContextOutput(context).data)


class ContextGrantApi(PersistentContextApi):
    class InputSerializer(serializers.Serializer):
        agent_id = serializers.UUIDField(help_text="One of the account's agents.")
        level = serializers.ChoiceField(choices=["read", "write"], help_text="write implies read.")

    @extend_schema(
        operation_id="contexts_grant",
        summary="Let an agent read or write a context (needs write access)",
        request=InputSerializer,
        responses={200: ContextOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        [agent_id] = check_agents(request_owner(request), "agent_id", [data.validated_data["agent_id"]])
        context = services.context_grant(
            agent=calling_agent(request), context=context, agent_id=agent_id, level=data.validated_data["level"]
        )
        return Response(ContextOutput(context).data)


class ContextRevokeApi(PersistentContextApi):
    class InputSerializer(serializers.Serializer):
        agent_id = serializers.UUIDField()

    @extend_schema(
        operation_id="contexts_revoke",
        summary="Take back an agent's grants on a context (needs write access)",
        description="The creating agent keeps its access; so does every agent on an account or global context.",
        request=InputSerializer,
        responses={200: ContextOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        # No agent check: the grant of an agent deleted since must still be revocable.
        context = services.context_revoke(
            agent=calling_agent(request), context=context, agent_id=str(data.validated_data["agent_id"])
        )
        return Response(ContextOutput(context).data)


class ContextAccessLogApi(PersistentContextApi):
    class InputSerializer(serializers.Serializer):
        limit = serializers.IntegerField(min_value=1, max_value=500, default=50)
        offset = offset_field()

    class OutputSerializer(ListOutput):
        results = AccessLogRecordOutput(many=True)

    @extend_schema(
        operation_id="contexts_access_log",
        summary="A context's access log, newest first (not itself logged)",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        limit, offset = data.validated_data["limit"], data.validated_data["offset"]
        rows, count = selectors.access_log_list(context=self.context(context_id), limit=limit, offset=offset)
        return list_response(request, serialized(AccessLogRecordOutput, rows), count=count, limit=limit, offset=offset)


# --- snapshots ----------------------------------------------------------------------------------------


class ContextSnapshotListApi(PersistentContextApi):
    class OutputSerializer(ListOutput):
        results = ContextSnapshotOutput(many=True)

    @extend_schema(
        operation_id="contexts_snapshots_list",
        summary="A context's snapshots, newest first",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, context_id: uuid.UUID) -> Response:
        found = selectors.snapshot_list(context=self.context(context_id))
        return list_response(request, serialized(ContextSnapshotOutput, found))


class ContextSnapshotCreateApi(PersistentContextApi):
    class InputSerializer(serializers.Serializer):
        # "label" shadows Serializer.label for the type checker only: the API's field name wins.
        label = StrictCharField(  # type: ignore[assignment]
            max_length=200, required=False, allow_blank=True, default=""
        )

    @extend_schema(
        operation_id="contexts_snapshots_create",
        summary="Snapshot every entry of a context (all versions, archived ones too) (needs write access)",
        request=InputSerializer,
        responses={201: ContextSnapshotOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        snapshot = snapshots.snapshot_create(agent=calling_agent(request), context=context, **data.validated_data)
        return Response(ContextSnapshotOutput(snapshot).data, status=status.HTTP_201_CREATED)


class ContextSnapshotRestoreApi(PersistentContextApi):
    not_found_message = MESSAGE_SNAPSHOT_NOT_FOUND

    class OutputSerializer(serializers.Serializer):
        context = ContextDetailOutput()  # type: ignore[assignment]
        before_snapshot_id = serializers.UUIDField(
            help_text="The snapshot of the state the restore replaced: restore it to undo the restore."
        )

    @extend_schema(
        operation_id="contexts_snapshots_restore",
        summary="Bring a context back to exactly a snapshot's state (needs write access)",
        description="Every entry, version and timestamp, and the context's own fields. The state it "
        "replaces is snapshotted first; the restore is logged.",
        request=None,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID, snapshot_id: uuid.UUID) -> Response:
        context = self.context(context_id, "write")
        snapshot = selectors.snapshot_get(context=context, snapshot_id=snapshot_id)
        if snapshot is None:
            raise NotFound(MESSAGE_SNAPSHOT_NOT_FOUND)
        restored = snapshots.snapshot_restore(agent=calling_agent(request), snapshot=snapshot)
        body = {"context": restored.context, "before_snapshot_id": restored.before.pk}
        return Response(self.OutputSerializer(body).data)
