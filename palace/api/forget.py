"""Forgetting over HTTP: every deletion answers with its receipt (`{"receipt": {...}}`), and a receipt
can be verified later. One class per operation; the work is palace/services/forget.py's."""

from __future__ import annotations

import uuid
from typing import Any, Final

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.api.authentication import request_agent, request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.schema import ERROR_RESPONSES
from memory_site.lib.errors import ConflictError, InvalidFieldError
from palace import selectors
from palace.models import ForgetReceipt
from palace.services import forget as service

MESSAGE_RECEIPT_NOT_FOUND: Final = "Receipt not found."
MESSAGE_CONFIRM_EVERYTHING: Final = 'Forgetting everything needs "confirm": "everything".'
# 409, not 500: the server is working as built, and the database holds rows the receipt says are gone
# (restored from a backup, imported again): a state conflict the caller must hear about, loudly.
MESSAGE_NOT_VERIFIED: Final = "NOT VERIFIED: rows this receipt says were forgotten exist again."
MAX_IDS: Final = 1000


@extend_schema_field({"oneOf": [{"type": "string"}, {"type": "integer"}]})
class IdField(serializers.Field):
    """A drawer, wing or entity id (integer), a memory or episode id (UUID) or a conversation id: a
    JSON number or string, kept as text for the service to read by kind."""

    default_error_messages = {"invalid": "Must be a string or an integer."}

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, bool) or not isinstance(data, int | str) or len(str(data)) > 256:
            self.fail("invalid")
        return str(data)

    def to_representation(self, value: Any) -> str:
        return str(value)


class ReceiptOutput(serializers.ModelSerializer):
    class Meta:
        model = ForgetReceipt
        fields = ["id", "asked", "counts", "digest", "created_at"]


class ReceiptEnvelope(serializers.Serializer):
    receipt = ReceiptOutput()


def actor_of(request: Request) -> str:
    agent = request_agent(request)
    return agent.name if agent is not None else "person"


def receipt_response(receipt: ForgetReceipt) -> Response:
    return Response({"receipt": ReceiptOutput(receipt).data}, status=status.HTTP_200_OK)


def forget_and_answer(request: Request, kind: str, ids: list[Any]) -> Response:
    receipt = service.forget(owner=request_owner(request), kind=kind, ids=ids, actor=actor_of(request))
    return receipt_response(receipt)


class DrawerForgetApi(APIView):
    @extend_schema(
        operation_id="palace_drawer_delete",
        summary="Forget a drawer (its turn, text, embedding, index entries, facts only it shows) with a receipt",
        responses={200: ReceiptEnvelope, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, drawer_id: int) -> Response:
        return forget_and_answer(request, "drawer", [drawer_id])


class ConversationForgetApi(APIView):
    @extend_schema(
        operation_id="conversation_delete",
        summary="Forget a conversation (its room, drawers, episodes, working memory …) with a receipt",
        responses={200: ReceiptEnvelope, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, conversation_id: str) -> Response:
        return forget_and_answer(request, "conversation", [conversation_id])


class WingForgetApi(APIView):
    @extend_schema(
        operation_id="palace_wing_delete",
        summary="Forget a wing and the conversations filed in it, with a receipt",
        responses={200: ReceiptEnvelope, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, wing_id: int) -> Response:
        return forget_and_answer(request, "wing", [wing_id])


class EntityForgetApi(APIView):
    @extend_schema(
        operation_id="kg_entity_delete",
        summary="Forget an entity and every fact about it, with a receipt",
        responses={200: ReceiptEnvelope, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, name: str) -> Response:
        entity = selectors.entity_find(owner_id=request_owner(request).pk, name=name)
        if entity is None:
            raise NotFound(service.MESSAGE_NOT_FOUND["entity"])
        return forget_and_answer(request, "entity", [entity.pk])


class ForgetApi(APIView):
    class InputSerializer(serializers.Serializer):
        kind = serializers.ChoiceField(choices=service.KINDS)
        ids = serializers.ListField(child=IdField(), required=False, default=list, max_length=MAX_IDS)
        confirm = StrictCharField(required=False, allow_blank=True, default="")

    @extend_schema(
        operation_id="forget",
        summary="Forget many at once, or everything (with confirm: everything); answers the receipt",
        request=InputSerializer,
        responses={200: ReceiptEnvelope, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        kind, ids = data.validated_data["kind"], data.validated_data["ids"]
        if kind == "everything" and data.validated_data["confirm"] != "everything":
            raise InvalidFieldError("confirm", MESSAGE_CONFIRM_EVERYTHING)
        return forget_and_answer(request, kind, ids)


class ReceiptVerifyApi(APIView):
    class OutputSerializer(serializers.Serializer):
        receipt = ReceiptOutput()
        verified = serializers.BooleanField()
        remaining = serializers.DictField(child=serializers.IntegerField())

    @extend_schema(
        operation_id="forget_receipt_verify",
        summary="Re-check a receipt: 200 when none of the removed ids exists, 409 when some are back",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, receipt_id: uuid.UUID) -> Response:
        receipt = selectors.forget_receipt_get(owner=request_owner(request), receipt_id=receipt_id)
        if receipt is None:
            raise NotFound(MESSAGE_RECEIPT_NOT_FOUND)
        result = service.receipt_verify(receipt=receipt)
        if not result["verified"]:
            raise ConflictError(MESSAGE_NOT_VERIFIED, extra={"receipt_id": str(receipt.id), **result})
        return Response({"receipt": ReceiptOutput(receipt).data, **result})
