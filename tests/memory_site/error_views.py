"""Views that exist only in the tests, to drive the exception handler through errors no endpoint of
this issue produces on demand yet (a crash, an outage)."""

from __future__ import annotations

import redis
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

MESSAGE_SECRET = "the internals of a crash: do not show me"


class CrashApi(APIView):
    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        raise RuntimeError(MESSAGE_SECRET)


class RedisApi(APIView):
    """Talks to a real Redis socket that nobody listens on."""

    permission_classes = [AllowAny]

    def get(self, request: Request) -> Response:
        client = redis.Redis(unix_socket_path="/nonexistent/loci/redis.sock", socket_connect_timeout=0.2)
        client.ping()
        return Response({})


urlpatterns = [path("api/v1/test/crash", CrashApi.as_view()), path("api/v1/test/redis", RedisApi.as_view())]
