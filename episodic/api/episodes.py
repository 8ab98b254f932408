"""Episodes over HTTP (one class per operation): store, propose, list, search, read, forget. The
reference services' paths for episodes are in episodic/api/compat.py."""

from __future__ import annotations

import uuid
from typing import ClassVar

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from episodic.api.common import serialized
from episodic.models import Episode
from episodic.selectors import episodes as selectors
from episodic.services import episodes as services
from memory_site.api.authentication import HasApiKey, calling_agent, request_owner
from memory_site.api.fields import ConversationIdField, StrictCharField
from memory_site.api.lists import ListOutput, list_response, offset_field
from memory_site.api.schema import ERROR_RESPONSES
from palace.api.forget import ReceiptEnvelope, forget_and_answer

MESSAGE_EPISODE_NOT_FOUND = "Episode not found."


# --- shapes -------------------------------------------------------------------------------------------


class EpisodeOutput(serializers.ModelSerializer):
    type = StrictCharField(source="episode_type")
    agent_id = serializers.UUIDField(allow_null=True)
    has_embedding = serializers.SerializerMethodField()

    class Meta:
        model = Episode
        fields = [
            "id",
            "conversation_id",
            "agent_id",
            "user_id",
            "summary",
            "keywords",
            "topic",
            "importance",
            "type",
            "metadata",
            "occurred_at",
            "expires_at",
            "has_embedding",
            "created_at",
        ]

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


class EpisodeApi(APIView):
    not_found_message: ClassVar[str] = MESSAGE_EPISODE_NOT_FOUND

    def episode(self, episode_id: uuid.UUID) -> Episode:
        episode = selectors.episode_get(owner=request_owner(self.request), episode_id=episode_id)
        if episode is None:
            raise NotFound(MESSAGE_EPISODE_NOT_FOUND)
        return episode


# --- operations ---------------------------------------------------------------------------------------


class EpisodeStoreApi(EpisodeApi):
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

    @extend_schema(
        summary="Store an episode (a conversation's summary)",
        request=InputSerializer,
        responses={201: EpisodeOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        fields["episode_type"] = fields.pop("type")
        episode = services.episode_store(owner=request_owner(request), agent=calling_agent(request), **fields)
        return Response(EpisodeOutput(episode).data, status=status.HTTP_201_CREATED)


class EpisodeListApi(EpisodeApi):
    class InputSerializer(EpisodeFilters):
        limit = serializers.IntegerField(min_value=1, max_value=100, default=20)
        offset = offset_field()

    class OutputSerializer(ListOutput):
        results = EpisodeOutput(many=True)

    @extend_schema(
        operation_id="episodes_list",
        summary="Recent episodes (newest first)",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        filters = dict(data.validated_data)
        limit, offset = filters.pop("limit"), filters.pop("offset")
        owner = request_owner(request)
        episodes = selectors.episode_recent(owner=owner, limit=limit, offset=offset, **filters)
        return list_response(
            request,
            serialized(EpisodeOutput, episodes),
            count=selectors.episode_count(owner=owner, **filters),
            limit=limit,
            offset=offset,
        )


class EpisodeSearchApi(EpisodeApi):
    class InputSerializer(EpisodeFilters):
        query = StrictCharField(max_length=2000)
        limit = serializers.IntegerField(min_value=1, max_value=50, default=10)
        min_similarity = serializers.FloatField(min_value=-1, max_value=1, required=False)

    class OutputSerializer(ListOutput):
        results = EpisodeHitOutput(many=True)

    @extend_schema(
        summary="Search episodes by meaning and keywords (fused)",
        request=InputSerializer,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hits = selectors.episode_search(owner=request_owner(request), **data.validated_data)
        return list_response(request, serialized(EpisodeHitOutput, hits))


class EpisodeByConversationApi(EpisodeApi):
    class OutputSerializer(ListOutput):
        results = EpisodeOutput(many=True)

    @extend_schema(summary="Episodes of one conversation", responses={200: OutputSerializer, **ERROR_RESPONSES})
    def get(self, request: Request, conversation_id: str) -> Response:
        episodes = selectors.episodes_by_conversation(owner=request_owner(request), conversation_id=conversation_id)
        return list_response(request, serialized(EpisodeOutput, episodes))


class EpisodeGetApi(EpisodeApi):
    @extend_schema(summary="One episode", responses={200: EpisodeOutput, **ERROR_RESPONSES})
    def get(self, request: Request, episode_id: uuid.UUID) -> Response:
        return Response(EpisodeOutput(self.episode(episode_id)).data)


class EpisodeDeleteApi(EpisodeApi):
    @extend_schema(summary="Forget one episode, with a receipt", responses={200: ReceiptEnvelope, **ERROR_RESPONSES})
    def delete(self, request: Request, episode_id: uuid.UUID) -> Response:
        return forget_and_answer(request, "episode", [self.episode(episode_id).pk])


class EpisodeProposeApi(EpisodeApi):
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
        summarizer = StrictCharField(
            help_text="llm, extractive, extractive (budget) when the owner is over budget, or empty when skipped."
        )
        episode = EpisodeOutput(allow_null=True)

    @extend_schema(
        summary="Propose a transcript: the heuristic rules decide whether it becomes an episode",
        request=InputSerializer,
        responses={200: OutputSerializer, 201: OutputSerializer, **ERROR_RESPONSES},
    )
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
