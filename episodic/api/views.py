"""Episodes and typed memories over HTTP (one class per operation), plus the reference services'
paths (seeds 000, 001, 004), which call the same services and selectors."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors as account_selectors
from accounts.models import Agent
from episodic import selectors, services
from episodic.models import Episode, TypedMemory
from memory_site.api.authentication import HasApiKey, calling_agent, request_owner
from memory_site.api.fields import ConversationIdField, StrictCharField
from memory_site.api.schema import ERROR_RESPONSES

MESSAGE_EPISODE_NOT_FOUND = "Episode not found."
MESSAGE_MEMORY_NOT_FOUND = "Memory not found."


# --- shapes -------------------------------------------------------------------------------------------


class EpisodeOutput(serializers.ModelSerializer):
    type = StrictCharField(source="episode_type")
    agent_id = serializers.UUIDField(allow_null=True)
    has_embedding = serializers.SerializerMethodField()

    class Meta:
        model = Episode
        fields = ["id", "conversation_id", "agent_id", "user_id", "summary", "keywords", "topic", "importance", "type",
                  "metadata", "occurred_at", "expires_at", "has_embedding", "created_at"]  # fmt: skip

    def get_has_embedding(self, obj: Episode) -> bool:
        return obj.embedding is not None


class EpisodeHitOutput(serializers.Serializer):
    episode = EpisodeOutput(source="item")
    score = serializers.FloatField(help_text="Reciprocal-rank fusion of the two signals.")
    similarity = serializers.FloatField(allow_null=True, help_text="Cosine similarity to the query.")
    keyword = serializers.FloatField(help_text="Full-text rank (0: the words do not match).")


class EpisodeMetadata(serializers.Serializer):
    key_decisions = serializers.ListField(child=StrictCharField(), required=False)
    entities = serializers.ListField(child=serializers.JSONField(), required=False)
    tools = serializers.ListField(child=StrictCharField(), required=False)


class EpisodeFilters(serializers.Serializer):
    agent_id = serializers.UUIDField(required=False)
    user_id = StrictCharField(required=False, max_length=200)
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)


class Turn(serializers.Serializer):
    role = serializers.ChoiceField(choices=["user", "assistant", "system", "tool"])
    content = StrictCharField(allow_blank=True, trim_whitespace=False, max_length=100_000)


# --- episodes -----------------------------------------------------------------------------------------


class EpisodeStoreApi(APIView):
    permission_classes = [HasApiKey]

    class InputSerializer(serializers.Serializer):
        conversation_id = ConversationIdField()
        summary = StrictCharField(max_length=20_000)
        keywords = serializers.ListField(child=StrictCharField(max_length=100), required=False, max_length=50)
        topic = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
        importance = serializers.FloatField(min_value=0, max_value=1, default=0.5)
        type = serializers.ChoiceField(choices=Episode.Type.choices, default=Episode.Type.CONVERSATION)
        metadata = EpisodeMetadata(required=False)
        user_id = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
        occurred_at = serializers.DateTimeField(required=False)
        ttl_seconds = serializers.IntegerField(min_value=60, max_value=10 * 365 * 86400, required=False)

    @extend_schema(summary="Store an episode (a conversation's summary)", request=InputSerializer,
                   responses={201: EpisodeOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        fields["episode_type"] = fields.pop("type")
        episode = services.episode_store(owner=request_owner(request), agent=calling_agent(request), **fields)
        return Response(EpisodeOutput(episode).data, status=status.HTTP_201_CREATED)


class EpisodeListApi(APIView):
    class InputSerializer(EpisodeFilters):
        limit = serializers.IntegerField(min_value=1, max_value=100, default=20)
        offset = serializers.IntegerField(min_value=0, default=0, help_text="Skip this many (newest first).")

    @extend_schema(operation_id="episodes_list", summary="Recent episodes (newest first)", parameters=[InputSerializer],
                   responses={200: inline_serializer("EpisodeList", {"results": EpisodeOutput(many=True), "count": serializers.IntegerField()}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        filters = dict(data.validated_data)
        limit, offset = filters.pop("limit"), filters.pop("offset")
        owner = request_owner(request)
        episodes = selectors.episode_recent(owner=owner, limit=limit, offset=offset, **filters)
        return Response(
            {
                "results": EpisodeOutput(episodes, many=True).data,
                "count": selectors.episode_count(owner=owner, **filters),
            }
        )


class EpisodeSearchApi(APIView):
    class InputSerializer(EpisodeFilters):
        query = StrictCharField(max_length=2000)
        limit = serializers.IntegerField(min_value=1, max_value=50, default=10)
        min_similarity = serializers.FloatField(min_value=-1, max_value=1, required=False)

    @extend_schema(summary="Search episodes by meaning and keywords (fused)", request=InputSerializer,
                   responses={200: inline_serializer("EpisodeSearch", {"results": EpisodeHitOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hits = selectors.episode_search(owner=request_owner(request), **data.validated_data)
        return Response({"results": EpisodeHitOutput(hits, many=True).data})


class EpisodeByConversationApi(APIView):
    @extend_schema(summary="Episodes of one conversation",
                   responses={200: inline_serializer("EpisodesOfConversation", {"results": EpisodeOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, conversation_id: str) -> Response:
        episodes = selectors.episodes_by_conversation(owner=request_owner(request), conversation_id=conversation_id)
        return Response({"results": EpisodeOutput(episodes, many=True).data})


def _episode(request: Request, episode_id: uuid.UUID) -> Episode:
    episode = selectors.episode_get(owner=request_owner(request), episode_id=episode_id)
    if episode is None:
        raise NotFound(MESSAGE_EPISODE_NOT_FOUND)
    return episode


class EpisodeGetApi(APIView):
    @extend_schema(summary="One episode", responses={200: EpisodeOutput, **ERROR_RESPONSES})
    def get(self, request: Request, episode_id: uuid.UUID) -> Response:
        return Response(EpisodeOutput(_episode(request, episode_id)).data)


class EpisodeDeleteApi(APIView):
    @extend_schema(summary="Forget one episode", responses={204: None, **ERROR_RESPONSES})
    def delete(self, request: Request, episode_id: uuid.UUID) -> Response:
        services.episode_delete(episode=_episode(request, episode_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class EpisodeProposeApi(APIView):
    permission_classes = [HasApiKey]

    class InputSerializer(serializers.Serializer):
        conversation_id = ConversationIdField()
        turns = serializers.ListField(child=Turn(), allow_empty=False, max_length=2000)
        user_id = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
        occurred_at = serializers.DateTimeField(required=False)
        metadata = EpisodeMetadata(required=False)

    class OutputSerializer(serializers.Serializer):
        decision = serializers.ChoiceField(choices=["saved", "skipped"])
        reason = StrictCharField()
        importance = serializers.FloatField()
        rules = serializers.ListField(child=StrictCharField(), help_text="The rules that matched.")
        summarizer = StrictCharField(help_text="llm, extractive, or empty when skipped.")
        episode = EpisodeOutput(allow_null=True)

    @extend_schema(summary="Propose a transcript: the heuristic rules decide whether it becomes an episode",
                   request=InputSerializer, responses={200: OutputSerializer, 201: OutputSerializer, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        proposal = services.episode_propose(
            owner=request_owner(request), agent=calling_agent(request), **data.validated_data
        )
        saved = proposal.episode is not None
        body = {
            "decision": "saved" if saved else "skipped",
            "reason": proposal.verdict.reason,
            "importance": proposal.verdict.importance,
            "rules": proposal.verdict.matched,
            "summarizer": proposal.summarizer,
            "episode": proposal.episode,
        }
        return Response(
            self.OutputSerializer(body).data, status=status.HTTP_201_CREATED if saved else status.HTTP_200_OK
        )


# --- typed memories -----------------------------------------------------------------------------------


class TypedMemoryOutput(serializers.ModelSerializer):
    agent_id = serializers.UUIDField()

    class Meta:
        model = TypedMemory
        fields = ["id", "memory_type", "content", "agent_id", "scope", "shared_with", "session_id", "sequence_number",
                  "entity_id", "steps", "trigger_conditions", "error_pattern", "severity", "source_trajectory_id",
                  "metadata", "access_count", "last_accessed_at", "created_at"]  # fmt: skip


class TypedHitOutput(serializers.Serializer):
    memory = TypedMemoryOutput(source="item")
    score = serializers.FloatField()
    similarity = serializers.FloatField(allow_null=True)
    keyword = serializers.FloatField()


class TypedMemoryCreateApi(APIView):
    permission_classes = [HasApiKey]

    class InputSerializer(serializers.Serializer):
        content = StrictCharField(max_length=20_000)
        scope = serializers.ChoiceField(choices=TypedMemory.Scope.choices, required=False)
        shared_with = serializers.ListField(child=serializers.UUIDField(), required=False, max_length=100)
        session_id = StrictCharField(max_length=64, required=False)
        sequence_number = serializers.IntegerField(required=False, min_value=0)
        entity_id = StrictCharField(max_length=128, required=False)
        steps = serializers.ListField(child=StrictCharField(max_length=2000), required=False, max_length=100)
        trigger_conditions = serializers.ListField(
            child=StrictCharField(max_length=2000), required=False, max_length=100
        )
        error_pattern = StrictCharField(max_length=200, required=False)
        severity = serializers.ChoiceField(choices=TypedMemory.Severity.choices, required=False)
        source_trajectory_id = StrictCharField(max_length=200, required=False)
        metadata = serializers.DictField(required=False)

    @extend_schema(summary="Create a typed memory", request=InputSerializer,
                   parameters=[OpenApiParameter("memory_type", str, OpenApiParameter.PATH, enum=TypedMemory.Type.values)],
                   responses={201: TypedMemoryOutput, **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request, memory_type: str) -> Response:
        if memory_type not in TypedMemory.Type.values:
            raise ValidationError(
                {"memory_type": [f"Unknown memory type {memory_type!r}; one of {', '.join(TypedMemory.Type.values)}."]}
            )
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        agent = calling_agent(request)
        shared_with = [str(agent_id) for agent_id in fields.pop("shared_with", [])]
        for agent_id in shared_with:
            if account_selectors.agent_get(owner=request_owner(request), agent_id=agent_id) is None:
                raise ValidationError({"shared_with": [f"Unknown agent {agent_id}."]})
        try:
            memory = services.typed_memory_create(
                owner=request_owner(request), agent=agent, memory_type=memory_type, shared_with=shared_with, **fields
            )
        except (services.MissingField, services.ForeignField, services.EmptyTeam) as exc:
            raise ValidationError({exc.field_name: [str(exc)]}) from None
        return Response(TypedMemoryOutput(memory).data, status=status.HTTP_201_CREATED)


class TypedQueryInput(serializers.Serializer):
    query = StrictCharField(max_length=2000)
    memory_types = serializers.ListField(child=serializers.ChoiceField(choices=TypedMemory.Type.values), required=False)
    top_k = serializers.IntegerField(min_value=1, max_value=50, default=10)


class TypedMemoryQueryApi(APIView):
    permission_classes = [HasApiKey]

    @extend_schema(summary="Query typed memories across chosen types", request=TypedQueryInput,
                   responses={200: inline_serializer("TypedQuery", {"results": TypedHitOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request) -> Response:
        data = TypedQueryInput(data=request.data)
        data.is_valid(raise_exception=True)
        hits = selectors.typed_query(agent=calling_agent(request), **data.validated_data)
        services.typed_memory_touch(ids=[hit.item.pk for hit in hits])
        return Response({"results": TypedHitOutput(hits, many=True).data})


class TypedSessionTimelineApi(APIView):
    permission_classes = [HasApiKey]

    @extend_schema(summary="A session's episodic memories, in sequence order",
                   responses={200: inline_serializer("SessionTimeline", {"session_id": StrictCharField(), "results": TypedMemoryOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, session_id: str) -> Response:
        memories = selectors.typed_session_timeline(agent=calling_agent(request), session_id=session_id)
        services.typed_memory_touch(ids=[m.pk for m in memories])
        return Response({"session_id": session_id, "results": TypedMemoryOutput(memories, many=True).data})


class TypedEntityFactsApi(APIView):
    permission_classes = [HasApiKey]

    @extend_schema(summary="All semantic memories of an entity",
                   responses={200: inline_serializer("EntityFacts", {"entity_id": StrictCharField(), "results": TypedMemoryOutput(many=True)}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, entity_id: str) -> Response:
        memories = selectors.typed_entity_facts(agent=calling_agent(request), entity_id=entity_id)
        services.typed_memory_touch(ids=[m.pk for m in memories])
        return Response({"entity_id": entity_id, "results": TypedMemoryOutput(memories, many=True).data})


def _visible_memory(request: Request, memory_id: uuid.UUID) -> TypedMemory:
    memory = selectors.typed_get(agent=calling_agent(request), memory_id=memory_id)
    if memory is None:
        raise NotFound(MESSAGE_MEMORY_NOT_FOUND)
    return memory


class TypedMemoryGetApi(APIView):
    permission_classes = [HasApiKey]

    @extend_schema(summary="One typed memory", responses={200: TypedMemoryOutput, **ERROR_RESPONSES})
    def get(self, request: Request, memory_id: uuid.UUID) -> Response:
        memory = _visible_memory(request, memory_id)
        services.typed_memory_touch(ids=[memory.pk])
        return Response(TypedMemoryOutput(memory).data)


class TypedMemoryDeleteApi(APIView):
    permission_classes = [HasApiKey]

    @extend_schema(operation_id="memories_delete", summary="Forget a typed memory (one the calling agent can see)",
                   responses={204: None, **ERROR_RESPONSES})  # fmt: skip
    def delete(self, request: Request, memory_id: uuid.UUID) -> Response:
        services.typed_memory_delete(memory=_visible_memory(request, memory_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- compatibility shapes -----------------------------------------------------------------------------


class CompatEpisodicStoreApi(APIView):
    """Seed 000: POST /episodic/store."""

    permission_classes = [HasApiKey]

    class InputSerializer(serializers.Serializer):
        conversation_id = ConversationIdField()
        summary = StrictCharField(max_length=20_000)
        user_id = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
        metadata = EpisodeMetadata(required=False)

    @extend_schema(summary="Store an episode (reference shape)", request=InputSerializer,
                   responses={200: inline_serializer("EpisodicStored", {"id": serializers.UUIDField(), "status": StrictCharField()}), **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        episode = services.episode_store(
            owner=request_owner(request), agent=calling_agent(request), **data.validated_data
        )
        return Response({"id": str(episode.id), "status": "stored"})


def _compat_result(hit: selectors.Hit[Episode]) -> dict[str, Any]:
    episode = hit.item
    return {"id": str(episode.id), "summary": episode.summary, "similarity": hit.similarity, "keyword_score": hit.keyword,
            "conversation_id": episode.conversation_id, "agent_id": str(episode.agent_id) if episode.agent_id else None,
            "user_id": episode.user_id, "metadata": episode.metadata, "created_at": episode.occurred_at.isoformat()}  # fmt: skip


class CompatEpisodicSearchApi(APIView):
    """Seed 000: POST /episodic/search."""

    class InputSerializer(serializers.Serializer):
        query = StrictCharField(max_length=2000)
        top_k = serializers.IntegerField(min_value=1, max_value=50, default=5)
        agent_id = StrictCharField(max_length=100, required=False, help_text="An agent's id or name.")
        user_id = StrictCharField(max_length=200, required=False)

    @extend_schema(summary="Search episodes (reference shape)", request=InputSerializer,
                   responses={200: inline_serializer("EpisodicSearchResults", {"results": serializers.ListField(child=serializers.DictField())}), **ERROR_RESPONSES})  # fmt: skip
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        owner = request_owner(request)
        filters: dict[str, Any] = {}
        if data.validated_data.get("agent_id"):
            agent = _agent_by_id_or_name(owner, data.validated_data["agent_id"])
            if agent is None:
                return Response({"results": []})
            filters["agent_id"] = agent.id
        if data.validated_data.get("user_id"):
            filters["user_id"] = data.validated_data["user_id"]
        hits = selectors.episode_search(
            owner=owner, query=data.validated_data["query"], limit=data.validated_data["top_k"], **filters
        )
        return Response({"results": [_compat_result(hit) for hit in hits]})


def _agent_by_id_or_name(owner: Any, value: str) -> Agent | None:
    agent = account_selectors.agent_get(owner=owner, agent_id=value)
    return agent or account_selectors.agent_list(owner=owner).filter(name=value).first()


class CompatEpisodicConversationApi(APIView):
    """Seed 000: GET /episodic/{conversation_id}."""

    @extend_schema(summary="Episodes of a conversation (reference shape)",
                   responses={200: inline_serializer("EpisodicConversation", {"results": serializers.ListField(child=serializers.DictField())}), **ERROR_RESPONSES})  # fmt: skip
    def get(self, request: Request, conversation_id: str) -> Response:
        episodes = selectors.episodes_by_conversation(owner=request_owner(request), conversation_id=conversation_id)
        return Response(
            {"results": [_compat_result(selectors.Hit(item=e, score=0, similarity=None, keyword=0)) for e in episodes]}
        )


def _agtos_episode(episode: Episode) -> dict[str, Any]:
    return {"id": str(episode.id), "summary": episode.summary, "keywords": episode.keywords, "topic": episode.topic,
            "timestamp": int(episode.occurred_at.timestamp() * 1000), "importance": episode.importance,
            "type": episode.episode_type}  # fmt: skip


_AgtosList = inline_serializer(
    "AgtosEpisodes",
    {
        "episodes": serializers.ListField(child=serializers.DictField()),
        "count": serializers.IntegerField(),
        "available": serializers.BooleanField(),
    },
)


class CompatAgtosEpisodesApi(APIView):
    """Seed 004: GET /api/memory/episodes?limit=."""

    class InputSerializer(serializers.Serializer):
        limit = serializers.IntegerField(min_value=1, max_value=100, default=20)

    @extend_schema(
        summary="Recent episodes (reference shape)",
        parameters=[InputSerializer],
        responses={200: _AgtosList, **ERROR_RESPONSES},
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
        responses={200: _AgtosList, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        hits = selectors.episode_search(
            owner=request_owner(request), query=data.validated_data["q"], limit=data.validated_data["limit"]
        )
        return Response({"episodes": [_agtos_episode(h.item) for h in hits], "count": len(hits), "available": True})
