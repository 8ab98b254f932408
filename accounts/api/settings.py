"""Settings → Memory over the API: the owner's memory settings and per-agent overrides."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.models import Agent, MemorySettings, validate_timezone
from memory_site.api.authentication import request_owner
from memory_site.api.fields import NoUnknownFields, StrictCharField
from memory_site.api.schema import ERROR_RESPONSES


class StrictBooleanField(serializers.BooleanField):
    """true or false only: DRF's BooleanField would take "yes", 1 or "off" too."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            raise serializers.ValidationError("Must be true or false.")
        return data


class AgentOverrideSerializer(NoUnknownFields):
    agent_id = serializers.UUIDField()
    name = StrictCharField(read_only=True)
    recall_disabled = StrictBooleanField(required=False, help_text="No recall or context for this agent.")
    mining_paused = StrictBooleanField(
        required=False, help_text="Its conversations are stored, not mined, until this is turned off."
    )


class MemorySettingsOutput(serializers.Serializer):
    enabled = serializers.BooleanField(help_text="Off (paused): nothing is mined, recalled or kept.")
    top_k = serializers.IntegerField()
    use_rerank = serializers.BooleanField()
    rerank_model = StrictCharField()
    embedding_model = StrictCharField(help_text="Empty: the server's configured model.")
    auto_mine = serializers.BooleanField()
    timezone = StrictCharField()
    updated_at = serializers.DateTimeField()
    agents = AgentOverrideSerializer(many=True)
    embedding_models = serializers.ListField(
        child=StrictCharField(), help_text="The models on offer: their vectors fit the column's dimension."
    )


def _settings_body(row: MemorySettings, agents: list[Agent]) -> dict[str, Any]:
    body = {field: getattr(row, field) for field in services.SETTINGS_FIELDS}
    body["updated_at"] = row.updated_at
    body["agents"] = [
        {"agent_id": a.pk, "name": a.name, "recall_disabled": a.recall_disabled, "mining_paused": a.mining_paused}
        for a in agents
    ]
    body["embedding_models"] = selectors.embedding_models_offered()
    return dict(MemorySettingsOutput(body).data)


class MemorySettingsGetApi(APIView):
    @extend_schema(
        operation_id="settings_memory_retrieve",
        summary="The owner's memory settings, per-agent overrides and the embedding models on offer",
        responses={200: MemorySettingsOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        owner = request_owner(request)
        row = selectors.memory_settings_get(user=owner)
        return Response(_settings_body(row, list(selectors.agent_list(owner=owner))))


class MemorySettingsUpdateApi(APIView):
    class InputSerializer(NoUnknownFields):
        enabled = StrictBooleanField(required=False)
        top_k = serializers.IntegerField(required=False, min_value=1, max_value=50)
        use_rerank = StrictBooleanField(required=False)
        rerank_model = StrictCharField(required=False, allow_blank=True, max_length=200)
        embedding_model = StrictCharField(required=False, allow_blank=True, max_length=200)
        auto_mine = StrictBooleanField(required=False)
        timezone = StrictCharField(required=False, max_length=64, validators=[validate_timezone])
        agents = AgentOverrideSerializer(many=True, required=False, help_text="Overrides to change, by agent id.")

    @extend_schema(
        operation_id="settings_memory_update",
        summary="Change memory settings (partial: fields left out keep their value)",
        description=(
            "PUT with PATCH semantics: only the fields sent change, all or nothing (any invalid field is a "
            "400 and nothing is saved; an agent id that is not one of the owner's agents is a 404). "
            "`enabled: false` pauses memory: conversations, episodes, typed memories, short-term and context "
            "entries, knowledge-graph facts and working-memory snapshots written meanwhile answer 409 "
            "`memory_paused` (the live working memory in Redis keeps working, expiring as usual), recall "
            "and context return nothing with `skipped: memory_disabled`, mining waits. Turning it back on, "
            "or resuming an agent's mining, sends the held-back jobs."
        ),
        request=InputSerializer,
        responses={200: MemorySettingsOutput, **ERROR_RESPONSES},
    )
    def put(self, request: Request) -> Response:
        owner = request_owner(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        row = services.memory_settings_update(user=owner, data=dict(data.validated_data))
        return Response(_settings_body(row, list(selectors.agent_list(owner=owner))))
