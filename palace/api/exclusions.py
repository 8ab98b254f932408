"""Exclusion rules over the API (Settings → Memory): list, add, delete, preview and purge."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors as account_selectors
from accounts.models import ExclusionRule
from memory_site.api.authentication import request_owner
from memory_site.api.fields import StrictCharField
from memory_site.api.lists import ListOutput
from memory_site.api.pagination import paginated_response
from memory_site.api.schema import ERROR_RESPONSES, ErrorEnvelope
from palace.api.forget import ReceiptOutput
from palace.services import exclusions

PREVIEW_LIMIT = 20
PREVIEW_CHARACTERS = 200


RULE_CONFLICT = OpenApiResponse(
    ErrorEnvelope, description="The rule exists already, or the owner has the most rules allowed"
)


class ExclusionRuleOutput(serializers.ModelSerializer):
    class Meta:
        model = ExclusionRule
        fields = ["id", "kind", "pattern", "created_at"]


class ExclusionListApi(APIView):
    class OutputSerializer(ListOutput):
        results = ExclusionRuleOutput(many=True)

    @extend_schema(
        operation_id="settings_exclusions_list",
        summary="The owner's exclusion rules, oldest first",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request) -> Response:
        rules = account_selectors.exclusion_rule_list(owner=request_owner(request))
        return paginated_response(request, self, rules, ExclusionRuleOutput)


class ExclusionCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        kind = serializers.ChoiceField(choices=ExclusionRule.Kind.choices)
        pattern = StrictCharField(max_length=1000, trim_whitespace=False)

    @extend_schema(
        operation_id="settings_exclusions_create",
        summary="Add an exclusion rule: matching turns are never mined",
        description=(
            "`word`: a whole word, case-insensitive. `phrase`: words in a row, case-insensitive, on word "
            "boundaries. `regex`: Python syntax, at most 200 characters; patterns that can backtrack "
            "catastrophically (nested quantifiers, alternatives in a repeated group, backreferences, more "
            "than 3 unbounded quantifiers) are refused with a 400. At most 100 rules (409 beyond)."
        ),
        request=InputSerializer,
        responses={201: ExclusionRuleOutput, **ERROR_RESPONSES, 409: RULE_CONFLICT},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rule = exclusions.exclusion_rule_create(owner=request_owner(request), **data.validated_data)
        return Response(ExclusionRuleOutput(rule).data, status=status.HTTP_201_CREATED)


class ExclusionDeleteApi(APIView):
    @extend_schema(
        operation_id="settings_exclusions_delete",
        summary="Delete an exclusion rule (the drawers it matched stay: purge them first)",
        responses={204: None, **ERROR_RESPONSES},
    )
    def delete(self, request: Request, rule_id: int) -> Response:
        exclusions.exclusion_rule_delete(owner=request_owner(request), rule_id=rule_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DrawerPreviewOutput(serializers.Serializer):
    id = serializers.IntegerField()
    aaak = StrictCharField()
    preview = StrictCharField()
    occurred_at = serializers.DateTimeField()


class ExclusionPreviewApi(APIView):
    class OutputSerializer(serializers.Serializer):
        count = serializers.IntegerField(help_text="Existing drawers the rule matches.")
        drawers = DrawerPreviewOutput(many=True, help_text=f"The newest {PREVIEW_LIMIT}.")

    @extend_schema(
        operation_id="settings_exclusions_preview",
        summary="The existing drawers a rule matches (a purge would delete them)",
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def get(self, request: Request, rule_id: int) -> Response:
        matched = exclusions.exclusion_preview(owner=request_owner(request), rule_id=rule_id)
        first = [
            {"id": d.pk, "aaak": d.aaak, "preview": d.content[:PREVIEW_CHARACTERS], "occurred_at": d.occurred_at}
            for d in matched[:PREVIEW_LIMIT]
        ]
        return Response(self.OutputSerializer({"count": matched.count(), "drawers": first}).data)


class ExclusionPurgeApi(APIView):
    class OutputSerializer(serializers.Serializer):
        rule_id = serializers.IntegerField()
        deleted = serializers.IntegerField()
        drawer_ids = serializers.ListField(child=serializers.IntegerField())
        receipt = ReceiptOutput(allow_null=True, help_text="The forgetting's receipt (null when nothing matched).")

    @extend_schema(
        operation_id="settings_exclusions_purge",
        summary="Delete the existing drawers a rule matches",
        request=None,
        responses={200: OutputSerializer, **ERROR_RESPONSES},
    )
    def post(self, request: Request, rule_id: int) -> Response:
        purged = exclusions.exclusion_purge(owner=request_owner(request), rule_id=rule_id)
        return Response(self.OutputSerializer(purged).data)
