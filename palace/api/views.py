"""Conversations in, and mining jobs. One class per operation."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.api.authentication import HasApiKey, request_agent, request_owner
from memory_site.api.fields import ConversationIdField, StrictCharField
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope
from palace import selectors
from palace.models import MiningJob, Turn
from palace.services import intake

# Bounds per request (README): more turns is a 400; a bigger body is a 413 (API_MAX_BODY_BYTES).
MAX_TURNS_PER_REQUEST = 1000
MAX_TURN_CHARACTERS = 100_000
MESSAGE_JOB_NOT_FOUND = "Job not found."


WRITE_CONFLICT = OpenApiResponse(
    ErrorEnvelope,
    description="Memory is paused (`extra.reason` `memory_paused`), or a conversation with this id exists",
)


class MiningAcceptedOutput(serializers.Serializer):
    job_id = serializers.UUIDField()
    conversation_id = StrictCharField()
    turns = serializers.IntegerField()
    mining = serializers.BooleanField()


class TurnInput(serializers.Serializer):
    role = serializers.ChoiceField(choices=Turn.Role.choices)
    content = StrictCharField(allow_blank=True, trim_whitespace=False, max_length=MAX_TURN_CHARACTERS)
    timestamp = serializers.DateTimeField(required=False, allow_null=True)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict) and not isinstance(data.get("content"), str) and "content" in data:
            raise serializers.ValidationError({"content": ["Must be a string."]})
        return super().to_internal_value(data)


def _turns_field(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=TurnInput(), max_length=MAX_TURNS_PER_REQUEST, **kwargs)


class ConversationApi(APIView):
    permission_classes = [HasApiKey]

    def accepted(self, job: MiningJob, conversation_id: str) -> Response:
        body = {
            "job_id": str(job.id),
            "conversation_id": conversation_id,
            "turns": job.conversation.turn_count,
            "mining": job.ready,
        }
        return Response(body, status=status.HTTP_202_ACCEPTED)


class ConversationCreateApi(ConversationApi):
    class InputSerializer(serializers.Serializer):
        conversation_id = ConversationIdField()
        title = StrictCharField(max_length=300, required=False, allow_blank=True, default="")
        user_id = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
        started_at = serializers.DateTimeField(required=False)
        turns = _turns_field(allow_empty=True)
        complete = serializers.BooleanField(default=False)

    @extend_schema(
        summary="Post a conversation (stored verbatim before the answer; mined in the background)",
        request=InputSerializer,
        responses={202: MiningAcceptedOutput, **ERROR_RESPONSES, 409: WRITE_CONFLICT},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        external_id = fields.pop("conversation_id")
        job = intake.conversation_create(
            owner=request_owner(request), agent=request_agent(request), external_id=external_id, **fields
        )
        return self.accepted(job, external_id)


class ConversationAppendApi(ConversationApi):
    class InputSerializer(serializers.Serializer):
        turns = _turns_field(allow_empty=False)

    @extend_schema(
        summary="Append turns to a conversation",
        request=InputSerializer,
        responses={202: MiningAcceptedOutput, **ERROR_RESPONSES, 409: WRITE_CONFLICT},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        job = intake.conversation_append(
            owner=request_owner(request), external_id=conversation_id, turns=data.validated_data["turns"]
        )
        return self.accepted(job, conversation_id)


class ConversationCompleteApi(ConversationApi):
    @extend_schema(
        summary="Mark a conversation complete (mines it when auto-mine is on)",
        request=None,
        responses={202: MiningAcceptedOutput, **ERROR_RESPONSES, 409: WRITE_CONFLICT},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        return self.accepted(
            intake.conversation_complete(owner=request_owner(request), external_id=conversation_id), conversation_id
        )


class ConversationMineApi(ConversationApi):
    @extend_schema(
        summary="Ask for a conversation to be mined now",
        request=None,
        responses={202: MiningAcceptedOutput, **ERROR_RESPONSES, 409: WRITE_CONFLICT},
    )
    def post(self, request: Request, conversation_id: str) -> Response:
        job = intake.conversation_request_mining(owner=request_owner(request), external_id=conversation_id)
        return self.accepted(job, conversation_id)


class JobGetApi(APIView):
    class OutputSerializer(serializers.ModelSerializer):
        job_id = serializers.UUIDField(source="id")
        conversation_id = StrictCharField(source="conversation.external_id")
        mining = serializers.BooleanField(
            source="ready",
            help_text="false: the job waits for the conversation to be completed (or for …/mine); it stays queued.",
        )

        class Meta:
            model = MiningJob
            fields = [
                "job_id",
                "conversation_id",
                "status",
                "mining",
                "counts",
                "error",
                "attempts",
                "requested_at",
                "started_at",
                "finished_at",
            ]

    @extend_schema(summary="A mining job's status and counts", responses={200: OutputSerializer, **ERROR_RESPONSES})
    def get(self, request: Request, job_id: str) -> Response:
        try:
            job = selectors.job_get(owner=request_owner(request), job_id=uuid.UUID(job_id))
        except ValueError:
            job = None
        if job is None:
            raise NotFound(MESSAGE_JOB_NOT_FOUND)
        return Response(self.OutputSerializer(job).data)
