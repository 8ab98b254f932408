"""Every error class answers the one envelope `{"message": ..., "extra": {...}}`."""

from __future__ import annotations

import logging

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from accounts.models import Agent
from memory_site.api.errors import (
    MESSAGE_INVALID_INPUT,
    MESSAGE_NOT_FOUND,
    MESSAGE_PAYLOAD_TOO_LARGE,
    MESSAGE_REDIS_DOWN,
    MESSAGE_SERVER_ERROR,
)
from memory_site.api.parsers import MESSAGE_MALFORMED_JSON, MESSAGE_NUL, MESSAGE_SURROGATE
from tests.conftest import Personas
from tests.memory_site.error_views import MESSAGE_SECRET

pytestmark = pytest.mark.django_db


def _envelope(response, status: int) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"message", "extra"}
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body["extra"], dict)
    return body


def test_validation_error_names_the_fields(api: APIClient, personas: Personas) -> None:
    body = _envelope(api.post("/api/v1/agents", {"name": ""}, format="json", **personas.owner.headers), 400)
    assert body["message"] == MESSAGE_INVALID_INPUT
    assert "name" in body["extra"]["fields"]


def test_parse_error(api: APIClient, personas: Personas) -> None:
    response = api.post("/api/v1/agents", "{not json", content_type="application/json", **personas.owner.headers)
    body = _envelope(response, 400)
    assert body["message"] == MESSAGE_MALFORMED_JSON and body["extra"]["error"].startswith("Expecting")
    assert (
        not Agent.objects.filter(owner=personas.owner.user)
        .exclude(pk__in=[personas.owner.agent.pk, personas.teammate.agent.pk])
        .exists()
    )


def test_unauthenticated(api: APIClient) -> None:
    _envelope(api.get("/api/v1/agents"), 401)


def test_forbidden(api: APIClient, personas: Personas) -> None:
    api.force_login(personas.owner.user)
    _envelope(api.get("/api/v1/agents/me"), 403)


def test_not_found_for_a_missing_row_and_an_unknown_path(api: APIClient, personas: Personas) -> None:
    _envelope(api.get("/api/v1/agents/7f1d6f9e-0000-4000-8000-000000000000", **personas.owner.headers), 404)
    assert _envelope(Client().get("/api/v1/no-such-endpoint"), 404)["message"] == MESSAGE_NOT_FOUND
    assert _envelope(Client().get("/api/v1/agents/not-a-uuid"), 404)["message"] == MESSAGE_NOT_FOUND


def test_method_not_allowed(api: APIClient, personas: Personas) -> None:
    body = _envelope(api.delete("/api/v1/agents/me", **personas.owner.headers), 405)
    assert "DELETE" in body["message"]


@override_settings(API_MAX_BODY_BYTES=2048)
def test_payload_too_large(api: APIClient, personas: Personas) -> None:
    payload = {"name": "big", "description": "x" * 4000}
    body = _envelope(api.post("/api/v1/agents", payload, format="json", **personas.owner.headers), 413)
    assert body["message"] == MESSAGE_PAYLOAD_TOO_LARGE
    assert body["extra"]["limit_bytes"] == 2048 and body["extra"]["size_bytes"] > 2048
    assert not Agent.objects.filter(name="big").exists()


def test_unsupported_media_type(api: APIClient, personas: Personas) -> None:
    response = api.post(
        "/api/v1/agents", "name=x", content_type="application/x-www-form-urlencoded", **personas.owner.headers
    )
    assert "Unsupported media type" in _envelope(response, 415)["message"]


@override_settings(API_THROTTLE_RATE="3/hour")
def test_too_many_requests(api: APIClient, personas: Personas) -> None:
    statuses = [api.get("/api/v1/agents/me", **personas.owner.headers).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = api.get("/api/v1/agents/me", **personas.owner.headers)
    body = _envelope(response, 429)
    assert body["extra"]["retry_after_seconds"] > 0
    assert int(response["Retry-After"]) > 0
    # Another key has its own budget.
    assert api.get("/api/v1/agents/me", **personas.teammate.headers).status_code == 200


@pytest.mark.urls("tests.memory_site.error_views")
def test_service_unavailable_when_redis_is_down(api: APIClient) -> None:
    assert _envelope(api.get("/api/v1/test/redis"), 503)["message"] == MESSAGE_REDIS_DOWN


@pytest.mark.urls("tests.memory_site.error_views")
def test_an_unexpected_exception_is_a_500_envelope_without_traceback(
    api: APIClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    response = api.get("/api/v1/test/crash")
    body = _envelope(response, 500)
    assert body == {"message": MESSAGE_SERVER_ERROR, "extra": {}}
    assert MESSAGE_SECRET not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    # The traceback goes to the log instead.
    assert MESSAGE_SECRET in caplog.text and "RuntimeError" in caplog.text


@override_settings(API_MAX_BODY_BYTES=2048, DATA_UPLOAD_MAX_MEMORY_SIZE=2048)
def test_a_body_over_djangos_own_bound_is_a_413_too(api: APIClient, personas: Personas) -> None:
    body = {"name": "big", "description": "x" * 3000}
    response = api.post("/api/v1/agents", body, format="json", **personas.owner.headers)
    answer = _envelope(response, 413)
    assert answer["message"] == MESSAGE_PAYLOAD_TOO_LARGE and answer["extra"]["limit_bytes"] == 2048


@pytest.mark.parametrize(
    "raw",
    [
        '{"fields": {"a": "\\ud800"}}',
        '{"fields": {"\\udfff": 1}}',
        '{"fields": {"a": "before\\u0000after"}}',
        '{"fields": {"\\u0000": 1}}',
        '{"fields": {"x": ' + "[" * 200 + "]" * 200 + "}}",
        '{"fields": {"x": ' + "[" * 5000 + "]" * 5000 + "}}",
    ],
)
def test_lone_surrogates_and_deep_nesting_are_a_400(api: APIClient, personas: Personas, raw: str) -> None:
    response = api.put("/api/v1/working-memory/c1", raw, content_type="application/json", **personas.owner.headers)
    assert _envelope(response, 400)["message"] in {
        "JSON nested deeper than 64 levels.",
        MESSAGE_SURROGATE,
        MESSAGE_NUL,
        MESSAGE_MALFORMED_JSON,
    }
    assert api.get("/api/v1/working-memory/c1", **personas.owner.headers).json() == {}


def test_a_chunked_body_without_length_is_a_411() -> None:
    from django.http import HttpResponse
    from django.test import RequestFactory

    from memory_site.middleware import api_trailing_slash

    request = RequestFactory().post(
        "/api/v1/agents", b'{"name": "x"}', content_type="application/json", HTTP_TRANSFER_ENCODING="chunked"
    )
    del request.META["CONTENT_LENGTH"]  # what a WSGI server hands Django for a chunked body
    response = api_trailing_slash(lambda r: HttpResponse("reached the view"))(request)
    assert response.status_code == 411 and b"Content-Length" in response.content


def test_a_nul_character_in_a_stored_document_is_a_400_not_a_500(api: APIClient, personas: Personas) -> None:
    """Found by schema fuzzing: a workflow pool write with a NUL escape in a string answered 500."""
    h = personas.owner.headers
    raw = '{"data": {"note": "a\\u0000b"}}'
    response = api.put("/api/v1/workflow-pools/p1/blackboard", raw, content_type="application/json", **h)
    assert _envelope(response, 400)["message"] == MESSAGE_NUL
