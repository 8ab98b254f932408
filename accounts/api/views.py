"""Identity API: the calling agent, the owner's agents and API keys. One class per operation."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.models import Agent, ApiKey
from memory_site.api.authentication import HasApiKey, owned_agent, request_agent, request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput, list_response
from memory_site.api.pagination import paginated_response
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope

MESSAGE_KEY_NOT_FOUND = "API key not found."
NAME_TAKEN = OpenApiResponse(ErrorEnvelope, description="Another of the owner's agents has this name")


class AgentConfigSerializer(serializers.Serializer):
    recall_disabled = serializers.BooleanField(
        required=False, help_text="No recall for this agent (mining still runs)."
    )

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise serializers.ValidationError("Expected a JSON object.")
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError(f"Unknown config keys: {', '.join(unknown)}.")
        return dict(super().to_internal_value(data))


class AgentOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Agent
        fields = ["id", "name", "description", "config", "created_at", "updated_at"]


class AgentMeApi(APIView):
    permission_classes = [HasApiKey]

    @extend_schema(
        operation_id="agents_me",
        summary="The agent behind this API key",
        responses={200: AgentOutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return Response(AgentOutputSerializer(request_agent(request)).data)


class AgentListApi(APIView):
    class OutputSerializer(ListOutput):
        results = AgentOutputSerializer(many=True)

    @extend_schema(
        operation_id="agents_list",
        summary="List the owner's agents",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return paginated_response(
            request, self, selectors.agent_list(owner=request_owner(request)), AgentOutputSerializer
        )


class AgentCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        name = StrictCharField(max_length=100)
        description = StrictCharField(max_length=500, required=False, allow_blank=True, default="")
        config = AgentConfigSerializer(required=False)

    @extend_schema(
        operation_id="agents_create",
        summary="Create an agent",
        request=InputSerializer,
        responses={201: AgentOutputSerializer, **ERROR_RESPONSES, 409: NAME_TAKEN},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        agent = services.agent_create(owner=request_owner(request), **data.validated_data)
        return Response(AgentOutputSerializer(agent).data, status=status.HTTP_201_CREATED)


class AgentDetailApi(APIView):
    @extend_schema(
        operation_id="agents_retrieve",
        summary="One of the owner's agents",
        responses={200: AgentOutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, agent_id: uuid.UUID) -> Response:
        return Response(AgentOutputSerializer(owned_agent(request, agent_id)).data)


class AgentUpdateApi(APIView):
    class InputSerializer(serializers.Serializer):
        name = StrictCharField(max_length=100, required=False)
        description = StrictCharField(max_length=500, required=False, allow_blank=True)
        config = AgentConfigSerializer(required=False, help_text="Merged into the agent's config.")

    @extend_schema(
        operation_id="agents_update",
        summary="Rename an agent or change its config",
        request=InputSerializer,
        responses={200: AgentOutputSerializer, **ERROR_RESPONSES, 409: NAME_TAKEN},
    )
    def patch(self, request: Request, agent_id: uuid.UUID) -> Response:
        agent = owned_agent(request, agent_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        agent = services.agent_update(agent=agent, **data.validated_data)
        return Response(AgentOutputSerializer(agent).data)


class ApiKeyOutputSerializer(serializers.ModelSerializer):
    agent_id = serializers.UUIDField(source="agent.id", read_only=True)
    agent_name = StrictCharField(source="agent.name", read_only=True)
    active = serializers.BooleanField(source="is_active", read_only=True)

    class Meta:
        model = ApiKey
        fields = ["prefix", "name", "agent_id", "agent_name", "active", "created_at", "last_used_at", "revoked_at"]


class ApiKeyListApi(APIView):
    class OutputSerializer(ListOutput):
        results = ApiKeyOutputSerializer(many=True)

    @extend_schema(
        operation_id="keys_list",
        summary="List the owner's API keys (never the keys themselves)",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return paginated_response(
            request, self, selectors.api_key_list(owner=request_owner(request)), ApiKeyOutputSerializer
        )


class ApiKeyCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        agent_id = serializers.UUIDField(required=False, help_text="Defaults to the calling agent.")
        name = StrictCharField(max_length=100, required=False, allow_blank=True, default="")

    class OutputSerializer(ApiKeyOutputSerializer):
        key = serializers.SerializerMethodField(help_text="The key itself. Shown once: store it now.")

        class Meta(ApiKeyOutputSerializer.Meta):
            fields = ["key", *ApiKeyOutputSerializer.Meta.fields]

        def get_key(self, obj: ApiKey) -> str:
            return str(self.context["raw_key"])

    @extend_schema(
        operation_id="keys_create",
        summary="Mint an API key for one of the owner's agents",
        request=InputSerializer,
        responses={201: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        agent_id = data.validated_data.get("agent_id")
        if agent_id is not None:
            agent = owned_agent(request, agent_id)
        else:
            caller = request_agent(request)
            if caller is None:
                raise serializers.ValidationError({"agent_id": ["Required when not calling with an API key."]})
            agent = caller
        issued = services.api_key_issue(agent=agent, name=data.validated_data["name"])
        output = self.OutputSerializer(issued.api_key, context={"raw_key": issued.raw_key})
        return Response(output.data, status=status.HTTP_201_CREATED)


class ApiKeyRevokeApi(APIView):
    @extend_schema(
        operation_id="keys_revoke",
        summary="Revoke an API key (idempotent)",
        request=None,
        responses={200: ApiKeyOutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request, prefix: str) -> Response:
        api_key = selectors.api_key_get(owner=request_owner(request), prefix=prefix)
        if api_key is None:
            raise NotFound(MESSAGE_KEY_NOT_FOUND)
        return Response(ApiKeyOutputSerializer(services.api_key_revoke(api_key=api_key)).data)


class UsageOutputSerializer(serializers.Serializer):
    source = StrictCharField()  # type: ignore[assignment]
    calls = serializers.IntegerField()
    items = serializers.IntegerField()
    input_tokens = serializers.IntegerField()
    output_tokens = serializers.IntegerField()
    cost_usd = serializers.DecimalField(max_digits=12, decimal_places=6)


class UsageSummaryApi(APIView):
    class InputSerializer(serializers.Serializer):
        month = serializers.RegexField(
            r"^\d{4}-\d{2}$", required=False, help_text="YYYY-MM (UTC); default: the current month."
        )

    class OutputSerializer(ListOutput):
        results = UsageOutputSerializer(many=True)

    @extend_schema(
        operation_id="usage_summary",
        summary="Embedding and LLM usage of the owner in one month, per source",
        description="One row per source used that month, all of them: `next` and `previous` are always null. "
        "Months are calendar months in UTC, the ones monthly budgets count.",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        rows = selectors.usage_summary(owner=request_owner(request), month=data.validated_data.get("month"))
        return list_response(request, list(UsageOutputSerializer(rows, many=True).data))
