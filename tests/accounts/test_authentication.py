from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient, APIRequestFactory

from accounts import services
from accounts.models import ApiKey
from memory_site.api.authentication import MESSAGE_INVALID_KEY, MESSAGE_MALFORMED_HEADER
from memory_site.redis_client import get_redis
from tests.factories import Persona, make_persona

pytestmark = pytest.mark.django_db

ME = "/api/v1/agents/me"


def _assert_401(response, message: str) -> None:
    assert response.status_code == 401
    assert response.json() == {"message": message, "extra": {}}
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_it_refuses_a_request_without_a_key(api: APIClient) -> None:
    _assert_401(api.get(ME), "Authentication credentials were not provided.")


def test_it_refuses_an_unknown_key(api: APIClient) -> None:
    make_persona()
    _assert_401(api.get(ME, HTTP_AUTHORIZATION="Bearer loci_nothere_notakey"), MESSAGE_INVALID_KEY)
    _assert_401(api.get(ME, HTTP_X_API_KEY="garbage"), MESSAGE_INVALID_KEY)


def test_it_refuses_a_revoked_key(api: APIClient) -> None:
    persona = make_persona()
    assert api.get(ME, **persona.headers).status_code == 200
    services.api_key_revoke(api_key=persona.api_key)
    _assert_401(api.get(ME, **persona.headers), MESSAGE_INVALID_KEY)


def test_it_refuses_a_key_whose_owner_is_deactivated(api: APIClient) -> None:
    persona = make_persona()
    persona.user.is_active = False
    persona.user.save()
    _assert_401(api.get(ME, **persona.headers), MESSAGE_INVALID_KEY)


def test_it_refuses_a_malformed_bearer_header(api: APIClient) -> None:
    _assert_401(api.get(ME, HTTP_AUTHORIZATION="Bearer"), MESSAGE_MALFORMED_HEADER)
    _assert_401(api.get(ME, HTTP_AUTHORIZATION="Bearer two parts"), MESSAGE_MALFORMED_HEADER)
    _assert_401(api.get(ME, HTTP_AUTHORIZATION="Token loci_abc"), MESSAGE_MALFORMED_HEADER)  # the scheme is named


@pytest.mark.parametrize("header", ["bearer", "x-api-key"])
def test_it_accepts_both_headers(api: APIClient, header: str) -> None:
    persona = make_persona()
    headers = persona.headers if header == "bearer" else {"HTTP_X_API_KEY": persona.key}
    response = api.get(ME, **headers)
    assert response.status_code == 200
    assert response.json()["id"] == str(persona.agent.id)


def test_last_used_at_moves_without_a_write_on_every_request(api: APIClient) -> None:
    persona = make_persona()
    assert persona.api_key.last_used_at is None

    api.get(ME, **persona.headers)
    first = ApiKey.objects.get(pk=persona.api_key.pk).last_used_at
    assert first is not None

    with CaptureQueriesContext(connection) as queries:
        api.get(ME, **persona.headers)
    assert not [q for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    assert ApiKey.objects.get(pk=persona.api_key.pk).last_used_at == first

    # A minute later (the row and the Redis marker both say so) the next request records the use again.
    ApiKey.objects.filter(pk=persona.api_key.pk).update(last_used_at=first - timedelta(minutes=2))
    get_redis().delete(f"auth:touch:{persona.api_key.prefix}")
    api.get(ME, **persona.headers)
    moved = ApiKey.objects.get(pk=persona.api_key.pk).last_used_at
    assert moved is not None and moved > first


def test_concurrent_stale_touches_write_once() -> None:
    persona = make_persona()
    stale = ApiKey.objects.get(pk=persona.api_key.pk)
    other = ApiKey.objects.get(pk=persona.api_key.pk)
    now = timezone.now()
    assert services.api_key_touch(api_key=stale, now=now) is True
    # The second copy still believes the key was never used; the conditional UPDATE refuses it.
    assert services.api_key_touch(api_key=other, now=now) is False


def _all_text_in_table(table: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {table}")
        return " ".join(str(value) for row in cursor.fetchall() for value in row)


def test_a_key_is_never_stored_or_logged_in_clear(api: APIClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    persona: Persona = make_persona()
    api.get(ME, **persona.headers)
    api.get(ME, HTTP_X_API_KEY=persona.key + "x")  # a failed attempt is not logged with its key either
    stored = _all_text_in_table(ApiKey._meta.db_table)
    secret = persona.key.rsplit("_", 1)[1]
    assert persona.api_key.prefix in stored
    assert secret not in stored
    assert persona.key not in stored
    assert secret not in caplog.text


def test_a_known_key_is_served_from_the_cache_without_a_database_query(api: APIClient) -> None:
    persona = make_persona()
    api.get("/api/v1/ledger/c1", **persona.headers)
    with CaptureQueriesContext(connection) as queries:
        assert api.get("/api/v1/ledger/c1", **persona.headers).status_code == 200
    assert queries.captured_queries == []


def test_an_agent_change_reaches_cached_keys_at_once(api: APIClient) -> None:
    persona = make_persona()
    assert api.get(ME, **persona.headers).json()["config"] == {}
    api.patch(
        f"/api/v1/agents/{persona.agent.id}", {"config": {"recall_disabled": True}}, format="json", **persona.headers
    )
    assert api.get(ME, **persona.headers).json()["config"] == {"recall_disabled": True}


def test_keys_still_authenticate_when_redis_is_down(api: APIClient, unreachable_redis: None) -> None:
    persona = make_persona()
    assert api.get(ME, **persona.headers).status_code == 200
    _assert_401(api.get(ME, HTTP_X_API_KEY=persona.key + "x"), MESSAGE_INVALID_KEY)
    services.api_key_revoke(api_key=persona.api_key)
    _assert_401(api.get(ME, **persona.headers), MESSAGE_INVALID_KEY)


@pytest.mark.parametrize("cached", [False, True])
def test_the_owner_a_key_brings_is_the_owner_field_by_field(cached: bool) -> None:
    from memory_site.api.authentication import ApiKeyAuthentication

    persona = make_persona()
    request = APIRequestFactory().get(ME, HTTP_X_API_KEY=persona.key)
    if cached:
        ApiKeyAuthentication().authenticate(request)  # the first request fills the cache; the next reads it
    owner, _ = ApiKeyAuthentication().authenticate(request)  # type: ignore[misc]
    assert (owner.pk, owner.username) == (persona.user.pk, persona.user.username)
    assert owner.is_active is True and owner.is_superuser is False and owner.is_staff is False
