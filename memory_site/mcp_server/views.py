"""`/mcp`: MCP's streamable-HTTP transport in its JSON-response form, on the web process's port."""

from __future__ import annotations

import json

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ParseError, PermissionDenied
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.models import ApiKey
from memory_site.api.authentication import MESSAGE_NEEDS_API_KEY, HasApiKey, request_owner
from memory_site.mcp_server.protocol import Caller, handle, parse_error


class McpApi(APIView):
    """One JSON-RPC message per POST, answered with one JSON body (202 and no body for a notification).

    Authentication and permission run in `initial()` before `post`, so a missing, wrong or revoked key is a
    401 in the error envelope before any message is read. GET (the server-initiated SSE stream) is a 405:
    this server never sends requests of its own."""

    permission_classes = [HasApiKey]
    parser_classes = [JSONParser]

    @extend_schema(exclude=True)
    def post(self, request: Request) -> HttpResponse:
        api_key = request.auth
        if not isinstance(api_key, ApiKey):  # HasApiKey refused it already; this narrows the type
            raise PermissionDenied(MESSAGE_NEEDS_API_KEY)
        caller = Caller(owner=request_owner(request), api_key=api_key, host=request.get_host())
        try:
            message = request.data
        except ParseError:  # JSON-RPC's own answer to a body that is not JSON, as the stdio server gives
            return HttpResponse(json.dumps(parse_error()), status=400, content_type="application/json")
        answer = handle(message, caller)
        if answer is None:
            return HttpResponse(status=202)
        return HttpResponse(json.dumps(answer), content_type="application/json")
