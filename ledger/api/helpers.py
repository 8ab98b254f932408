"""Seed 002's working-memory helpers: the field names, one field read or removed, and the helpers that
keep one value in one reserved field of the conversation's hash (scratchpad, entities, conversation
context, task state, tool state, intermediate results)."""

from __future__ import annotations

from typing import ClassVar

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from ledger import selectors, services
from ledger.api.common import ERRORS, AnyValue, MessagesField, WorkingMemoryApi, WriteOutput
from memory_site.api.fields import StrictCharField

# --- field names, one field -----------------------------------------------------------------------


class WorkingMemoryKeysApi(WorkingMemoryApi):
    class OutputSerializer(serializers.Serializer):
        keys = serializers.ListField(child=serializers.CharField())

    @extend_schema(
        summary="Field names of a conversation's working memory", responses={200: OutputSerializer, **ERRORS}
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        return Response({"keys": selectors.working_memory_keys(owner_id=owner_id, conversation_id=conversation_id)})


class WorkingMemoryFieldGetApi(WorkingMemoryApi):
    class OutputSerializer(serializers.Serializer):
        name = serializers.CharField()
        exists = serializers.BooleanField()
        value = AnyValue()

    @extend_schema(summary="One field: whether it exists, and its value", responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request, conversation_id: str, name: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        exists, value = selectors.working_memory_field_get(
            owner_id=owner_id, conversation_id=conversation_id, field=self.name("name", name)
        )
        return Response({"name": name, "exists": exists, "value": value})


class WorkingMemoryFieldDeleteApi(WorkingMemoryApi):
    class OutputSerializer(serializers.Serializer):
        name = serializers.CharField()
        deleted = serializers.BooleanField()

    @extend_schema(summary="Remove one field", request=None, responses={200: OutputSerializer, **ERRORS})
    def delete(self, request: Request, conversation_id: str, name: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        deleted = services.working_memory_delete(
            owner_id=owner_id, conversation_id=conversation_id, fields=[self.name("name", name)]
        )
        return Response({"name": name, "deleted": bool(deleted)})


# --- helpers: one value in one reserved field, read and written whole ---------------------------------


class HelperApi(WorkingMemoryApi):
    """Base of the helpers. `value_key` names the value in bodies; `field_template` is the reserved
    field, with the URL's `{tool_name}` or `{step_name}` put in. Writes take the value from the
    operation's `InputSerializer`."""

    value_key: ClassVar[str]
    field_template: ClassVar[str]
    InputSerializer: ClassVar[type[serializers.Serializer]]

    def resolve(self, conversation_id: str, names: dict[str, str]) -> tuple[int, str, str]:
        owner_id, conversation_id = self.conversation(conversation_id)
        for key, value in names.items():
            self.name(key, value)
        return owner_id, conversation_id, self.field_template.format(**names)

    def read(self, conversation_id: str, **names: str) -> Response:
        owner_id, conversation_id, field = self.resolve(conversation_id, names)
        _, value = selectors.working_memory_field_get(owner_id=owner_id, conversation_id=conversation_id, field=field)
        return Response({self.value_key: value})

    def store(self, request: Request, conversation_id: str, **names: str) -> Response:
        owner_id, conversation_id, field = self.resolve(conversation_id, names)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        value = data.validated_data[self.value_key]
        # A helper write keeps the conversation's TTL policy (a long hold set by a PUT survives it).
        result = services.working_memory_merge(
            owner_id=owner_id, conversation_id=conversation_id, fields={field: value}, ttl_seconds=services.KEEP_POLICY
        )
        return Response({self.value_key: value, "size_bytes": result.size_bytes, "ttl_seconds": result.ttl_seconds})


class ScratchpadValue(serializers.Serializer):
    content = StrictCharField(allow_blank=True, allow_null=True, trim_whitespace=False)


class ScratchpadApi(HelperApi):
    value_key, field_template = "content", services.SCRATCHPAD


class ScratchpadGetApi(ScratchpadApi):
    class OutputSerializer(ScratchpadValue):
        pass

    @extend_schema(summary="Read the scratchpad", responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request, conversation_id: str) -> Response:
        return self.read(conversation_id)


class ScratchpadSetApi(ScratchpadApi):
    class InputSerializer(ScratchpadValue):
        pass

    class OutputSerializer(WriteOutput, ScratchpadValue):
        pass

    @extend_schema(summary="Store the scratchpad", request=InputSerializer, responses={200: OutputSerializer, **ERRORS})
    def put(self, request: Request, conversation_id: str) -> Response:
        return self.store(request, conversation_id)


class ScratchpadAppendApi(WorkingMemoryApi):
    class InputSerializer(serializers.Serializer):
        content = StrictCharField(allow_blank=True, trim_whitespace=False)
        separator = StrictCharField(default="\n", allow_blank=True, trim_whitespace=False, max_length=16)

    class OutputSerializer(serializers.Serializer):
        content = serializers.CharField()

    @extend_schema(
        summary="Append to the scratchpad (atomic)",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERRORS},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        content = services.scratchpad_append(owner_id=owner_id, conversation_id=conversation_id, **data.validated_data)
        return Response({"content": content})


class EntitiesValue(serializers.Serializer):
    entities = serializers.ListField(child=AnyValue(), allow_null=True)


class EntitiesApi(HelperApi):
    value_key, field_template = "entities", services.ENTITIES


class EntitiesGetApi(EntitiesApi):
    class OutputSerializer(EntitiesValue):
        pass

    @extend_schema(summary="Read the entity list", responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request, conversation_id: str) -> Response:
        return self.read(conversation_id)


class EntitiesSetApi(EntitiesApi):
    class InputSerializer(EntitiesValue):
        pass

    class OutputSerializer(WriteOutput, EntitiesValue):
        pass

    @extend_schema(
        summary="Store the entity list", request=InputSerializer, responses={200: OutputSerializer, **ERRORS}
    )
    def put(self, request: Request, conversation_id: str) -> Response:
        return self.store(request, conversation_id)


class ContextValue(serializers.Serializer):
    messages = MessagesField(allow_null=True)


class ContextApi(HelperApi):
    value_key, field_template = "messages", services.CONVERSATION_CONTEXT


class ContextGetApi(ContextApi):
    class OutputSerializer(ContextValue):
        pass

    @extend_schema(summary="Read the conversation context (message list)", responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request, conversation_id: str) -> Response:
        return self.read(conversation_id)


class ContextSetApi(ContextApi):
    class InputSerializer(ContextValue):
        pass

    class OutputSerializer(WriteOutput, ContextValue):
        pass

    @extend_schema(
        summary="Store the conversation context (message list)",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERRORS},
    )
    def put(self, request: Request, conversation_id: str) -> Response:
        return self.store(request, conversation_id)


class ContextAppendApi(WorkingMemoryApi):
    class InputSerializer(serializers.Serializer):
        message = serializers.DictField(child=AnyValue(), help_text='e.g. {"role": "user", "content": "…"}')

    class OutputSerializer(ContextValue):
        count = serializers.IntegerField()

    @extend_schema(
        summary="Append a message to the conversation context (atomic; keeps the newest WORKING_MEMORY_MAX_MESSAGES)",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERRORS},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        owner_id, conversation_id = self.conversation(conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        messages = services.conversation_append(
            owner_id=owner_id, conversation_id=conversation_id, message=data.validated_data["message"]
        )
        return Response({"messages": messages, "count": len(messages)})


class StateValue(serializers.Serializer):
    state = AnyValue()


class TaskStateApi(HelperApi):
    value_key, field_template = "state", services.TASK_STATE


class TaskStateGetApi(TaskStateApi):
    class OutputSerializer(StateValue):
        pass

    @extend_schema(summary="Read the task state", responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request, conversation_id: str) -> Response:
        return self.read(conversation_id)


class TaskStateSetApi(TaskStateApi):
    class InputSerializer(StateValue):
        pass

    class OutputSerializer(WriteOutput, StateValue):
        pass

    @extend_schema(summary="Store the task state", request=InputSerializer, responses={200: OutputSerializer, **ERRORS})
    def put(self, request: Request, conversation_id: str) -> Response:
        return self.store(request, conversation_id)


class ToolStateApi(HelperApi):
    value_key, field_template = "state", services.TOOL_STATE_PREFIX + "{tool_name}"


class ToolStateGetApi(ToolStateApi):
    class OutputSerializer(StateValue):
        pass

    @extend_schema(summary="Read a tool's state", responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request, conversation_id: str, tool_name: str) -> Response:
        return self.read(conversation_id, tool_name=tool_name)


class ToolStateSetApi(ToolStateApi):
    class InputSerializer(StateValue):
        pass

    class OutputSerializer(WriteOutput, StateValue):
        pass

    @extend_schema(summary="Store a tool's state", request=InputSerializer, responses={200: OutputSerializer, **ERRORS})
    def put(self, request: Request, conversation_id: str, tool_name: str) -> Response:
        return self.store(request, conversation_id, tool_name=tool_name)


class StepResultValue(serializers.Serializer):
    result = AnyValue()


class StepResultApi(HelperApi):
    value_key, field_template = "result", services.INTERMEDIATE_PREFIX + "{step_name}"


class StepResultGetApi(StepResultApi):
    class OutputSerializer(StepResultValue):
        pass

    @extend_schema(summary="Read a step's intermediate result", responses={200: OutputSerializer, **ERRORS})
    def get(self, request: Request, conversation_id: str, step_name: str) -> Response:
        return self.read(conversation_id, step_name=step_name)


class StepResultSetApi(StepResultApi):
    class InputSerializer(StepResultValue):
        pass

    class OutputSerializer(WriteOutput, StepResultValue):
        pass

    @extend_schema(
        summary="Store a step's intermediate result",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERRORS},
    )
    def put(self, request: Request, conversation_id: str, step_name: str) -> Response:
        return self.store(request, conversation_id, step_name=step_name)
