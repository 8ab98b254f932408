"""Webhook endpoints over the API: register (secret in this answer only), list, read, change, delete,
their delivery log, replay a delivery, and send a test ping. Everything is the caller's owner's."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.api.authentication import request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput
from memory_site.api.pagination import paginated_response
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope
from memory_site.events import EVENT_TYPES
from webhooks import selectors
from webhooks.models import Delivery, Endpoint
from webhooks.services import delivery, endpoints

ENDPOINT_CONFLICT = OpenApiResponse(ErrorEnvelope, description="The owner has the most endpoints allowed")


class EndpointOutput(serializers.ModelSerializer):
    failing = serializers.SerializerMethodField(help_text="True once a delivery ran out of retries.")

    class Meta:
        model = Endpoint
        fields = ["id", "url", "event_types", "active", "failing", "failing_since", "created_at"]

    def get_failing(self, endpoint: Endpoint) -> bool:
        return endpoint.failing_since is not None


class DeliveryOutput(serializers.ModelSerializer):
    event_id = serializers.UUIDField()
    event_type = serializers.CharField(source="event.type")
    succeeded = serializers.BooleanField()

    class Meta:
        model = Delivery
        fields = [
            "id",
            "event_id",
            "event_type",
            "attempt",
            "succeeded",
            "status_code",
            "latency_ms",
            "response_snippet",
            "error",
            "next_attempt_at",
            "delivered_at",
            "created_at",
        ]


class _EndpointInput(serializers.Serializer):
    url = StrictCharField(max_length=2000)
    event_types = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENT_TYPES), min_length=1, max_length=len(EVENT_TYPES)
    )
    active = serializers.BooleanField(default=True)


class EndpointListApi(APIView):
    class OutputSerializer(ListOutput):
        results = EndpointOutput(many=True)

    @extend_schema(
        operation_id="webhooks_list",
        summary="The owner's webhook endpoints, oldest first",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        return paginated_response(request, self, selectors.endpoint_list(owner=request_owner(request)), EndpointOutput)


class EndpointCreateApi(APIView):
    InputSerializer = _EndpointInput

    class OutputSerializer(EndpointOutput):
        secret = serializers.CharField(help_text="Standard Webhooks secret (whsec_...): shown this once only.")

        class Meta(EndpointOutput.Meta):
            fields = [*EndpointOutput.Meta.fields, "secret"]

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook endpoint; the answer carries its signing secret, never shown again",
        description=(
            "Only http(s) URLs; private, loopback, link-local and reserved addresses are refused (also at "
            "each delivery, against the resolved address) unless the operator set WEBHOOKS_ALLOW_PRIVATE. "
            "`memory.recalled` is sent only to endpoints that list it. At most 20 endpoints (409 beyond)."
        ),
        request=InputSerializer,
        responses={201: OutputSerializer, **ERROR_RESPONSES, 409: ENDPOINT_CONFLICT},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        registered = endpoints.endpoint_create(owner=request_owner(request), **data.validated_data)
        answer = {**EndpointOutput(registered.endpoint).data, "secret": registered.secret}
        return Response(answer, status=status.HTTP_201_CREATED)


class EndpointDetailApi(APIView):
    @extend_schema(
        operation_id="webhooks_read", summary="One webhook endpoint", responses={200: EndpointOutput, **ERROR_RESPONSES}
    )
    def get(self, request: Request, endpoint_id: str) -> Response:
        endpoint = selectors.endpoint_get(owner=request_owner(request), endpoint_id=endpoint_id)
        return Response(EndpointOutput(endpoint).data)


class EndpointUpdateApi(APIView):
    class InputSerializer(_EndpointInput):
        active = serializers.BooleanField(required=False)

    @extend_schema(
        operation_id="webhooks_update",
        summary="Change an endpoint's URL, event types or active flag (re-activating clears `failing`)",
        request=InputSerializer,
        responses={200: EndpointOutput, **ERROR_RESPONSES},
    )
    def patch(self, request: Request, endpoint_id: str) -> Response:
        data = self.InputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        endpoint = endpoints.endpoint_update(
            owner=request_owner(request), endpoint_id=endpoint_id, **data.validated_data
        )
        return Response(EndpointOutput(endpoint).data)


class EndpointDeleteApi(APIView):
    @extend_schema(
        operation_id="webhooks_delete",
        summary="Delete an endpoint and its delivery log",
        responses={204: None, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, endpoint_id: str) -> Response:
        endpoints.endpoint_delete(owner=request_owner(request), endpoint_id=endpoint_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveryListApi(APIView):
    class OutputSerializer(ListOutput):
        results = DeliveryOutput(many=True)

    @extend_schema(
        operation_id="webhooks_deliveries",
        summary="Every delivery attempt to an endpoint, newest first (status, latency, response snippet)",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, endpoint_id: str) -> Response:
        endpoint = selectors.endpoint_get(owner=request_owner(request), endpoint_id=endpoint_id)
        return paginated_response(request, self, selectors.delivery_list(endpoint=endpoint), DeliveryOutput)


class DeliveryReplayApi(APIView):
    class OutputSerializer(serializers.Serializer):
        replayed = serializers.IntegerField(help_text="The delivery whose event is sent again.")
        event_id = serializers.UUIDField()

    @extend_schema(
        operation_id="webhooks_delivery_replay",
        summary="Send a delivery's event again (a new attempt, same webhook-id)",
        request=None,
        responses={202: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request, endpoint_id: str, delivery_id: str) -> Response:
        replayed = delivery.delivery_replay(
            owner=request_owner(request), endpoint_id=endpoint_id, delivery_id=delivery_id
        )
        answer = {"replayed": replayed.pk, "event_id": replayed.event_id}
        return Response(self.OutputSerializer(answer).data, status=status.HTTP_202_ACCEPTED)


class EndpointTestApi(APIView):
    class OutputSerializer(serializers.Serializer):
        event_id = serializers.UUIDField()
        type = serializers.CharField()

    @extend_schema(
        operation_id="webhooks_test",
        summary="Send a `webhook.ping` event to this endpoint",
        request=None,
        responses={202: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request, endpoint_id: str) -> Response:
        event = endpoints.endpoint_test(owner=request_owner(request), endpoint_id=endpoint_id)
        return Response(
            self.OutputSerializer({"event_id": event.pk, "type": event.type}).data, status=status.HTTP_202_ACCEPTED
        )
