"""The access matrix, generated from the URL configuration (issue 19 §2): every route, every method, called
anonymously, with a revoked key and (for the admin) as a signed-in user who is not staff, is refused —
never a 2xx, never a 5xx, never a byte of the owner's memory. A route added later is in the matrix by
construction; one that should answer anonymously must be named in PUBLIC, with the reason.

The owner-teammate-outsider columns for objects are the apps' own tests (tests/*/test_*: every
service's "outsider gets 404" case) and the schema fuzzer; this file makes sure nothing is reachable
without a valid identity at all."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.services import api_key_revoke
from ledger import services as ledger_services
from tests.factories import make_persona, make_user

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
SECRET = f"owner-secret-{uuid.uuid4().hex}"

# Routes that answer without an identity, and why. Everything else must refuse.
PUBLIC = {
    "health": "liveness for load balancers: component states, no user data",
    "api/v1/health": "the same under the API prefix",
    "api/schema/": "the OpenAPI document: the API's shape, no data",
    "api/docs/": "the schema browser",
    "accounts/login/": "the sign-in form",
    "accounts/logout/": "signing out",
    "accounts/password_reset/": "the reset form (answers the same for any address)",
    "accounts/password_reset/done/": "a static page",
    "accounts/reset/<uidb64>/<token>/": "a reset link (refuses a bad token itself)",
    "accounts/reset/done/": "a static page",
    "admin/login/": "the operators' sign-in form",
    "admin/logout/": "signing out",
    "admin/jsi18n/": "the admin's translation catalogue",
    "admin/(?P<url>.*)$": "the admin's catch-all: redirects to its sign-in",
}

FILLERS = {"int": "1", "uuid": str(uuid.UUID(int=1)), "str": "x", "path": "1", "slug": "x"}


def routes() -> Iterator[str]:
    def walk(patterns: list[URLPattern | URLResolver], prefix: str) -> Iterator[str]:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            else:
                yield prefix + str(entry.pattern)

    yield from walk(get_resolver().url_patterns, "")


def concrete(route: str) -> str:
    """A path that reaches the route, with a placeholder of the right type for each parameter."""
    path = re.sub(r"<(?:(\w+):)?\w+>", lambda m: FILLERS[m.group(1) or "str"], route)
    path = re.sub(r"\(\?P<app_label>[^)]*\)", "auth", path)
    path = path.replace("^", "").replace("$", "").replace("(?P<url>.*)", "anything")
    return "/" + path


def assert_refused(route: str, method: str, response: object, *, anonymous: bool) -> None:
    status = response.status_code  # type: ignore[attr-defined]
    body = response.content.decode(errors="replace")  # type: ignore[attr-defined]
    where = f"{method.upper()} {route} -> {status}"
    assert SECRET not in body, where
    assert status < 500, where
    if route in PUBLIC:
        return
    if status in (301, 302):
        target = response["Location"]  # type: ignore[index]
        assert "login" in target, where  # the browser pages and the admin send a stranger to sign in
        return
    assert status in (401, 403, 405), where
    if route.startswith(("api/", "working-memory", "ledger", "episodic", "memories", "mcp")) and status != 405:
        assert '"message"' in body, where  # the one envelope


@pytest.fixture
def owner_memory() -> str:
    """The owner's working memory holds SECRET, so a leak anywhere would show it."""
    owner = make_persona()
    ledger_services.working_memory_merge(owner_id=owner.user.pk, conversation_id="x", fields={"s": SECRET})
    return owner.key


def test_every_route_refuses_a_caller_without_an_identity(owner_memory: str) -> None:
    client = Client()
    checked = 0
    for route in routes():
        for method in METHODS:
            response = getattr(client, method)(concrete(route))
            assert_refused(route, method, response, anonymous=True)
            checked += 1
    assert checked > 1500  # the whole URL configuration, not a hand-kept subset


def test_every_route_refuses_a_revoked_key(django_capture_on_commit_callbacks: object) -> None:
    persona = make_persona()
    ledger_services.working_memory_merge(owner_id=persona.user.pk, conversation_id="x", fields={"s": SECRET})
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        api_key_revoke(api_key=persona.api_key)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {persona.key}")
    for route in routes():
        if route.startswith("admin/") or route.startswith("accounts/"):
            continue  # sessions, not keys: the anonymous test covers them
        for method in METHODS:
            response = getattr(client, method)(concrete(route), content_type="application/json")
            assert_refused(route, method, response, anonymous=False)
            if route.startswith("api/v1/") and route not in PUBLIC and response.status_code != 405:
                assert response.status_code == 401, f"{method.upper()} {route}"


def test_the_admin_refuses_a_signed_in_user_who_is_not_staff(owner_memory: str) -> None:
    client = Client()
    client.force_login(make_user("not-staff"))
    for route in routes():
        if not route.startswith("admin/") or route in PUBLIC:
            continue
        response = client.get(concrete(route))
        assert_refused(route, "get", response, anonymous=False)
