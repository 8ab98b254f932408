"""Working memory, its helpers, sharing, persistence and the injection ledger over HTTP.

One class per operation. The same classes answer the reference service's paths (`/working-memory/…`,
`/ledger/…`, see memory_site/urls.py): one implementation, two addresses.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger import services
from memory_site.api.authentication import (
    HasApiKey,
    calling_agent,
    owned_agent,
    request_agent,
    request_owner,
)
from memory_site.api.fields import StrictCharField
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope
from memory_site.lib.ids import MESSAGE_BAD_CONVERSATION_ID, is_valid_conversation_id

MESSAGE_NOT_SHARED = "Nothing shared under this key."
MESSAGE_BAD_FIELD_NAME = "Field names are 1 to 256 characters with no control characters."

_ERRORS = {**ERROR_RESPONSES, 413: OpenApiResponse(ErrorEnvelope, description="Over the 64 KB limit; nothing written")}


class AnyValue(serializers.JSONField):
    """Any JSON value: object, array, string, number, boolean or null."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)


def _valid_name(name: str) -> bool:
    return 0 < len(name) <= services.MAX_FIELD_NAME_LENGTH and not any(
        unicodedata.category(char) == "Cc" for char in name
    )


class FieldNameField(StrictCharField):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=services.MAX_FIELD_NAME_LENGTH, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        if not _valid_name(value):
            raise serializers.ValidationError(MESSAGE_BAD_FIELD_NAME)
        return value


class WorkingMemoryApi(APIView):
    """Base of the conversation-scoped operations: the owner and a validated conversation id."""

    def conversation(self, conversation_id: str) -> tuple[int, str]:
        if not is_valid_conversation_id(conversation_id):
            raise ValidationError({"conversation_id": [MESSAGE_BAD_CONVERSATION_ID]})
        return request_owner(self.request).pk, conversation_id

    def name(self, field: str, value: str) -> str:
        if not _valid_name(value):
            raise ValidationError({field: [MESSAGE_BAD_FIELD_NAME]})
        return value


class WriteOutput(serializers.Serializer):
    size_bytes = serializers.IntegerField(help_text="Size of the whole working memory after the write.")
    ttl_seconds = serializers.IntegerField()


# --- the hash -------------------------------------------------------------------------------------


class WorkingMemoryGetApi(WorkingMemoryApi):
    @extend_schema(
        summary="All fields of a conversation's working memory (refreshes its TTL)",
        description="Values come back decoded from JSON. An unknown conversation answers `{}`.",
        responses={200: OpenApiResponse(description="`{field: value}`"), **_ERRORS},
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        return Response(services.working_memory_get(owner_id=owner_id, conversation_id=conversation_id))


class WorkingMemoryMergeApi(WorkingMemoryApi):
    class InputSerializer(serializers.Serializer):
        fields = serializers.DictField(child=AnyValue(), help_text="Merged into the hash; other fields stay.")  # type: ignore[assignment]
        ttl_seconds = serializers.IntegerField(
            required=False, min_value=1, help_text="Whole-key TTL; default WORKING_MEMORY_TTL."
        )

        def validate_fields(self, value: dict[str, Any]) -> dict[str, Any]:
            if not value:
                raise serializers.ValidationError("Give at least one field.")
            if len(value) > services.MAX_FIELDS_PER_WRITE:
                raise serializers.ValidationError(f"At most {services.MAX_FIELDS_PER_WRITE} fields per write.")
            if not all(_valid_name(name) for name in value):
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
        description="Refused with 413, changing nothing, when the hash would pass 64 KB (field names + encoded values).",
        request=InputSerializer,
        responses={200: OutputSerializer, **_ERRORS},
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
        responses={200: OutputSerializer, **_ERRORS},
    )
    def delete(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data or {})
        data.is_valid(raise_exception=True)
        fields = data.validated_data.get("fields") or None
        deleted = services.working_memory_delete(owner_id=owner_id, conversation_id=conversation_id, fields=fields)
        return Response({"deleted": deleted, "whole": fields is None})


class WorkingMemoryKeysApi(WorkingMemoryApi):
    @extend_schema(
        summary="Field names of a conversation's working memory",
        responses={
            200: inline_serializer("WorkingMemoryKeys", {"keys": serializers.ListField(child=serializers.CharField())}),
            **_ERRORS,
        },
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        return Response({"keys": services.working_memory_keys(owner_id=owner_id, conversation_id=conversation_id)})


class FieldOutput(serializers.Serializer):
    name = serializers.CharField()
    exists = serializers.BooleanField()
    value = AnyValue()


class WorkingMemoryFieldGetApi(WorkingMemoryApi):
    @extend_schema(summary="One field: whether it exists, and its value", responses={200: FieldOutput, **_ERRORS})
    def get(self, request: Request, conversation_id: str, name: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        exists, value = services.working_memory_field_get(
            owner_id=owner_id, conversation_id=conversation_id, field=self.name("name", name)
        )
        return Response({"name": name, "exists": exists, "value": value})


class WorkingMemoryFieldDeleteApi(WorkingMemoryApi):
    @extend_schema(
        summary="Remove one field",
        request=None,
        responses={
            200: inline_serializer(
                "FieldDeleted", {"name": serializers.CharField(), "deleted": serializers.BooleanField()}
            ),
            **_ERRORS,
        },
    )
    def delete(self, request: Request, conversation_id: str, name: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        deleted = services.working_memory_delete(
            owner_id=owner_id, conversation_id=conversation_id, fields=[self.name("name", name)]
        )
        return Response({"name": name, "deleted": bool(deleted)})


# --- helpers: one field each, read and written whole ----------------------------------------------------


def _slot_apis(
    *,
    title: str,
    value_key: str,
    value_field: Callable[[], serializers.Field],
    field_for: Callable[[dict[str, str]], str],
    noun: str,
) -> tuple[type[WorkingMemoryApi], type[WorkingMemoryApi]]:
    """A GET/PUT pair for a helper that keeps one value in one reserved field (seed 002's
    store_*/retrieve): `field_for(url kwargs)` names the field, `value_key` names the value in bodies."""
    get_output = type(f"{title}Output", (serializers.Serializer,), {value_key: value_field()})
    set_input = type(f"{title}SetInput", (serializers.Serializer,), {value_key: value_field()})
    set_output = type(f"{title}SetOutput", (WriteOutput,), {value_key: value_field()})

    def resolve(view: WorkingMemoryApi, conversation_id: str, kwargs: dict[str, str]) -> tuple[int, str, str]:
        owner_id, conversation_id = view.conversation(conversation_id)
        for key, value in kwargs.items():
            view.name(key, value)
        return owner_id, conversation_id, field_for(kwargs)

    @extend_schema(summary=f"Read {noun}", responses={200: get_output, **_ERRORS})
    def get(self: WorkingMemoryApi, request: Request, conversation_id: str, **kwargs: str) -> Response:
        owner_id, conversation_id, field = resolve(self, conversation_id, kwargs)
        _, value = services.working_memory_field_get(owner_id=owner_id, conversation_id=conversation_id, field=field)
        return Response({value_key: value})

    @extend_schema(summary=f"Store {noun}", request=set_input, responses={200: set_output, **_ERRORS})
    def put(self: WorkingMemoryApi, request: Request, conversation_id: str, **kwargs: str) -> Response:
        owner_id, conversation_id, field = resolve(self, conversation_id, kwargs)
        data = set_input(data=request.data)
        data.is_valid(raise_exception=True)
        value = data.validated_data[value_key]
        # A helper write keeps the conversation's TTL policy (a long hold set by a PUT survives it).
        result = services.working_memory_merge(
            owner_id=owner_id, conversation_id=conversation_id, fields={field: value}, ttl_seconds=services.KEEP_POLICY
        )
        return Response({value_key: value, "size_bytes": result.size_bytes, "ttl_seconds": result.ttl_seconds})

    getter = type(f"{title}GetApi", (WorkingMemoryApi,), {"get": get, "__doc__": f"Read {noun}."})
    setter = type(f"{title}SetApi", (WorkingMemoryApi,), {"put": put, "__doc__": f"Store {noun}."})
    return getter, setter


class MessagesField(serializers.ListField):
    """A message list, at most WORKING_MEMORY_MAX_MESSAGES long (read when validating, not at import)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.DictField(child=AnyValue()), **kwargs)

    def to_internal_value(self, data: Any) -> list[Any]:
        if isinstance(data, list) and len(data) > settings.WORKING_MEMORY_MAX_MESSAGES:
            raise serializers.ValidationError(f"At most {settings.WORKING_MEMORY_MAX_MESSAGES} messages.")
        return list(super().to_internal_value(data))


def _messages() -> serializers.Field:
    return MessagesField(allow_null=True)


ScratchpadGetApi, ScratchpadSetApi = _slot_apis(
    title="Scratchpad", value_key="content", noun="the scratchpad",
    value_field=lambda: StrictCharField(allow_blank=True, allow_null=True, trim_whitespace=False),
    field_for=lambda _: services.SCRATCHPAD,
)  # fmt: skip
EntitiesGetApi, EntitiesSetApi = _slot_apis(
    title="Entities", value_key="entities", noun="the entity list",
    value_field=lambda: serializers.ListField(child=AnyValue(), allow_null=True),
    field_for=lambda _: services.ENTITIES,
)  # fmt: skip
ContextGetApi, ContextSetApi = _slot_apis(
    title="ConversationContext", value_key="messages", noun="the conversation context (message list)",
    value_field=_messages, field_for=lambda _: services.CONVERSATION_CONTEXT,
)  # fmt: skip
TaskStateGetApi, TaskStateSetApi = _slot_apis(
    title="TaskState", value_key="state", noun="the task state",
    value_field=lambda: AnyValue(), field_for=lambda _: services.TASK_STATE,
)  # fmt: skip
ToolStateGetApi, ToolStateSetApi = _slot_apis(
    title="ToolState", value_key="state", noun="a tool's state",
    value_field=lambda: AnyValue(), field_for=lambda kw: services.tool_state_field(kw["tool_name"]),
)  # fmt: skip
StepResultGetApi, StepResultSetApi = _slot_apis(
    title="StepResult", value_key="result", noun="a step's intermediate result",
    value_field=lambda: AnyValue(), field_for=lambda kw: services.intermediate_field(kw["step_name"]),
)  # fmt: skip


class ScratchpadAppendApi(WorkingMemoryApi):
    class InputSerializer(serializers.Serializer):
        content = StrictCharField(allow_blank=True, trim_whitespace=False)
        separator = StrictCharField(default="\n", allow_blank=True, trim_whitespace=False, max_length=16)

    @extend_schema(
        summary="Append to the scratchpad (atomic)",
        request=InputSerializer,
        responses={200: inline_serializer("ScratchpadAppended", {"content": serializers.CharField()}), **_ERRORS},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        content = services.scratchpad_append(owner_id=owner_id, conversation_id=conversation_id, **data.validated_data)
        return Response({"content": content})


class ContextAppendApi(WorkingMemoryApi):
    class InputSerializer(serializers.Serializer):
        message = serializers.DictField(child=AnyValue(), help_text='e.g. {"role": "user", "content": "…"}')

    @extend_schema(
        summary="Append a message to the conversation context (atomic; keeps the newest WORKING_MEMORY_MAX_MESSAGES)",
        request=InputSerializer,
        responses={
            200: inline_serializer("ContextAppended", {"messages": _messages(), "count": serializers.IntegerField()}),
            **_ERRORS,
        },
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        messages = services.conversation_append(
            owner_id=owner_id, conversation_id=conversation_id, message=data.validated_data["message"]
        )
        return Response({"messages": messages, "count": len(messages)})


# --- persistence ------------------------------------------------------------------------------------


class WorkingMemoryPersistApi(WorkingMemoryApi):
    @extend_schema(
        summary="Save this conversation's working memory to PostgreSQL (replaces an earlier save)",
        request=None,
        responses={
            200: inline_serializer(
                "WorkingMemoryPersisted",
                {"fields": serializers.IntegerField(), "size_bytes": serializers.IntegerField(),
                 "ttl_seconds": serializers.IntegerField(), "persisted_at": serializers.DateTimeField()},
            ),
            **_ERRORS,
        },
    )  # fmt: skip
    def post(self, request: Request, conversation_id: str) -> Response:
        _, conversation_id = self.conversation(conversation_id)
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
        responses={200: OpenApiResponse(description="`{field: value}` as restored"), **_ERRORS},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        _, conversation_id = self.conversation(conversation_id)
        return Response(services.working_memory_load(owner=request_owner(request), conversation_id=conversation_id))


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
        responses={201: OutputSerializer, **_ERRORS},
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

    @extend_schema(
        summary="Read what another agent of the same owner shared with this agent",
        responses={
            200: inline_serializer(
                "SharedValue",
                {"source_agent_id": serializers.UUIDField(), "key": serializers.CharField(), "value": AnyValue()},
            ),
            **_ERRORS,
        },
    )
    def get(self, request: Request, source_agent_id: Any, key: str) -> Response:
        target = calling_agent(request)
        source = owned_agent(request, source_agent_id)
        exists, value = services.working_memory_retrieve_shared(
            owner_id=target.owner_id, source=source, target=target, key=self.name("key", key)
        )
        if not exists:
            raise NotFound(MESSAGE_NOT_SHARED)
        return Response({"source_agent_id": str(source.id), "key": key, "value": value})


# --- injection ledger ---------------------------------------------------------------------------------


class LedgerApi(WorkingMemoryApi):
    """Base of the ledger operations (the same conversation checks as working memory)."""


class LedgerItemInput(serializers.Serializer):
    item = FieldNameField(help_text="A skill or context block id.")


class LedgerGetApi(LedgerApi):
    @extend_schema(
        summary="Everything injected into a conversation: `{item: value}`",
        responses={200: OpenApiResponse(description="`{item: value}`"), **_ERRORS},
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        return Response(services.ledger_get_all(owner_id=owner_id, conversation_id=conversation_id))


class LedgerCheckApi(LedgerApi):
    @extend_schema(
        summary="Has this item been injected?",
        request=LedgerItemInput,
        responses={
            200: inline_serializer(
                "LedgerCheck", {"item": serializers.CharField(), "injected": serializers.BooleanField()}
            ),
            **_ERRORS,
        },
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = LedgerItemInput(data=request.data)
        data.is_valid(raise_exception=True)
        item = data.validated_data["item"]
        return Response(
            {
                "item": item,
                "injected": services.ledger_check(owner_id=owner_id, conversation_id=conversation_id, item=item),
            }
        )


class LedgerMarkApi(LedgerApi):
    class InputSerializer(LedgerItemInput):
        value = StrictCharField(default="injected", max_length=1024, trim_whitespace=False)

    @extend_schema(
        summary="Mark an item injected (idempotent)",
        request=InputSerializer,
        responses={
            200: inline_serializer(
                "LedgerMarked",
                {"item": serializers.CharField(), "value": serializers.CharField(),
                 "newly_marked": serializers.BooleanField(help_text="False when it was marked already.")},
            ),
            **_ERRORS,
        },
    )  # fmt: skip
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item, value = data.validated_data["item"], data.validated_data["value"]
        new = services.ledger_mark(owner_id=owner_id, conversation_id=conversation_id, item=item, value=value)
        return Response({"item": item, "value": value, "newly_marked": new})


class LedgerEvictApi(LedgerApi):
    @extend_schema(
        summary="Remove an item, allowing its re-injection",
        request=LedgerItemInput,
        responses={
            200: inline_serializer(
                "LedgerEvicted", {"item": serializers.CharField(), "evicted": serializers.BooleanField()}
            ),
            **_ERRORS,
        },
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = LedgerItemInput(data=request.data)
        data.is_valid(raise_exception=True)
        item = data.validated_data["item"]
        return Response(
            {
                "item": item,
                "evicted": services.ledger_evict(owner_id=owner_id, conversation_id=conversation_id, item=item),
            }
        )
