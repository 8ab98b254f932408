"""The tiers router over HTTP: read / write by tier (or auto-routed), semantic search over long-term
memory, consolidate a session, stats across tiers. The routing rule is in episodic.services.tiers."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from episodic.api.common import serialized
from episodic.models import ContextEntry, ShortTermMemory
from episodic.selectors.tiers import tier_stats
from episodic.services import tiers
from memory_site.api.authentication import HasApiKey, calling_agent
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput, list_response
from memory_site.api.schema import ERROR_RESPONSES

MESSAGE_KEY_NOT_FOUND = "No tier holds this key."
MESSAGE_NEEDS_SESSION = tiers.MESSAGE_NEEDS_SESSION
MESSAGE_BAD_TYPE = "memory_type does not fit the tier."

TIER_CHOICES = list(tiers.TIERS)


class _TierApi(APIView):
    permission_classes = [HasApiKey]


class Keyed(serializers.Serializer):
    key = StrictCharField(max_length=256)
    tier = serializers.ChoiceField(choices=TIER_CHOICES, required=False, help_text="Omit to auto-route.")
    session_id = StrictCharField(max_length=256, required=False)


class FoundOutput(serializers.Serializer):
    tier = serializers.ChoiceField(choices=TIER_CHOICES)
    key = serializers.CharField()
    value = serializers.JSONField()


class TierWriteApi(_TierApi):
    class InputSerializer(Keyed):
        value = serializers.JSONField()
        ttl_seconds = serializers.IntegerField(min_value=1, max_value=30 * 86400, required=False)
        memory_type = serializers.ChoiceField(
            choices=sorted({*ShortTermMemory.Type.values, *ContextEntry.EntryType.values}),
            required=False,
            help_text="short_term: the entry's type; long_term: the entry type.",
        )

    class OutputSerializer(serializers.Serializer):
        tier = serializers.ChoiceField(choices=TIER_CHOICES, help_text="The tier written to.")
        key = serializers.CharField()

    @extend_schema(
        summary="Write to a memory tier (auto-routed when tier is omitted)",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields: dict[str, Any] = dict(data.validated_data)
        chosen = tiers.route_write(
            tier=fields.get("tier"), session_id=fields.get("session_id"), ttl_seconds=fields.get("ttl_seconds")
        )
        memory_type = fields.get("memory_type")
        allowed = {"short_term": ShortTermMemory.Type.values, "long_term": ContextEntry.EntryType.values}
        if memory_type is not None and memory_type not in allowed.get(chosen, []):
            raise ValidationError({"memory_type": [MESSAGE_BAD_TYPE]})
        fields["tier"] = chosen
        tier = tiers.tier_write(agent=calling_agent(request), **fields)
        return Response({"tier": tier, "key": fields["key"]})


class TierReadApi(_TierApi):
    class InputSerializer(Keyed):
        pass

    @extend_schema(
        summary="Read a key from a memory tier (the fastest tier holding it when tier is omitted)",
        request=InputSerializer,
        responses={200: FoundOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        found = tiers.tier_read(agent=calling_agent(request), **data.validated_data)
        if found is None:
            raise NotFound(MESSAGE_KEY_NOT_FOUND)
        return Response({"tier": found.tier, "key": found.key, "value": found.value})


class LongTermHit(serializers.Serializer):
    id = serializers.UUIDField(source="item.pk")
    context_id = serializers.UUIDField(source="item.context_id")
    key = serializers.CharField(source="item.key")
    content = serializers.CharField(source="item.content")
    entry_type = serializers.CharField(source="item.entry_type")
    importance = serializers.FloatField(source="item.importance")
    score = serializers.FloatField()
    similarity = serializers.FloatField(allow_null=True)
    keyword = serializers.FloatField()


class TierSearchApi(_TierApi):
    class InputSerializer(serializers.Serializer):
        query = StrictCharField(max_length=2000)
        limit = serializers.IntegerField(min_value=1, max_value=50, default=10)

    class OutputSerializer(ListOutput):
        results = LongTermHit(many=True)

    @extend_schema(
        summary="Semantic search over long-term memory",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hits = tiers.tier_search(agent=calling_agent(request), **data.validated_data)
        return list_response(request, serialized(LongTermHit, hits))


class TierConsolidateApi(_TierApi):
    class InputSerializer(serializers.Serializer):
        session_id = StrictCharField(max_length=256)

    class OutputSerializer(serializers.Serializer):
        promoted = serializers.IntegerField(help_text="Short-term entries now in long-term memory.")
        deleted = serializers.IntegerField(help_text="Expired short-term entries read too few times.")

    @extend_schema(
        summary="Consolidate a session now: promote short-term entries read 3+ times to long-term",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(tiers.tier_consolidate(agent=calling_agent(request), **data.validated_data))


class TierStatsApi(_TierApi):
    class OutputSerializer(serializers.Serializer):
        working = serializers.DictField(help_text="Sessions, fields and bytes; `available` false when Redis is down.")
        short_term = serializers.DictField(help_text="count, size_bytes, oldest, newest.")
        long_term = serializers.DictField(help_text="count, size_bytes, oldest, newest.")
        shared = serializers.DictField(help_text="count, size_bytes, oldest, newest.")

    @extend_schema(
        summary="Counts, sizes and oldest/newest per tier", responses={200: OutputSerializer, **ERROR_RESPONSES}
    )
    def get(self, request: Request) -> Response:
        return Response(tier_stats(agent=calling_agent(request)))
