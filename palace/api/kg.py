"""The knowledge graph over HTTP: add a relation, list entities, an entity's timeline, as_of."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.services import memory_require_enabled
from memory_site.api.authentication import request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput
from memory_site.api.pagination import paginated_response
from memory_site.api.schema import ERROR_RESPONSES
from palace import selectors
from palace.models import Entity, Relation
from palace.services import graph

MESSAGE_ENTITY_NOT_FOUND = "Entity not found."


class EntityOutput(serializers.ModelSerializer):
    class Meta:
        model = Entity
        fields = ["id", "kind", "name", "slug", "aliases", "created_at"]


class RelationOutput(serializers.ModelSerializer):
    subject = serializers.CharField(source="subject.name")
    object = serializers.SerializerMethodField()
    source_drawer_id = serializers.IntegerField(allow_null=True)

    class Meta:
        model = Relation
        fields = ["id", "subject", "predicate", "object", "valid_from", "valid_to", "confidence", "source_drawer_id"]

    def get_object(self, obj: Relation) -> str:
        return obj.object.name if obj.object_id and obj.object else obj.object_value


class EntityListOutput(ListOutput):
    results = EntityOutput(many=True)


class EntityTimelineOutput(serializers.Serializer):
    entity = EntityOutput()
    relations = RelationOutput(many=True)


class EntityAsOfOutput(serializers.Serializer):
    entity = EntityOutput()
    as_of = serializers.DateTimeField()
    relations = RelationOutput(many=True)


class RelationAddApi(APIView):
    class InputSerializer(serializers.Serializer):
        subject = StrictCharField(max_length=200)
        predicate = StrictCharField(max_length=100)
        object = StrictCharField(max_length=500)
        object_is_entity = serializers.BooleanField(default=True, help_text="False: the object is a literal value.")
        valid_from = serializers.DateTimeField(required=False)
        replace = serializers.BooleanField(
            default=False, help_text="Close the current row(s) for subject and predicate."
        )
        confidence = serializers.FloatField(min_value=0, max_value=1, default=1.0)

    @extend_schema(
        operation_id="kg_relation_add",
        summary="Add a relation (closing the current one when replacing)",
        request=InputSerializer,
        responses={201: RelationOutput, **ERROR_RESPONSES},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        owner = request_owner(request)
        memory_require_enabled(owner=owner)  # paused memory keeps nothing new (409)
        relation = graph.relation_add(owner_id=owner.pk, **data.validated_data)
        return Response(RelationOutput(relation).data, status=status.HTTP_201_CREATED)


class EntityListApi(APIView):
    @extend_schema(
        operation_id="kg_entities",
        summary="The owner's entities",
        responses={200: EntityListOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        entities = selectors.entities(owner=request_owner(request))
        return paginated_response(request, self, entities, EntityOutput)


def _entity(request: Request, name: str) -> Entity:
    entity = selectors.entity_find(owner_id=request_owner(request).pk, name=name)
    if entity is None:
        raise NotFound(MESSAGE_ENTITY_NOT_FOUND)
    return entity


class EntityTimelineApi(APIView):
    @extend_schema(
        operation_id="kg_entity_timeline",
        summary="An entity's full history, in time order",
        responses={200: EntityTimelineOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, name: str) -> Response:
        entity = _entity(request, name)
        return Response(
            {
                "entity": EntityOutput(entity).data,
                "relations": RelationOutput(selectors.entity_timeline(entity=entity), many=True).data,
            }
        )


class EntityAsOfApi(APIView):
    class InputSerializer(serializers.Serializer):
        as_of = serializers.DateTimeField(required=False, help_text="Default: now.")

    @extend_schema(
        operation_id="kg_entity",
        summary="An entity and what was true of it at a time",
        parameters=[OpenApiParameter("as_of", str, description="ISO time; default now")],
        responses={200: EntityAsOfOutput, **ERROR_RESPONSES},
    )
    def get(self, request: Request, name: str) -> Response:
        data = self.InputSerializer(data=request.query_params)
        data.is_valid(raise_exception=True)
        at = data.validated_data.get("as_of") or timezone.now()
        entity = _entity(request, name)
        relations = selectors.entity_as_of(entity=entity, at=at)
        return Response(
            {"entity": EntityOutput(entity).data, "as_of": at, "relations": RelationOutput(relations, many=True).data}
        )
