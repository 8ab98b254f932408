"""Schema plumbing shared by every endpoint: the error envelope, API-key security schemes, and
component names for the nested Input/Output serializers of one-class-per-operation views."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorEnvelope(serializers.Serializer):
    """The body of every API error (memory_site/api/errors.py)."""

    message = serializers.CharField(help_text="A stable, human-readable message.")
    extra = serializers.DictField(help_text="Details, e.g. `fields` for validation errors.")


ERROR_RESPONSES = {
    400: OpenApiResponse(ErrorEnvelope, description="Invalid input"),
    401: OpenApiResponse(ErrorEnvelope, description="Missing, unknown or revoked API key"),
    403: OpenApiResponse(ErrorEnvelope, description="Not allowed"),
    404: OpenApiResponse(ErrorEnvelope, description="Not found (also: belongs to another owner)"),
    429: OpenApiResponse(ErrorEnvelope, description="Rate limited"),
    503: OpenApiResponse(ErrorEnvelope, description="A backing service is down"),
}


class AutoSchema(SpectacularAutoSchema):
    def get_operation(self, *args: Any, **kwargs: Any) -> Any:
        # The reference services' paths (DESIGN §5.10) mount the same views outside /api/v1/: one
        # implementation, documented twice under their own operation ids and tag.
        operation = super().get_operation(*args, **kwargs)
        if operation and not self.path.startswith("/api/"):
            operation["operationId"] = f"compat_{operation['operationId']}"
            operation["tags"] = ["compatibility"]
        return operation

    def get_serializer_name(self, serializer: Any, direction: Any) -> str:
        # `AgentCreateApi.InputSerializer` -> `AgentCreateInput`: nested serializers share short names.
        qualname = type(serializer).__qualname__
        if "." in qualname:
            outer, inner = qualname.rsplit(".", 1)
            return outer.replace(".", "").removesuffix("Api") + inner.removesuffix("Serializer")
        return str(super().get_serializer_name(serializer, direction))


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "memory_site.api.authentication.ApiKeyAuthentication"
    name = ["ApiKeyBearer", "ApiKeyHeader"]

    def get_security_requirement(self, auto_schema: Any) -> list[dict[str, list[str]]]:
        # Either header will do: two alternatives, not both at once.
        return [{"ApiKeyBearer": []}, {"ApiKeyHeader": []}]

    def get_security_definition(self, auto_schema: Any) -> list[dict[str, str]]:
        return [
            {"type": "http", "scheme": "bearer", "description": "An agent's API key: `Authorization: Bearer <key>`."},
            {"type": "apiKey", "in": "header", "name": "X-API-Key"},
        ]
