"""Persistent contexts over HTTP (one class per operation): the contexts, their grants, snapshots and
the access log (their entries are in episodic/api/context_entries.py). The rules live in episodic/contexts.py.

A context the calling agent may not read answers 404, like a missing one: its existence never leaks.
One it may read but not write answers 403 to a write, with MESSAGE_READ_ONLY. Every read of a context
or its entries (the context, the entry list, one entry, an entry's history, a search) is logged in
the context's access log; listing contexts, snapshots and the log itself is not.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import ClassVar

from django.urls import URLPattern, path
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from episodic import contexts
from episodic.api.common import ListedChoiceField, check_agents, one_of
from episodic.maintenance import staleness
from episodic.models import ContextAccessLog, ContextEntry, ContextSnapshot, PersistentContext
from memory_site.api.authentication import HasApiKey, calling_agent, request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.routing import by_method
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope

MESSAGE_CONTEXT_NOT_FOUND = "Context not found."
MESSAGE_ENTRY_NOT_FOUND = "Entry not found."
MESSAGE_SNAPSHOT_NOT_FOUND = "Snapshot not found."
MESSAGE_CONTEXT_EXISTS = contexts.MESSAGE_CONTEXT_EXISTS
MESSAGE_READ_ONLY = "This agent may read this context but not write to it."
MESSAGE_ENTRY_NOT_CURRENT = contexts.MESSAGE_ENTRY_NOT_CURRENT
MESSAGE_RESERVED_NAME = "Names starting with 'agent-memory:' are reserved for the agents' own long-term memory."

MAX_NAME_LENGTH = 200  # the column's length
MAX_KEY_LENGTH = 256  # the column's length
MAX_CONTENT_LENGTH = 20_000
MAX_ACL_AGENTS = 1000
RESERVED_NAME_PREFIX = "agent-memory:"  # contexts.agent_memory_context's names

_CREATE_ERRORS = {**ERROR_RESPONSES, 409: OpenApiResponse(ErrorEnvelope, description="The name is taken")}
_EDIT_ERRORS = {
    **ERROR_RESPONSES,
    409: OpenApiResponse(ErrorEnvelope, description="Not the newest version (`extra.current_id`)"),
}


def _at_now() -> dict[str, datetime]:
    """The serializer context of a list of entries: one instant for all their scores."""
    return {"now": timezone.now()}


# --- shapes -------------------------------------------------------------------------------------------


class ContextAccessControl(serializers.Serializer):
    read = serializers.ListField(child=serializers.UUIDField(), max_length=MAX_ACL_AGENTS, default=list,
                                 help_text="Agents that may read.")  # fmt: skip
    write = serializers.ListField(child=serializers.UUIDField(), max_length=MAX_ACL_AGENTS, default=list,
                                  help_text="Agents that may read and write.")  # fmt: skip


class ContextOutput(serializers.ModelSerializer):
    agent_id = serializers.UUIDField(allow_null=True, help_text="The creating agent.")
    # Plain strings in the outputs: typed memories have enums of these names too, and the same name on
    # two choice sets, each in several components, cannot be named apart in the schema.
    scope = StrictCharField(help_text=one_of(PersistentContext.Scope.values))
    access_control = ContextAccessControl()

    class Meta:
        model = PersistentContext
        fields = ["id", "name", "context_type", "scope", "description", "access_control", "agent_id", "archived_at",
                  "created_at", "updated_at"]  # fmt: skip


class ContextDetailOutput(ContextOutput):
    entry_count = serializers.SerializerMethodField(help_text="Live entries: current, not archived, not merged.")

    class Meta(ContextOutput.Meta):
        fields = [*ContextOutput.Meta.fields, "entry_count"]

    def get_entry_count(self, obj: PersistentContext) -> int:
        return contexts.entries_live(ContextEntry.objects.filter(context=obj)).count()


class ContextEntryOutput(serializers.ModelSerializer):
    context_id = serializers.UUIDField()
    agent_id = serializers.UUIDField(allow_null=True, help_text="The agent that wrote this version.")
    previous_version_id = serializers.UUIDField(allow_null=True)
    merged_into_id = serializers.UUIDField(allow_null=True)
    memory_type = StrictCharField(help_text=one_of(ContextEntry.MemoryType.values))  # see ContextOutput.scope
    metadata = serializers.DictField()
    has_embedding = serializers.SerializerMethodField()
    effective_relevance_score = serializers.SerializerMethodField(
        help_text="importance x confidence x (0.5 + 0.5 x recency), recency halving every "
        "MAINTENANCE_STALENESS_HALF_LIFE_DAYS since the entry was last used."
    )
    staleness = serializers.SerializerMethodField(help_text="0 (fresh) to 1; context rot archives entries at 0.9.")

    class Meta:
        model = ContextEntry
        fields = ["id", "context_id", "agent_id", "key", "entry_type", "source_type", "memory_type", "content",
                  "metadata", "importance", "confidence", "version", "previous_version_id", "is_current",
                  "archived_at", "merged_into_id", "deprecated_at", "access_count", "last_accessed_at",
                  "has_embedding", "effective_relevance_score", "staleness", "created_at", "updated_at"]  # fmt: skip

    def _now(self) -> datetime:
        # Lists pass one instant in the context, so their entries compare fairly.
        now: datetime | None = self.context.get("now")
        return now or timezone.now()

    def get_has_embedding(self, obj: ContextEntry) -> bool:
        return obj.embedding is not None

    def get_effective_relevance_score(self, obj: ContextEntry) -> float:
        return contexts.effective_relevance_score(obj, self._now())

    def get_staleness(self, obj: ContextEntry) -> float:
        return staleness(obj, self._now())


class ContextEntryHitOutput(serializers.Serializer):
    entry = ContextEntryOutput(source="item")
    score = serializers.FloatField(help_text="Reciprocal-rank fusion of the two signals.")
    similarity = serializers.FloatField(allow_null=True, help_text="Cosine similarity to the query.")
    keyword = serializers.FloatField(help_text="Full-text rank (0: the words do not match).")


class ContextSnapshotOutput(serializers.ModelSerializer):
    context_id = serializers.UUIDField()
    agent_id = serializers.UUIDField(allow_null=True, help_text="The agent that took it.")

    class Meta:
        model = ContextSnapshot
        fields = ["id", "context_id", "agent_id", "label", "entry_count", "created_at"]


class ContextAccessLogOutput(serializers.ModelSerializer):
    agent_id = serializers.UUIDField(allow_null=True)
    detail = serializers.DictField()

    class Meta:
        model = ContextAccessLog
        fields = ["id", "agent_id", "action", "detail", "created_at"]


class AmountInput(serializers.Serializer):
    amount = serializers.FloatField(min_value=0, max_value=1, default=0.1,
                                    help_text="Added to (or taken from) the importance, which stays within 0..1.")  # fmt: skip


# --- the base -----------------------------------------------------------------------------------------


class ContextApi(APIView):
    """Base of the context operations: access checks and the services' domain errors, in one place."""

    permission_classes = [HasApiKey]
    not_found_message: ClassVar[str] = MESSAGE_CONTEXT_NOT_FOUND

    def context(self, context_id: uuid.UUID, level: contexts.Level = "read") -> PersistentContext:
        agent = calling_agent(self.request)
        context = contexts.context_get(agent=agent, context_id=context_id)
        if context is None:
            raise NotFound(MESSAGE_CONTEXT_NOT_FOUND)
        if level == "write" and not contexts.context_accessible_by(context, agent, "write"):
            raise PermissionDenied(MESSAGE_READ_ONLY)
        return context

    def entry(self, context: PersistentContext, entry_id: uuid.UUID) -> ContextEntry:
        """Any version of an entry of `context`, archived and merged ones included."""
        entry = ContextEntry.objects.filter(context=context, pk=entry_id).first()
        if entry is None:
            raise NotFound(MESSAGE_ENTRY_NOT_FOUND)
        return entry


# --- contexts -----------------------------------------------------------------------------------------


class ContextListApi(ContextApi):
    class InputSerializer(serializers.Serializer):
        include_archived = serializers.BooleanField(default=False)

    @extend_schema(operation_id="contexts_list", summary="The contexts the calling agent may read",
                   parameters=[InputSerializer],
                   responses={200: inline_serializer("ContextList", {"results": ContextOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        found = contexts.contexts_visible(agent=calling_agent(request))
        if not data.validated_data["include_archived"]:
            found = found.filter(archived_at__isnull=True)
        return Response({"results": ContextOutput(found.order_by("name"), many=True).data})


class ContextCreateApi(ContextApi):
    class InputSerializer(serializers.Serializer):
        name = StrictCharField(max_length=MAX_NAME_LENGTH, help_text="Unique among the account's contexts.")
        context_type = serializers.ChoiceField(choices=PersistentContext.Type.choices,
                                               default=PersistentContext.Type.AGENT_MEMORY)  # fmt: skip
        scope = ListedChoiceField(
            choices=PersistentContext.Scope.choices, default=PersistentContext.Scope.AGENT,
            help_text="agent and team contexts are open to the creating agent and the agents in access_control; "
                      "account and global ones to every agent of the account (writing too, unless "
                      "access_control names writers).",
        )  # fmt: skip
        description = StrictCharField(max_length=MAX_CONTENT_LENGTH, required=False, allow_blank=True, default="")
        access_control = ContextAccessControl(required=False)

        def validate_name(self, value: str) -> str:
            if value.startswith(RESERVED_NAME_PREFIX):
                raise serializers.ValidationError(MESSAGE_RESERVED_NAME)
            return value

    @extend_schema(operation_id="contexts_create", summary="Create a context (the calling agent is its creator)",
                   request=InputSerializer, responses={201: ContextOutput, **_CREATE_ERRORS})  # fmt: skip
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
        context = contexts.context_create(agent=calling_agent(request), access_control=acl, **fields)
        return Response(ContextOutput(context).data, status=status.HTTP_201_CREATED)


class ContextReadApi(ContextApi):
    @extend_schema(operation_id="contexts_read", summary="One context, with its count of live entries (logged as a read)",
                   responses={200: ContextDetailOutput, **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, context_id: uuid.UUID) -> Response:
        context = self.context(context_id)
        contexts.context_read(agent=calling_agent(request), context=context)
        return Response(ContextDetailOutput(context).data)


class ContextUpdateApi(ContextApi):
    class InputSerializer(serializers.Serializer):
        description = StrictCharField(max_length=MAX_CONTENT_LENGTH, allow_blank=True)

    @extend_schema(operation_id="contexts_update", summary="Change a context's description (needs write access)",
                   request=InputSerializer, responses={200: ContextOutput, **ERROR_RESPONSES})  # fmt: skip
    def patch(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        # episodic.contexts has no context_update; one column's save is all it would do.
        context.description = data.validated_data["description"]
        context.save(update_fields=["description", "updated_at"])
        return Response(ContextOutput(context).data)


class ContextDeleteApi(ContextApi):
    @extend_schema(operation_id="contexts_delete", summary="Delete a context, its entries, snapshots and log (needs write access)",
                   responses={204: None, **ERROR_RESPONSES})  # fmt: skip
    def delete(self, request: Request, context_id: uuid.UUID) -> Response:
        contexts.context_delete(context=self.context(context_id, "write"))
        return Response(status=status.HTTP_204_NO_CONTENT)


class ContextArchiveApi(ContextApi):
    @extend_schema(operation_id="contexts_archive",
                   summary="Archive a context: listed only with include_archived, left out of searches (needs write access)",
                   request=None, responses={200: ContextOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        context = self.context(context_id, "write")
        context = contexts.context_set_archived(agent=calling_agent(request), context=context, archived=True)
        return Response(ContextOutput(context).data)


class ContextUnarchiveApi(ContextApi):
    @extend_schema(operation_id="contexts_unarchive", summary="Bring an archived context back (needs write access)",
                   request=None, responses={200: ContextOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        context = self.context(context_id, "write")
        context = contexts.context_set_archived(agent=calling_agent(request), context=context, archived=False)
        return Response(ContextOutput(context).data)


class ContextGrantApi(ContextApi):
    class InputSerializer(serializers.Serializer):
        agent_id = serializers.UUIDField(help_text="One of the account's agents.")
        level = serializers.ChoiceField(choices=["read", "write"], help_text="write implies read.")

    @extend_schema(operation_id="contexts_grant", summary="Let an agent read or write a context (needs write access)",
                   request=InputSerializer, responses={200: ContextOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        [agent_id] = check_agents(request_owner(request), "agent_id", [data.validated_data["agent_id"]])
        context = contexts.context_grant(agent=calling_agent(request), context=context, agent_id=agent_id,
                                         level=data.validated_data["level"])  # fmt: skip
        return Response(ContextOutput(context).data)


class ContextRevokeApi(ContextApi):
    class InputSerializer(serializers.Serializer):
        agent_id = serializers.UUIDField()

    @extend_schema(operation_id="contexts_revoke", summary="Take back an agent's grants on a context (needs write access)",
                   description="The creating agent keeps its access; so does every agent on an account or global context.",
                   request=InputSerializer, responses={200: ContextOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        # No agent check: the grant of an agent deleted since must still be revocable.
        context = contexts.context_revoke(agent=calling_agent(request), context=context,
                                          agent_id=str(data.validated_data["agent_id"]))  # fmt: skip
        return Response(ContextOutput(context).data)


class ContextAccessLogApi(ContextApi):
    class InputSerializer(serializers.Serializer):
        limit = serializers.IntegerField(min_value=1, max_value=500, default=50)

    @extend_schema(operation_id="contexts_access_log", summary="A context's access log, newest first (not itself logged)",
                   parameters=[InputSerializer],
                   responses={200: inline_serializer("ContextAccessLogList", {"results": ContextAccessLogOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        context = self.context(context_id)
        rows = ContextAccessLog.objects.filter(context=context).order_by("-created_at", "-id")
        return Response({"results": ContextAccessLogOutput(rows[: data.validated_data["limit"]], many=True).data})


# --- snapshots ----------------------------------------------------------------------------------------


class ContextSnapshotListApi(ContextApi):
    @extend_schema(operation_id="contexts_snapshots_list", summary="A context's snapshots, newest first",
                   responses={200: inline_serializer("ContextSnapshotList", {"results": ContextSnapshotOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, context_id: uuid.UUID) -> Response:
        context = self.context(context_id)
        found = ContextSnapshot.objects.filter(context=context).order_by("-created_at").defer("entries")
        return Response({"results": ContextSnapshotOutput(found, many=True).data})


class ContextSnapshotCreateApi(ContextApi):
    class InputSerializer(serializers.Serializer):
        label = StrictCharField(max_length=200, required=False, allow_blank=True, default="")  # type: ignore[assignment]

    @extend_schema(operation_id="contexts_snapshots_create",
                   summary="Snapshot every entry of a context (all versions, archived ones too) (needs write access)",
                   request=InputSerializer, responses={201: ContextSnapshotOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        snapshot = contexts.snapshot_create(agent=calling_agent(request), context=context, **data.validated_data)
        return Response(ContextSnapshotOutput(snapshot).data, status=status.HTTP_201_CREATED)


class ContextSnapshotRestoreApi(ContextApi):
    not_found_message = MESSAGE_SNAPSHOT_NOT_FOUND

    class OutputSerializer(serializers.Serializer):
        context = ContextDetailOutput()  # type: ignore[assignment]
        before_snapshot_id = serializers.UUIDField(
            help_text="The snapshot of the state the restore replaced: restore it to undo the restore."
        )

    @extend_schema(operation_id="contexts_snapshots_restore",
                   summary="Bring a context back to exactly a snapshot's state (needs write access)",
                   description="Every entry, version and timestamp, and the context's own fields. The state it "
                               "replaces is snapshotted first; the restore is logged.",
                   request=None, responses={200: OutputSerializer, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID, snapshot_id: uuid.UUID) -> Response:
        context = self.context(context_id, "write")
        snapshot = ContextSnapshot.objects.filter(context=context, pk=snapshot_id).first()
        if snapshot is None:
            raise NotFound(MESSAGE_SNAPSHOT_NOT_FOUND)
        before = contexts.snapshot_restore(agent=calling_agent(request), snapshot=snapshot)
        context.refresh_from_db()
        return Response(self.OutputSerializer({"context": context, "before_snapshot_id": before.pk}).data)


urlpatterns: list[URLPattern] = [
    path("contexts", by_method(get=ContextListApi, post=ContextCreateApi)),
    path(
        "contexts/<uuid:context_id>",
        by_method(get=ContextReadApi, patch=ContextUpdateApi, delete=ContextDeleteApi),
    ),
    path("contexts/<uuid:context_id>/archive", ContextArchiveApi.as_view()),
    path("contexts/<uuid:context_id>/unarchive", ContextUnarchiveApi.as_view()),
    path("contexts/<uuid:context_id>/grant", ContextGrantApi.as_view()),
    path("contexts/<uuid:context_id>/revoke", ContextRevokeApi.as_view()),
    path("contexts/<uuid:context_id>/access-log", ContextAccessLogApi.as_view()),
    path("contexts/<uuid:context_id>/snapshots", by_method(get=ContextSnapshotListApi, post=ContextSnapshotCreateApi)),
    path("contexts/<uuid:context_id>/snapshots/<uuid:snapshot_id>/restore", ContextSnapshotRestoreApi.as_view()),
]
