"""Browsing the palace: wings → rooms → closets → drawers, the drawers of a conversation, AAAK
pointers (forgetting is palace/api/forget.py). Paginated and owner-scoped."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.api.authentication import request_owner
from memory_site.api.lists import ListOutput
from memory_site.api.pagination import paginated_response
from memory_site.api.schema import ERROR_RESPONSES
from palace import selectors
from palace.models import Closet, Drawer, Room, Wing

MESSAGE_NOT_FOUND = {
    "wing": "Wing not found.",
    "room": "Room not found.",
    "closet": "Closet not found.",
    "drawer": "Drawer not found.",
    "conversation": "Conversation not found.",
}
MESSAGE_BAD_POINTER = "A pointer looks like § W-042/R-11/D-007."


def _found(kind: str, row: Any) -> Any:
    if row is None:
        raise NotFound(MESSAGE_NOT_FOUND[kind])
    return row


class WingOutput(serializers.ModelSerializer):
    room_count = serializers.IntegerField(read_only=True)
    linked_room_count = serializers.IntegerField(read_only=True)
    code = serializers.SerializerMethodField()

    class Meta:
        model = Wing
        fields = [
            "id",
            "code",
            "number",
            "kind",
            "name",
            "slug",
            "aliases",
            "room_count",
            "linked_room_count",
            "created_at",
        ]

    def get_code(self, obj: Wing) -> str:
        return f"W-{obj.number:03d}"


class RoomOutput(serializers.ModelSerializer):
    drawer_count = serializers.IntegerField(read_only=True)
    conversation_id = serializers.CharField(source="conversation.external_id", allow_null=True, default=None)
    code = serializers.SerializerMethodField()

    class Meta:
        model = Room
        fields = [
            "id",
            "code",
            "number",
            "wing_id",
            "title",
            "conversation_id",
            "started_at",
            "ended_at",
            "drawer_count",
        ]

    def get_code(self, obj: Room) -> str:
        return f"R-{obj.number:02d}"


class ClosetOutput(serializers.ModelSerializer):
    drawer_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Closet
        fields = ["id", "room_id", "position", "topic", "slug", "drawer_count"]


class DrawerOutput(serializers.ModelSerializer):
    conversation_id = serializers.CharField(source="conversation.external_id")
    has_embedding = serializers.SerializerMethodField()

    class Meta:
        model = Drawer
        fields = [
            "id",
            "aaak",
            "tags",
            "role",
            "content",
            "occurred_at",
            "conversation_id",
            "turn_index",
            "room_id",
            "closet_id",
            "has_embedding",
            "pinned",
            "never_recall",
        ]

    def get_has_embedding(self, obj: Drawer) -> bool:
        return obj.embedding is not None


class DrawerDetailOutput(DrawerOutput):
    previous = DrawerOutput(allow_null=True)
    next = DrawerOutput(allow_null=True)

    class Meta(DrawerOutput.Meta):
        fields = [*DrawerOutput.Meta.fields, "previous", "next"]


class WingListOutput(ListOutput):
    results = WingOutput(many=True)


class RoomListOutput(ListOutput):
    results = RoomOutput(many=True)


class ClosetListOutput(ListOutput):
    results = ClosetOutput(many=True)


class DrawerListOutput(ListOutput):
    results = DrawerOutput(many=True)


class WingListApi(APIView):
    @extend_schema(
        operation_id="palace_wings",
        summary="The owner's wings, with room counts",
        responses={200: WingListOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return paginated_response(request, self, selectors.wings(owner=request_owner(request)), WingOutput)


class WingRoomsApi(APIView):
    @extend_schema(
        operation_id="palace_wing_rooms",
        summary="Rooms of a wing (its own and those that mention it)",
        responses={200: RoomListOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, wing_id: int) -> Response:
        wing = _found("wing", selectors.wing_get(owner=request_owner(request), wing_id=wing_id))
        return paginated_response(request, self, selectors.rooms_of_wing(wing=wing), RoomOutput)


class RoomClosetsApi(APIView):
    @extend_schema(
        operation_id="palace_room_closets",
        summary="Closets (topics) of a room",
        responses={200: ClosetListOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, room_id: int) -> Response:
        room = _found("room", selectors.room_get(owner=request_owner(request), room_id=room_id))
        return paginated_response(request, self, selectors.closets_of_room(room=room), ClosetOutput)


class ClosetDrawersApi(APIView):
    @extend_schema(
        operation_id="palace_closet_drawers",
        summary="Drawers of a closet, in turn order",
        responses={200: DrawerListOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, closet_id: int) -> Response:
        closet = _found("closet", selectors.closet_get(owner=request_owner(request), closet_id=closet_id))
        return paginated_response(request, self, selectors.drawers_of_closet(closet=closet), DrawerOutput)


def _detail(drawer: Drawer) -> dict[str, Any]:
    before, after = selectors.drawer_neighbours(drawer=drawer)
    return {
        **DrawerOutput(drawer).data,
        "previous": DrawerOutput(before).data if before else None,
        "next": DrawerOutput(after).data if after else None,
    }


class DrawerGetApi(APIView):
    @extend_schema(
        operation_id="palace_drawer",
        summary="One drawer, with its AAAK and neighbours",
        responses={200: DrawerDetailOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, drawer_id: int) -> Response:
        return Response(
            _detail(_found("drawer", selectors.drawer_get(owner=request_owner(request), drawer_id=drawer_id)))
        )


class ConversationDrawersApi(APIView):
    @extend_schema(
        operation_id="conversation_drawers",
        summary="Drawers of a conversation, in turn order",
        responses={200: DrawerListOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, conversation_id: str) -> Response:
        owner = request_owner(request)
        # An unknown id is a 404, as for the conversation's other endpoints; a known one may have no drawer yet.
        _found("conversation", selectors.conversation_exists(owner=owner, external_id=conversation_id) or None)
        drawers = selectors.drawers_of_conversation(owner=owner, external_id=conversation_id)
        return paginated_response(request, self, drawers, DrawerOutput)


class PointerResolveApi(APIView):
    @extend_schema(
        operation_id="palace_resolve",
        summary="The drawer an AAAK pointer names",
        parameters=[OpenApiParameter("pointer", str, required=True, description="§ W-042/R-11/D-007")],
        responses={200: DrawerDetailOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        pointer = request.query_params.get("pointer", "")
        if not selectors.AAAK_POINTER.fullmatch(pointer.strip()):
            raise ValidationError({"pointer": [MESSAGE_BAD_POINTER]})
        return Response(
            _detail(_found("drawer", selectors.drawer_by_pointer(owner=request_owner(request), pointer=pointer)))
        )
