"""Entries of persistent contexts over HTTP (one class per operation): create, read, versioned edits,
history, boost / reduce, and search within a context. Access and logging as in episodic/api/contexts.py."""

from __future__ import annotations

import uuid

from django.urls import URLPattern, path
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from episodic import contexts
from episodic.api.contexts import (
    _EDIT_ERRORS,
    MAX_CONTENT_LENGTH,
    MAX_KEY_LENGTH,
    MESSAGE_ENTRY_NOT_FOUND,
    AmountInput,
    ContextApi,
    ContextEntryHitOutput,
    ContextEntryOutput,
    _at_now,
)
from episodic.models import ContextEntry
from memory_site.api.authentication import calling_agent
from memory_site.api.fields import StrictCharField
from memory_site.api.routing import by_method
from memory_site.api.schema import ERROR_RESPONSES

# --- entries ------------------------------------------------------------------------------------------


class EntryApi(ContextApi):
    not_found_message = MESSAGE_ENTRY_NOT_FOUND


class EntryListApi(EntryApi):
    class InputSerializer(serializers.Serializer):
        limit = serializers.IntegerField(min_value=1, max_value=500, default=100)
        offset = serializers.IntegerField(min_value=0, default=0, help_text="Skip this many (newest first).")

    @extend_schema(operation_id="contexts_entries_list",
                   summary="A context's live entries, newest first (logged as a read; not counted as uses)",
                   parameters=[InputSerializer],
                   responses={200: inline_serializer("ContextEntryList", {"results": ContextEntryOutput(many=True), "count": serializers.IntegerField()}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        limit, offset = data.validated_data["limit"], data.validated_data["offset"]
        context = self.context(context_id)
        live = contexts.entries_live(ContextEntry.objects.filter(context=context)).order_by("-created_at", "-id")
        page = list(live[offset : offset + limit])
        contexts.context_read(agent=calling_agent(request), context=context, entries=len(page), offset=offset)
        return Response({"results": ContextEntryOutput(page, many=True, context=_at_now()).data, "count": live.count()})


class EntryCreateApi(EntryApi):
    class InputSerializer(serializers.Serializer):
        content = StrictCharField(max_length=MAX_CONTENT_LENGTH)
        entry_type = serializers.ChoiceField(choices=ContextEntry.EntryType.choices,
                                             default=ContextEntry.EntryType.FACT)  # fmt: skip
        source_type = serializers.ChoiceField(choices=ContextEntry.SourceType.choices,
                                              default=ContextEntry.SourceType.AGENT)  # fmt: skip
        memory_type = serializers.ChoiceField(choices=ContextEntry.MemoryType.choices,
                                              default=ContextEntry.MemoryType.FACTUAL)  # fmt: skip
        importance = serializers.FloatField(min_value=0, max_value=1, default=0.5)
        confidence = serializers.FloatField(min_value=0, max_value=1, default=1.0)
        metadata = serializers.DictField(required=False)
        key = StrictCharField(max_length=MAX_KEY_LENGTH, required=False, allow_blank=True, default="",
                              help_text="An optional name for the entry.")  # fmt: skip

    @extend_schema(operation_id="contexts_entries_create", summary="Add an entry to a context (needs write access)",
                   request=InputSerializer, responses={201: ContextEntryOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        context = self.context(context_id, "write")
        entry = contexts.entry_create(agent=calling_agent(request), context=context, **data.validated_data)
        return Response(ContextEntryOutput(entry).data, status=status.HTTP_201_CREATED)


class EntryReadApi(EntryApi):
    @extend_schema(operation_id="contexts_entries_read",
                   summary="One entry, any version (logged as a read; counted as a use)",
                   responses={200: ContextEntryOutput, **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        context = self.context(context_id)
        entry = self.entry(context, entry_id)
        contexts.entry_touch(ids=[entry.pk])
        contexts.context_read(agent=calling_agent(request), context=context, entry_id=str(entry.pk))
        entry.refresh_from_db(fields=["access_count", "last_accessed_at"])
        return Response(ContextEntryOutput(entry).data)


class EntryUpdateApi(EntryApi):
    class InputSerializer(serializers.Serializer):
        content = StrictCharField(max_length=MAX_CONTENT_LENGTH)
        metadata = serializers.DictField(required=False, help_text="Omit to keep the previous version's.")

    @extend_schema(operation_id="contexts_entries_update",
                   summary="Edit an entry's content: a new version, linked to this one (needs write access)",
                   description="The edited version stays, no longer current. Only the current version can be "
                               "edited: another one answers 409 with the current version's id.",
                   request=InputSerializer, responses={200: ContextEntryOutput, **_EDIT_ERRORS})  # fmt: skip
    def patch(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entry = self.entry(self.context(context_id, "write"), entry_id)
        new = contexts.entry_update_content(agent=calling_agent(request), entry=entry, **data.validated_data)
        return Response(ContextEntryOutput(new).data)


class EntryDeleteApi(EntryApi):
    @extend_schema(operation_id="contexts_entries_delete",
                   summary="Delete one version of an entry (needs write access)",
                   description="The version after it keeps its content; its link back is cleared.",
                   responses={204: None, **ERROR_RESPONSES})  # fmt: skip
    def delete(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        contexts.entry_delete(entry=self.entry(self.context(context_id, "write"), entry_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class EntryHistoryApi(EntryApi):
    @extend_schema(operation_id="contexts_entries_history", summary="Every version of an entry, oldest first (logged as a read)",
                   responses={200: inline_serializer("ContextEntryHistory", {"results": ContextEntryOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        context = self.context(context_id)
        versions = contexts.entry_history(entry=self.entry(context, entry_id))
        contexts.context_read(agent=calling_agent(request), context=context, entry_id=str(entry_id), history=True)
        return Response({"results": ContextEntryOutput(versions, many=True, context=_at_now()).data})


class EntryBoostApi(EntryApi):
    @extend_schema(operation_id="contexts_entries_boost", summary="Raise an entry's importance, at most to 1 (needs write access)",
                   request=AmountInput, responses={200: ContextEntryOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        data = AmountInput(data=request.data)
        data.is_valid(raise_exception=True)
        entry = self.entry(self.context(context_id, "write"), entry_id)
        entry = contexts.entry_adjust_importance(entry=entry, delta=data.validated_data["amount"])
        return Response(ContextEntryOutput(entry).data)


class EntryReduceApi(EntryApi):
    @extend_schema(operation_id="contexts_entries_reduce", summary="Lower an entry's importance, at least to 0 (needs write access)",
                   request=AmountInput, responses={200: ContextEntryOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID, entry_id: uuid.UUID) -> Response:
        data = AmountInput(data=request.data)
        data.is_valid(raise_exception=True)
        entry = self.entry(self.context(context_id, "write"), entry_id)
        entry = contexts.entry_adjust_importance(entry=entry, delta=-data.validated_data["amount"])
        return Response(ContextEntryOutput(entry).data)


class EntrySearchApi(EntryApi):
    class InputSerializer(serializers.Serializer):
        query = StrictCharField(max_length=2000)
        limit = serializers.IntegerField(min_value=1, max_value=50, default=10)

    @extend_schema(operation_id="contexts_search",
                   summary="Search one context's live entries by meaning and keywords, fused (logged as a search)",
                   description="Each entry found counts a use. An archived context answers no hits.",
                   request=InputSerializer,
                   responses={200: inline_serializer("ContextSearch", {"results": ContextEntryHitOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, context_id: uuid.UUID) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        agent, context = calling_agent(request), self.context(context_id)
        query = data.validated_data["query"]
        # Logged here rather than by entry_search, which logs only the contexts that answered: a search
        # that finds nothing is still a read of this context.
        hits = contexts.entry_search(agent=agent, query=query, limit=data.validated_data["limit"], context=context,
                                     log=False)  # fmt: skip
        contexts.context_read(agent=agent, context=context, action=contexts.Action.SEARCH, query=query[:200],
                              entries=[str(hit.item.pk) for hit in hits])  # fmt: skip
        return Response({"results": ContextEntryHitOutput(hits, many=True, context=_at_now()).data})


urlpatterns: list[URLPattern] = [
    path("contexts/<uuid:context_id>/search", EntrySearchApi.as_view()),
    path("contexts/<uuid:context_id>/entries", by_method(get=EntryListApi, post=EntryCreateApi)),
    path(
        "contexts/<uuid:context_id>/entries/<uuid:entry_id>",
        by_method(get=EntryReadApi, patch=EntryUpdateApi, delete=EntryDeleteApi),
    ),
    path("contexts/<uuid:context_id>/entries/<uuid:entry_id>/history", EntryHistoryApi.as_view()),
    path("contexts/<uuid:context_id>/entries/<uuid:entry_id>/boost", EntryBoostApi.as_view()),
    path("contexts/<uuid:context_id>/entries/<uuid:entry_id>/reduce", EntryReduceApi.as_view()),
]
