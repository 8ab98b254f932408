"""Health of each component: the database, Redis, the Celery worker (a real ping round trip) and beat
(its heartbeat in Redis). 200 while the database is up, 503 otherwise."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal, TypedDict

from django.db import DatabaseError, connection
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.beat import HEARTBEAT_KEY
from memory_site.celery import app as celery_app
from memory_site.redis_client import get_redis

WORKER_PING_TIMEOUT = 1.0


class ComponentHealth(TypedDict, total=False):
    status: Literal["up", "down"]
    latency_ms: float
    detail: str


def _timed(check: Callable[[], str]) -> ComponentHealth:
    started = time.perf_counter()
    try:
        detail = check()
    except Exception as exc:  # noqa: BLE001 - a health check reports any failure as "down"
        return {"status": "down", "detail": f"{type(exc).__name__}: {exc}"[:300]}
    return {"status": "up", "latency_ms": round((time.perf_counter() - started) * 1000, 2), "detail": detail}


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


def _redis() -> str:
    get_redis().ping()
    return "ping ok"


def _worker() -> str:
    # limit=1: answer as soon as one worker replies instead of waiting out the timeout for more.
    replies = celery_app.control.ping(timeout=WORKER_PING_TIMEOUT, limit=1)
    if not replies:
        raise RuntimeError(f"no worker answered a ping within {WORKER_PING_TIMEOUT}s")
    return ", ".join(sorted(name for reply in replies for name in reply))


def _beat() -> str:
    beat = get_redis().get(HEARTBEAT_KEY)
    if beat is None:
        raise RuntimeError("no heartbeat from beat in the last minute")
    return f"last heartbeat {time.time() - float(beat):.0f}s ago"


def health_report() -> tuple[dict[str, object], bool]:
    components: dict[str, ComponentHealth] = {"database": _timed(_database), "redis": _timed(_redis)}
    if components["redis"]["status"] == "up":
        components["worker"] = _timed(_worker)
        components["beat"] = _timed(_beat)
    else:
        # Both are reached through Redis; asking would only wait for the same failure.
        components["worker"] = components["beat"] = {"status": "down", "detail": "Redis is down"}
    database_up = components["database"]["status"] == "up"
    all_up = all(c["status"] == "up" for c in components.values())
    status = "ok" if all_up else ("degraded" if database_up else "down")
    return {"status": status, "components": components}, database_up


class HealthComponent(serializers.Serializer):
    status = serializers.ChoiceField(choices=["up", "down"])
    latency_ms = serializers.FloatField(required=False)
    detail = serializers.CharField()


class HealthComponents(serializers.Serializer):
    database = HealthComponent()
    redis = HealthComponent()
    worker = HealthComponent()
    beat = HealthComponent()


class HealthApi(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = []

    class OutputSerializer(serializers.Serializer):
        status = serializers.ChoiceField(choices=["ok", "degraded", "down"])
        components = HealthComponents()

    @extend_schema(
        operation_id="health",
        summary="Health of the database, Redis, the Celery worker and beat",
        description="200 while the database is up (other components may be down: status `degraded`), 503 otherwise.",
        responses={200: OutputSerializer, 503: OutputSerializer},
        auth=[],
    )
    def get(self, request: Request) -> Response:
        report, database_up = health_report()
        if not database_up:
            try:
                connection.close()  # drop the broken connection so the next request reconnects
            except DatabaseError:
                pass
        return Response(report, status=200 if database_up else 503, headers={"Cache-Control": "no-store"})
