"""Curating single drawers over the API: pin, never recall, and who read it."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.api.authentication import request_agent, request_owner
from memory_site.api.lists import ListOutput, list_response
from memory_site.api.schema import ERROR_RESPONSES
from palace import selectors
from palace.api.browse import DrawerOutput, _found
from palace.models import Drawer
from palace.services import curation


def _drawer(request: Request, drawer_id: int) -> Drawer:
    found: Drawer = _found("drawer", selectors.drawer_get(owner=request_owner(request), drawer_id=drawer_id))
    return found


class DrawerPinApi(APIView):
    class InputSerializer(serializers.Serializer):
        pinned = serializers.BooleanField()

    @extend_schema(
        operation_id="palace_drawer_pin",
        summary="Pin a drawer (always a recall candidate, boosted when relevant) or unpin it",
        request=InputSerializer,
        responses={200: DrawerOutput, **ERROR_RESPONSES},
    )
    def put(self, request: Request, drawer_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        drawer = curation.drawer_pin(
            drawer=_drawer(request, drawer_id), pinned=data.validated_data["pinned"], agent=request_agent(request)
        )
        return Response(DrawerOutput(drawer).data)


class DrawerNeverRecallApi(APIView):
    class InputSerializer(serializers.Serializer):
        never_recall = serializers.BooleanField()

    @extend_schema(
        operation_id="palace_drawer_never_recall",
        summary="Keep a drawer out of recall and context assembly (still browsable), or let it back in",
        request=InputSerializer,
        responses={200: DrawerOutput, **ERROR_RESPONSES},
    )
    def put(self, request: Request, drawer_id: int) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        drawer = curation.drawer_never_recall(
            drawer=_drawer(request, drawer_id),
            never=data.validated_data["never_recall"],
            agent=request_agent(request),
        )
        return Response(DrawerOutput(drawer).data)


class DrawerReaderOutput(serializers.Serializer):
    agent_id = serializers.UUIDField(allow_null=True, help_text="Null: the agent was deleted since.")
    agent_name = serializers.CharField(allow_null=True)
    # A declared field leaves the class namespace (DRF's metaclass), so `source` does not shadow Field.source.
    source = serializers.ChoiceField(choices=["recall", "context"])  # type: ignore[assignment]
    times = serializers.IntegerField()
    last_at = serializers.DateTimeField()
    last_query = serializers.CharField(help_text="Cut to 300 characters.")


class DrawerReadersApi(APIView):
    class OutputSerializer(ListOutput):
        results = DrawerReaderOutput(many=True)

    @extend_schema(
        operation_id="palace_drawer_readers",
        summary="Who read a drawer: the agents that received it in a recall or a context block, and when",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, drawer_id: int) -> Response:
        readers = selectors.drawer_readers(drawer=_drawer(request, drawer_id))
        return list_response(request, list(DrawerReaderOutput(readers, many=True).data))
