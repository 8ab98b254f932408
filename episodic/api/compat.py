"""The reference services' paths (seeds 000, 001, 004) for episodes and typed memories, in their own
shapes, over the same services and selectors as /api/v1/ (DESIGN §5.10)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from episodic.api.episodes import EpisodeMetadata
from episodic.api.typed_memories import TypedHitOutput, TypedMemoryApi, TypedMemoryOutput, TypedQueryInput
from episodic.models import Episode
from episodic.selectors import episodes as selectors
from episodic.selectors.search import Hit
from episodic.services import episodes as services
from episodic.services import typed_memories as typed_services
from memory_site.api.authentication import HasApiKey, calling_agent, request_owner
from memory_site.api.fields import ConversationIdField, StrictCharField
from memory_site.api.schema import ERROR_RESPONSES

# --- the reference memory service: episodes ---------------------------------------------------------------------------


class CompatEpisodeOutput(serializers.Serializer):
    """The shape of `_compat_result` (the schema's; the dict is the reference service's, to the letter)."""

    id = serializers.UUIDField()
    summary = serializers.CharField()
    similarity = serializers.FloatField(allow_null=True)
    keyword_score = serializers.FloatField()
    conversation_id = serializers.CharField()
    agent_id = serializers.UUIDField(allow_null=True)
    user_id = serializers.CharField()
    metadata = serializers.DictField()
    created_at = serializers.DateTimeField(help_text="When the conversation happened.")


class CompatEpisodeListOutput(serializers.Serializer):
    results = CompatEpisodeOutput(many=True)


def _compat_result(hit: Hit[Episode]) -> dict[str, Any]:
    episode = hit.item
    return {
        "id": str(episode.id),
        "summary": episode.summary,
        "similarity": hit.similarity,
        "keyword_score": hit.keyword,
        "conversation_id": episode.conversation_id,
        "agent_id": str(episode.agent_id) if episode.agent_id else None,
        "user_id": episode.user_id,
        "metadata": episode.metadata,
        "created_at": episode.occurred_at.isoformat(),
    }


class CompatEpisodicStoreApi(APIView):
    """Seed 000: POST /episodic/store."""

    permission_classes = [HasApiKey]

    class InputSerializer(serializers.Serializer):
        conversation_id = ConversationIdField()
        summary = StrictCharField(max_length=20_000)
        user_id = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
        metadata = EpisodeMetadata(required=False)

    class OutputSerializer(serializers.Serializer):
        id = serializers.UUIDField()
        status = StrictCharField()

    @extend_schema(
        summary="Store an episode (reference shape)",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        episode = services.episode_store(
            owner=request_owner(request), agent=calling_agent(request), **data.validated_data
        )
        return Response({"id": str(episode.id), "status": "stored"})


class CompatEpisodicSearchApi(APIView):
    """Seed 000: POST /episodic/search."""

    class InputSerializer(serializers.Serializer):
        query = StrictCharField(max_length=2000)
        top_k = serializers.IntegerField(min_value=1, max_value=50, default=5)
        agent_id = StrictCharField(max_length=100, required=False, help_text="An agent's id or name.")
        user_id = StrictCharField(max_length=200, required=False)

    @extend_schema(
        summary="Search episodes (reference shape)",
        request=InputSerializer,
        responses={200: CompatEpisodeListOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        owner = request_owner(request)
        filters: dict[str, Any] = {}
        if data.validated_data.get("agent_id"):
            agent = selectors.agent_by_id_or_name(owner=owner, value=data.validated_data["agent_id"])
            if agent is None:
                return Response({"results": []})
            filters["agent_id"] = agent.id
        if data.validated_data.get("user_id"):
            filters["user_id"] = data.validated_data["user_id"]
        hits = selectors.episode_search(
            owner=owner, query=data.validated_data["query"], limit=data.validated_data["top_k"], **filters
        )
        return Response({"results": [_compat_result(hit) for hit in hits]})


class CompatEpisodicConversationApi(APIView):
    """Seed 000: GET /episodic/{conversation_id}."""

    @extend_schema(
        summary="Episodes of a conversation (reference shape)",
        responses={200: CompatEpisodeListOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        episodes = selectors.episodes_by_conversation(owner=request_owner(request), conversation_id=conversation_id)
        hits = [Hit(item=episode, score=0, similarity=None, keyword=0) for episode in episodes]
        return Response({"results": [_compat_result(hit) for hit in hits]})


# --- the three-tier reference: episodes -------------------------------------------------------------------------------


class AgtosEpisodeOutput(serializers.Serializer):
    id = serializers.UUIDField()
    summary = serializers.CharField()
    keywords = serializers.ListField(child=serializers.CharField())
    topic = serializers.CharField()
    timestamp = serializers.IntegerField(help_text="Milliseconds since the epoch.")
    importance = serializers.FloatField()
    type = serializers.CharField()


class AgtosEpisodesOutput(serializers.Serializer):
    episodes = AgtosEpisodeOutput(many=True)
    count = serializers.IntegerField()
    available = serializers.BooleanField()


def _agtos_episode(episode: Episode) -> dict[str, Any]:
    return {
        "id": str(episode.id),
        "summary": episode.summary,
        "keywords": episode.keywords,
        "topic": episode.topic,
        "timestamp": int(episode.occurred_at.timestamp() * 1000),
        "importance": episode.importance,
        "type": episode.episode_type,
    }


class CompatAgtosEpisodesApi(APIView):
    """Seed 004: GET /api/memory/episodes?limit=."""

    class InputSerializer(serializers.Serializer):
        limit = serializers.IntegerField(min_value=1, max_value=100, default=20)

    @extend_schema(
        summary="Recent episodes (reference shape)",
        parameters=[InputSerializer],
        responses={200: AgtosEpisodesOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        episodes = selectors.episode_recent(owner=request_owner(request), limit=data.validated_data["limit"])
        return Response({"episodes": [_agtos_episode(e) for e in episodes], "count": len(episodes), "available": True})


class CompatAgtosSearchApi(APIView):
    """Seed 004: GET /api/memory/search?q=&limit=."""

    class InputSerializer(serializers.Serializer):
        q = StrictCharField(max_length=2000)
        limit = serializers.IntegerField(min_value=1, max_value=50, default=10)

    @extend_schema(
        summary="Search episodes (reference shape)",
        parameters=[InputSerializer],
        responses={200: AgtosEpisodesOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        hits = selectors.episode_search(
            owner=request_owner(request), query=data.validated_data["q"], limit=data.validated_data["limit"]
        )
        return Response({"episodes": [_agtos_episode(h.item) for h in hits], "count": len(hits), "available": True})


# --- the typed-memory reference: typed memories (creating one is the /api/v1/ operation itself) -----------------------


class CompatTypedMemoryQueryApi(TypedMemoryApi):
    """Seed 001: POST /memories/query and /memories/typed/query."""

    class OutputSerializer(serializers.Serializer):
        results = TypedHitOutput(many=True)

    @extend_schema(
        summary="Query typed memories across chosen types (reference shape)",
        request=TypedQueryInput,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = TypedQueryInput(data=request.data)
        data.is_valid(raise_exception=True)
        hits = typed_services.typed_memory_query(agent=calling_agent(request), **data.validated_data)
        return Response({"results": TypedHitOutput(hits, many=True).data})


class CompatTypedSessionTimelineApi(TypedMemoryApi):
    """Seed 001: GET /memories/typed/episodic/session/{session_id}."""

    class OutputSerializer(serializers.Serializer):
        session_id = StrictCharField()
        results = TypedMemoryOutput(many=True)

    @extend_schema(
        summary="A session's episodic memories, in sequence order (reference shape)",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, session_id: str) -> Response:
        memories = typed_services.typed_memory_session_timeline(agent=calling_agent(request), session_id=session_id)
        return Response({"session_id": session_id, "results": TypedMemoryOutput(memories, many=True).data})


class CompatTypedEntityFactsApi(TypedMemoryApi):
    """Seed 001: GET /memories/typed/semantic/entity/{entity_id}."""

    class OutputSerializer(serializers.Serializer):
        entity_id = StrictCharField()
        results = TypedMemoryOutput(many=True)

    @extend_schema(
        summary="All semantic memories of an entity (reference shape)",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, entity_id: str) -> Response:
        memories = typed_services.typed_memory_entity_facts(agent=calling_agent(request), entity_id=entity_id)
        return Response({"entity_id": entity_id, "results": TypedMemoryOutput(memories, many=True).data})
