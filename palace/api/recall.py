"""Recall and context assembly: what an agent calls before each LLM call."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.api.authentication import HasApiKey, request_agent, request_owner
from memory_site.api.fields import ConversationIdField, NoUnknownFields, StrictCharField
from memory_site.api.schema import ERROR_RESPONSES
from palace import assembly
from palace.models import Drawer, DrawerRead
from palace.recall import Filters, Hit, recall
from palace.services.reads import drawer_reads_push

MAX_QUERY_CHARACTERS = 4000


def _drawer(drawer: Drawer, tz: ZoneInfo) -> dict[str, Any]:
    return {
        "drawer_id": drawer.pk,
        "pointer": drawer.aaak or None,
        "role": drawer.role,
        "content": drawer.content,
        "occurred_at": drawer.occurred_at.isoformat(),
        "date": drawer.occurred_at.astimezone(tz).date().isoformat(),
    }


def hit_json(hit: Hit, tz: ZoneInfo) -> dict[str, Any]:
    drawer = hit.drawer
    room = None if hit.pending else drawer.room
    return {
        **_drawer(drawer, tz),
        "pending": hit.pending,
        "wing": {"id": room.wing_id, "name": room.wing.name} if room is not None else None,
        "room": {"id": room.pk, "number": room.number, "title": room.title} if room is not None else None,
        "conversation_id": drawer.conversation.external_id,
        "tags": drawer.tags,
        "score": hit.score,
        "signals": hit.signals,
        "partner": _drawer(hit.partner, tz) if hit.partner is not None else None,
    }


class RecallDrawerOutput(serializers.Serializer):
    drawer_id = serializers.IntegerField(allow_null=True, help_text="null for a pending turn (not filed yet).")
    pointer = StrictCharField(allow_null=True, help_text="AAAK pointer, e.g. § W-042/R-11/D-007; null if pending")
    role = StrictCharField()
    content = StrictCharField(help_text="Verbatim.")
    occurred_at = serializers.DateTimeField(help_text="When it happened (not when it was recorded).")
    date = serializers.DateField(help_text="occurred_at's date in the owner's timezone.")


class RecallWingOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = StrictCharField()


class RecallRoomOutput(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    title = StrictCharField()


class RecallHitOutput(RecallDrawerOutput):
    pending = serializers.BooleanField(
        help_text="Posted but not filed by the miner yet: found by its words (and meaning, with the local "
        "embedder); no drawer id, pointer, wing or room until it is filed, seconds later."
    )
    wing = RecallWingOutput(allow_null=True)
    room = RecallRoomOutput(allow_null=True)
    conversation_id = StrictCharField()
    tags = serializers.DictField()
    score = serializers.FloatField(help_text="sum of RECALL_WEIGHTS[signal] * signals[signal]")
    signals = serializers.DictField(
        child=serializers.FloatField(),
        help_text="semantic, keyword, temporal, preference, pinned, speaker, entity (0..1); rerank if used",
    )
    partner = RecallDrawerOutput(allow_null=True, help_text="The other turn of a question/answer pair.")


class RecallOutput(serializers.Serializer):
    query = StrictCharField()
    top_k = serializers.IntegerField()
    reference_time = serializers.DateTimeField()
    when = serializers.DictField(allow_null=True, help_text="The time the query is about, as read; null if none.")
    results = RecallHitOutput(many=True)
    memory_context = StrictCharField(help_text="The <memory_context> block; empty when nothing was recalled.")
    skipped = StrictCharField(allow_null=True, help_text="memory_disabled or recall_disabled")
    degraded = serializers.ListField(child=StrictCharField())
    weights = serializers.DictField(child=serializers.FloatField())
    rerank = serializers.DictField()
    timings_ms = serializers.DictField(child=serializers.FloatField())


class ContextPieceOutput(serializers.Serializer):
    # A declared field leaves the class namespace (DRF's metaclass), so `source` does not shadow Field.source.
    source = StrictCharField(help_text="The layer it came from.")  # type: ignore[assignment]
    ref = StrictCharField(help_text="Its id or pointer in that layer.")
    text = StrictCharField()
    relevance = serializers.FloatField()
    score = serializers.FloatField(help_text="relevance weighted by recency")
    occurred_at = serializers.DateTimeField(allow_null=True)
    tokens = serializers.IntegerField()


class AssembledContextOutput(serializers.Serializer):
    memory_context = StrictCharField(help_text="Empty when nothing was found.")
    pieces = ContextPieceOutput(many=True)
    tokens = serializers.IntegerField()
    token_budget = serializers.IntegerField()
    token_counter = StrictCharField()
    degraded = serializers.ListField(child=StrictCharField())
    skipped = StrictCharField(allow_null=True)
    dropped = serializers.DictField(child=serializers.IntegerField())


class RecallApi(APIView):
    permission_classes = [HasApiKey]

    class InputSerializer(NoUnknownFields):
        query = StrictCharField(max_length=MAX_QUERY_CHARACTERS)
        top_k = serializers.IntegerField(min_value=1, max_value=50, required=False)
        wing = serializers.IntegerField(min_value=1, required=False, help_text="Only this wing's (and linked) rooms.")
        room = serializers.IntegerField(min_value=1, required=False)
        agent = serializers.UUIDField(required=False, help_text="Only conversations this agent posted.")
        since = serializers.DateTimeField(required=False)
        until = serializers.DateTimeField(required=False)
        reference_time = serializers.DateTimeField(required=False, help_text="Default: now.")
        use_rerank = serializers.BooleanField(required=False, help_text="Default: the owner's setting.")

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if attrs.get("since") and attrs.get("until") and attrs["since"] >= attrs["until"]:
                raise serializers.ValidationError({"until": ["Must be after since."]})
            return attrs

    @extend_schema(
        summary="Recall: the drawers that matter for a query, why, and the <memory_context> block",
        request=InputSerializer,
        responses={200: RecallOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        owner = request_owner(request)
        reference: datetime = fields.get("reference_time") or datetime.now().astimezone()
        result = recall(
            owner=owner,
            query=fields["query"],
            top_k=fields.get("top_k"),
            agent=request_agent(request),
            filters=Filters(
                wing_id=fields.get("wing"),
                room_id=fields.get("room"),
                agent_id=fields.get("agent"),
                since=fields.get("since"),
                until=fields.get("until"),
            ),
            reference_time=reference,
            use_rerank=fields.get("use_rerank"),
        )
        received = [hit.drawer.pk for hit in result.hits if not hit.pending]
        received += [hit.partner.pk for hit in result.hits if hit.partner is not None]
        drawer_reads_push(
            agent=request_agent(request), source=DrawerRead.Source.RECALL, query=fields["query"], drawer_ids=received
        )
        tz = ZoneInfo(result.timezone)
        return Response(
            {
                "query": fields["query"],
                "top_k": result.top_k,
                "reference_time": reference.astimezone(tz).isoformat(),
                "when": result.when,
                "results": [hit_json(hit, tz) for hit in result.hits],
                "memory_context": result.memory_context,
                "skipped": result.skipped,
                "degraded": result.degraded,
                "weights": settings.RECALL_WEIGHTS,
                "rerank": result.rerank,
                "timings_ms": result.timings,
            }
        )


class ContextAssembleApi(APIView):
    permission_classes = [HasApiKey]

    class InputSerializer(NoUnknownFields):
        query = StrictCharField(max_length=MAX_QUERY_CHARACTERS)
        conversation_id = ConversationIdField(required=False, help_text="Its working memory is included.")
        token_budget = serializers.IntegerField(
            min_value=50, max_value=32000, required=False, help_text="Default CONTEXT_TOKEN_BUDGET."
        )
        per_layer = serializers.IntegerField(
            min_value=1, max_value=50, required=False, default=5, help_text="Candidates taken from each layer."
        )
        layers = serializers.ListField(
            child=serializers.ChoiceField(choices=assembly.layer_names()), required=False, allow_empty=False
        )
        reference_time = serializers.DateTimeField(required=False)

    @extend_schema(
        summary="Context assembly: every memory layer, deduplicated, ranked and fitted to a token budget",
        request=InputSerializer,
        responses={200: AssembledContextOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        agent = request_agent(request)
        assembled = assembly.assemble(
            owner=request_owner(request),
            agent=agent,
            query=fields["query"],
            conversation_id=fields.get("conversation_id"),
            token_budget=fields.get("token_budget") or settings.CONTEXT_TOKEN_BUDGET,
            per_layer=fields["per_layer"],
            layers=fields.get("layers"),
            reference_time=fields.get("reference_time"),
        )
        drawer_reads_push(
            agent=agent,
            source=DrawerRead.Source.CONTEXT,
            query=fields["query"],
            drawer_ids=[piece.drawer_id for piece in assembled.pieces if piece.drawer_id is not None],
        )
        return Response(assembled.as_json())
