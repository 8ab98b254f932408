"""The owner's activity log: mining runs, curation, deletions… newest first."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.api.authentication import request_owner
from memory_site.api.lists import ListOutput, list_response, offset_field
from memory_site.api.schema import ERROR_RESPONSES
from palace import selectors
from palace.models import ActivityEvent


class ActivityEventOutput(serializers.ModelSerializer):
    agent_name = serializers.CharField(source="agent.name", allow_null=True, default=None)

    class Meta:
        model = ActivityEvent
        fields = ["id", "kind", "agent_id", "agent_name", "data", "created_at"]


class ActivityListApi(APIView):
    class InputSerializer(serializers.Serializer):
        agent = serializers.UUIDField(required=False, help_text="Only this agent's events.")
        kind = serializers.CharField(required=False, max_length=40, help_text="memory_mined, drawer_pinned, …")
        limit = serializers.IntegerField(min_value=1, max_value=500, default=50)
        offset = offset_field()

    class OutputSerializer(ListOutput):
        results = ActivityEventOutput(many=True)

    @extend_schema(
        operation_id="activity_list",
        summary="The owner's activity, newest first, filterable by agent and kind",
        parameters=[InputSerializer],
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        limit, offset = fields["limit"], fields["offset"]
        events = selectors.activity_list(
            owner=request_owner(request), agent_id=fields.get("agent"), kind=fields.get("kind")
        )
        page = list(events[offset : offset + limit])
        results = list(ActivityEventOutput(page, many=True).data)
        return list_response(request, results, count=events.count(), limit=limit, offset=offset)
