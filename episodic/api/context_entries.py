"""Entries of persistent contexts over HTTP (one class per operation): create, read, versioned edits,
history, boost / reduce, and search within a context. Access and logging as in episodic/api/contexts.py;
the reads go through episodic.services.context_entries, which logs them."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.services import memory_require_enabled
from episodic.api.common import one_of, serialized
from episodic.api.contexts import MAX_CONTENT_LENGTH, MESSAGE_ENTRY_NOT_FOUND, PersistentContextApi
from episodic.models import ContextEntry
from episodic.selectors import contexts as selectors
from episodic.services import context_entries as services
from memory_site.api.authentication import calling_agent
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput, list_response, offset_field
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope

MESSAGE_ENTRY_NOT_CURRENT = services.MESSAGE_ENTRY_NOT_CURRENT

MAX_KEY_LENGTH = 256  # the column's length

_EDIT_ERRORS = {
    **ERROR_RESPONSES,
    409: OpenApiResponse(ErrorEnvelope, description="Not the newest version (`extra.current_id`)"),
}


def _at_now() -> dict[str, datetime]:
    """The serializer context of a list of entries: one instant for all their scores."""
    return {"now": timezone.now()}


# --- shapes -------------------------------------------------------------------------------------------


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
        fields = [
            "id",
            "context_id",
            "agent_id",
            "key",
            "entry_type",
            "source_type",
            "memory_type",
            "content",
            "metadata",
            "importance",
            "confidence",
            "version",
            "previous_version_id",
            "is_current",
            "archived_at",
            "merged_into_id",
            "deprecated_at",
            "access_count",
            "last_accessed_at",
            "has_embedding",
            "effective_relevance_score",
            "staleness",
            "created_at",
            "updated_at",
        ]

    def _now(self) -> datetime:
        # Lists pass one instant in the context, so their entries compare fairly.
        now: datetime | None = self.context.get("now")
        return now or timezone.now()

    def get_has_embedding(self, obj: ContextEntry) -> bool:
        return obj.embedding is not None

    def get_effective_relevance_score(self, obj: ContextEntry) -> float:
        return selectors.effective_relevance_score(obj, self._now())

    def get_staleness(self, obj: ContextEntry) -> float:
        return selectors.staleness(obj, self._now())


class ContextEntryHitOutput(serializers.Serializer):
    entry = ContextEntryOutput(source="item")
    score = serializers.FloatField(help_text="Reciprocal-rank fusion of the two signals.")
    similarity = serializers.FloatField(allow_null=True, help_text="Cosine similarity to the query.")
    keyword = serializers.FloatField(help_text="Full-text rank (0: the words do not match).")


class AmountInput(serializers.Serializer):
    amount = serializers.FloatField(
        min_value=0,
        max_value=1,
        default=0.1,
        help_text="Added to (or taken from) the importance, which stays within 0..1.",
    )


# --- entries ------------------------------------------------------------------------------------------


class EntryApi(PersistentContextApi):
    not_found_message = MESSAGE_ENTRY_NOT_FOUND


class EntryListApi(EntryApi):
    class InputSerializer(serializers.Serializer):
        limit = serializers.IntegerField(min_value=1, max_value=500, default=100)
        offset = offset_field()

    class OutputSerializer(ListOutput):
        results = ContextEntryOutput(many=True)

    @extend_schema(
        operation_id="contexts_entries_list",
        summary="A context's live entries, newest first (logged as a read; not counted as uses)",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        limit, offset = data.validated_data["limit"], data.validated_data["offset"]
        page, count = services.entry_list_read(
            agent=calling_agent(request), context=self.context(context_id), limit=limit, offset=offset
        )
        results = serialized(ContextEntryOutput, page, _at_now())
        return list_response(request, results, count=count, limit=limit, offset=offset)


class EntryCreateApi(EntryApi):
    class InputSerializer(serializers.Serializer):
        content = StrictCharField(max_length=MAX_CONTENT_LENGTH)
        entry_type = serializers.ChoiceField(
            choices=ContextEntry.EntryType.choices, default=ContextEntry.EntryType.FACT
        )
        source_type = serializers.ChoiceField(
            choices=ContextEntry.SourceType.choices, default=ContextEntry.SourceType.AGENT
        )
        memory_type = serializers.ChoiceField(
            choices=ContextEntry.MemoryType.choices, default=ContextEntry.MemoryType.FACTUAL
        )
        importance = serializers.FloatField(min_value=0, max_value=1, default=0.5)
        confidence = serializers.FloatField(min_value=0, max_value=1, default=1.0)
        metadata = serializers.DictField(required=False)
        key = StrictCharField(
            max_length=MAX_KEY_LENGTH,
            required=False,
            allow_blank=True,
            default="",
            help_text="An optional name for the entry.",
        )

    @extend_schema(
        operation_id="contexts_entries_create",
        summary="Add an entry to a context (needs write access)",
        request=InputSerializer,
        responses={201: ContextEntryOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        memory_require_enabled(owner=context.owner)  # paused memory keeps nothing new (409)
        entry = services.entry_create(agent=calling_agent(request), context=context, **data.validated_data)
        return Response(ContextEntryOutput(entry).data, status=status.HTTP_201_CREATED)


class EntryReadApi(EntryApi):
    @extend_schema(
        operation_id="contexts_entries_read",
        summary="One entry, any version (logged as a read; counted as a use)",
        responses={200: ContextEntryOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        context = self.context(context_id)
        entry = services.entry_read(agent=calling_agent(request), context=context, entry=self.entry(context, entry_id))
        return Response(ContextEntryOutput(entry).data)


class EntryUpdateApi(EntryApi):
    class InputSerializer(serializers.Serializer):
        content = StrictCharField(max_length=MAX_CONTENT_LENGTH)
        metadata = serializers.DictField(required=False, help_text="Omit to keep the previous version's.")

    @extend_schema(
        operation_id="contexts_entries_update",
        summary="Edit an entry's content: a new version, linked to this one (needs write access)",
        description="The edited version stays, no longer current. Only the current version can be "
        "edited: another one answers 409 with the current version's id.",
        request=InputSerializer,
        responses={200: ContextEntryOutput, **_EDIT_ERRORS},
    )
    def patch(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        memory_require_enabled(owner=context.owner)  # a new version is kept: not while paused (409)
        entry = self.entry(context, entry_id)
        new = services.entry_update_content(agent=calling_agent(request), entry=entry, **data.validated_data)
        return Response(ContextEntryOutput(new).data)


class EntryDeleteApi(EntryApi):
    @extend_schema(
        operation_id="contexts_entries_delete",
        summary="Delete one version of an entry (needs write access)",
        description="The version after it keeps its content; its link back is cleared.",
        responses={204: None, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        services.entry_delete(entry=self.entry(self.context(context_id, "write"), entry_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class EntryHistoryApi(EntryApi):
    class OutputSerializer(ListOutput):
        results = ContextEntryOutput(many=True)

    @extend_schema(
        operation_id="contexts_entries_history",
        summary="Every version of an entry, oldest first (logged as a read)",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        context = self.context(context_id)
        entry = self.entry(context, entry_id)
        versions = services.entry_history_read(agent=calling_agent(request), context=context, entry=entry)
        return list_response(request, serialized(ContextEntryOutput, versions, _at_now()))


class EntryBoostApi(EntryApi):
    @extend_schema(
        operation_id="contexts_entries_boost",
        summary="Raise an entry's importance, at most to 1 (needs write access)",
        request=AmountInput,
        responses={200: ContextEntryOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        data = AmountInput(data=request.data)
        data.is_valid(raise_exception=True)
        entry = self.entry(self.context(context_id, "write"), entry_id)
        entry = services.entry_adjust_importance(entry=entry, delta=data.validated_data["amount"])
        return Response(ContextEntryOutput(entry).data)


class EntryReduceApi(EntryApi):
    @extend_schema(
        operation_id="contexts_entries_reduce",
        summary="Lower an entry's importance, at least to 0 (needs write access)",
        request=AmountInput,
        responses={200: ContextEntryOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        data = AmountInput(data=request.data)
        data.is_valid(raise_exception=True)
        entry = self.entry(self.context(context_id, "write"), entry_id)
        entry = services.entry_adjust_importance(entry=entry, delta=-data.validated_data["amount"])
        return Response(ContextEntryOutput(entry).data)


class EntrySearchApi(EntryApi):
    class InputSerializer(serializers.Serializer):
        query = StrictCharField(max_length=2000)
        limit = serializers.IntegerField(min_value=1, max_value=50, default=10)

    class OutputSerializer(ListOutput):
        results = ContextEntryHitOutput(many=True)

    @extend_schema(
        operation_id="contexts_search",
        summary="Search one context's live entries by meaning and keywords, fused (logged as a search)",
        description="Each entry found counts a use. An archived context answers no hits.",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hits = services.entry_search(
            agent=calling_agent(request), context=self.context(context_id), **data.validated_data
        )
        return list_response(request, serialized(ContextEntryHitOutput, hits, _at_now()))
