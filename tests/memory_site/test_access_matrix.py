"""The access matrix, generated from the URL configuration (issue 19 §2): every route, every method, called
anonymously, with a revoked key and (for the admin) as a signed-in user who is not staff, is refused —
never a 2xx, never a 5xx, never a byte of the owner's memory. A route added later is in the matrix by
construction; one that should answer anonymously must be named in PUBLIC, with the reason.

The object columns come from the same walk: every route and method, its parameters filled with the owner's
real objects (a conversation, wing, room, closet and drawer, an episode, a typed memory, a context with an
entry and a snapshot, an agent-private pool, a webhook endpoint, short-term and working memory, the ledger,
a knowledge-graph entity, an exclusion rule, the owner's agent and key), called by an outsider (another
person's agent; signed in, for the browser pages): a route naming an object by its global id answers as if
it did not exist, no answer holds the owner's text or ids, every count equals what a newcomer with nothing
stored sees, and afterwards the owner's export, working memory, ledger, short-term memory and pools are
unchanged; every MCP tool (from the server's own list) likewise. A teammate (another agent of the same
person) is refused every route of the owner agent's agent-scoped context and agent-private pool until it is
granted access."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from accounts.models import ExclusionRule
from accounts.services import api_key_revoke
from episodic.models import Episode
from ledger import services as ledger_services
from memory_site.mcp_server.tools import TOOLS
from palace.models import Conversation, Drawer, Entity
from palace.services import mining
from tests.conftest import Personas
from tests.factories import Persona, make_persona, make_user
from tests.palace.test_export_import import remembered  # noqa: F401 - the populated owner

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
    "favicon.ico": "a redirect to the site's icon, a static file",
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


# --- the object columns: outsider and teammate on the owner's real objects ---------------------------------


@pytest.fixture
def owned(api: APIClient, remembered: Personas) -> tuple[Personas, dict[str, str]]:  # noqa: F811
    """The owner's memory (tests/palace/test_export_import.py `remembered`) plus an object of every other
    kind a route names, each holding SECRET where it holds text; returns the values that fill each route
    parameter with the owner's own objects."""
    owner = remembered.owner
    h = owner.headers

    def made(response: Any) -> dict[str, Any]:
        assert response.status_code in (200, 201, 202), response.content
        return dict(response.json())

    turns = [{"role": "user", "content": f"My locker code is {SECRET}."}]
    job = made(api.post("/api/v1/conversations", {"conversation_id": "c3", "turns": turns}, format="json", **h))
    mining.conversation_mine(conversation=Conversation.objects.get(owner=owner.user, external_id="c3"))
    memory = made(
        api.post("/api/v1/memories/typed/semantic", {"content": SECRET, "entity_id": "e"}, format="json", **h)
    )
    context = made(api.post("/api/v1/contexts", {"name": "private", "description": SECRET}, format="json", **h))
    entry = made(api.post(f"/api/v1/contexts/{context['id']}/entries", {"content": SECRET}, format="json", **h))
    snapshot = made(api.post(f"/api/v1/contexts/{context['id']}/snapshots", {"label": SECRET}, format="json", **h))
    pool = {"pool_id": "mine", "pool_type": "agent_private", "scope": "agent", "data": {"s": SECRET}}
    made(api.post("/api/v1/pools", pool, format="json", **h))
    webhook = {"url": "https://hooks.example.com/loci", "event_types": ["memory.mined"], "description": SECRET}
    endpoint = made(api.post("/api/v1/webhooks", webhook, format="json", **h))
    made(api.put("/api/v1/short-term/s1/k", {"value": {"s": SECRET}}, format="json", **h))
    made(api.put("/api/v1/working-memory/c3", {"fields": {"s": SECRET}}, format="json", **h))
    made(api.post("/api/v1/ledger/c3/mark", {"item": SECRET}, format="json", **h))
    drawer = Drawer.objects.filter(owner=owner.user).select_related("closet__room").order_by("number").first()
    episode = Episode.objects.filter(owner=owner.user).first()
    entity = Entity.objects.filter(owner=owner.user).first()
    rule = ExclusionRule.objects.filter(owner=owner.user).first()
    assert drawer and episode and entity and rule
    values = {
        "conversation_id": "c3",
        "session_id": "s1",
        "key": "k",
        "name": entity.name,
        "entity_id:int": str(entity.pk),
        "entity_id": "e",
        "memory_type": "semantic",
        "wing_id": str(drawer.closet.room.wing_id),
        "room_id": str(drawer.closet.room_id),
        "closet_id": str(drawer.closet_id),
        "drawer_id": str(drawer.pk),
        "episode_id": str(episode.pk),
        "memory_id": str(memory["id"]),
        "context_id": str(context["id"]),
        "entry_id": str(entry["id"]),
        "snapshot_id": str(snapshot["id"]),
        "pool_id": "mine",
        "run_id": "run",
        "pool_type": "shared",
        "rule_id": str(rule.pk),
        "endpoint_id": str(endpoint["id"]),
        "delivery_id": str(uuid.uuid4()),
        "job_id": str(job["job_id"]),
        "agent_id": str(owner.agent.pk),
        "source_agent_id": str(owner.agent.pk),
        "prefix": owner.api_key.prefix,
        "receipt_id": str(uuid.uuid4()),
        "tier": "long_term",
        "flag": "pin",
        "step_name": "s",
        "tool_name": "t",
        "field_name": "s",
    }
    return remembered, values


def filled(route: str, values: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        kind, name = match.group(1) or "str", match.group(2)
        return values.get(f"{name}:{kind}") or values.get(name) or FILLERS[kind]

    path = re.sub(r"<(?:(\w+):)?(\w+)>", value, route)
    return "/" + path.replace("^", "").replace("$", "")


def owner_state(api: APIClient, owner: Persona) -> list[str]:
    """Everything the owner can read back, as text: the export, working memory, the ledger, short-term."""
    exported = b"".join(api.get("/api/v1/export", **owner.headers).streaming_content).decode()  # type: ignore[attr-defined]
    rows = [line for line in exported.splitlines() if '"exported_at"' not in line]
    for path in ("/api/v1/working-memory/c3", "/api/v1/ledger/c3", "/api/v1/short-term/s1/k", "/api/v1/pools/mine"):
        read = api.get(path, **owner.headers).json()
        # These reads count themselves: the counters are the owner's own doing, not the outsider's.
        read = {k: v for k, v in read.items() if k not in ("access_count", "last_accessed_at")}
        rows.append(json.dumps(read, sort_keys=True))
    return rows


def markers(values: dict[str, str], owner: Persona) -> list[str]:
    """Strings only the owner's data holds: SECRET and the owner's unguessable ids."""
    ids = [values[k] for k in ("context_id", "entry_id", "snapshot_id", "memory_id", "episode_id", "endpoint_id")]
    return [SECRET, str(owner.agent.pk), owner.user.username, *ids]


def api_routes() -> list[str]:
    return [r for r in routes() if not r.startswith(("admin/", "accounts/")) and r not in PUBLIC]


def test_an_outsider_reaches_none_of_the_owners_objects(
    api: APIClient, owned: tuple[Personas, dict[str, str]], django_capture_on_commit_callbacks: Any
) -> None:
    personas, values = owned
    owner, outsider = personas.owner, personas.outsider
    before = owner_state(api, owner)
    secrets = markers(values, owner)
    newcomer = make_persona()
    browser = Client()
    browser.force_login(outsider.user)
    checked = 0
    for method in METHODS:  # every read first, before the outsider has written anything of its own
        for route in api_routes():
            path = filled(route, values)
            with django_capture_on_commit_callbacks(execute=True):
                if route.startswith(("memory/", "settings/")):
                    response = getattr(browser, method)(path)
                else:
                    response = getattr(api, method)(path, {}, format="json", **outsider.headers)
            where = f"{method.upper()} {path} -> {response.status_code}"
            body = b"".join(response.streaming_content) if response.streaming else response.content
            text = body.decode(errors="replace")
            assert response.status_code < 500, where
            assert not [s for s in secrets if s in text], where
            # A route naming one of the owner's objects by its global id answers as if it did not exist.
            if re.search(r"<(int|uuid):", route):
                refusals = (302, 403, 404, 405) if route.startswith(("memory/", "settings/")) else (400, 403, 404, 405)
                assert response.status_code in refusals, where
            if (
                method == "get"
                and response.status_code == 200
                and response.get("Content-Type", "").startswith("application/json")
            ):
                # Counts and totals: what a newcomer with nothing stored sees (their own agent and key).
                counted = json.loads(text)
                if isinstance(counted, dict) and isinstance(counted.get("count"), int):
                    control = api.get(path, **newcomer.headers).json()
                    assert counted["count"] == control["count"], f"{where}: a count includes the owner's rows"
            checked += 1
    assert checked > 700  # every non-admin route, every method
    assert owner_state(api, owner) == before  # nothing the outsider sent changed the owner's memory


def test_a_teammate_reaches_no_scoped_object_it_was_not_granted(
    api: APIClient, owned: tuple[Personas, dict[str, str]]
) -> None:
    """Another agent of the same person: the agent-scoped context and the agent-private pool of the owner's
    agent stay closed to it until granted, on every route that names them."""
    personas, values = owned
    owner, teammate = personas.owner, personas.teammate
    before = owner_state(api, owner)
    scoped = [r for r in api_routes() if "<uuid:context_id>" in r or "<str:pool_id>" in r]
    assert len(scoped) > 15
    for method in METHODS:
        for route in scoped:
            path = filled(route, values)
            response = getattr(api, method)(path, {}, format="json", **teammate.headers)
            where = f"{method.upper()} {path} -> {response.status_code}"
            assert response.status_code in (400, 403, 404, 405), where
            assert SECRET not in response.content.decode(errors="replace"), where
    assert owner_state(api, owner) == before
    granted = {"agent_id": str(teammate.agent.pk), "level": "read"}
    assert api.post("/api/v1/pools/mine/grant", granted, format="json", **owner.headers).status_code == 200
    assert SECRET in api.get("/api/v1/pools/mine", **teammate.headers).content.decode()  # the column can pass


def test_an_outsider_reaches_none_of_the_owners_objects_through_mcp_tools(
    api: APIClient, owned: tuple[Personas, dict[str, str]]
) -> None:
    """Every MCP tool, from the server's own list, called by an outsider with arguments that name the owner's
    objects (its conversation, job, drawer and entity, and a query its memory answers with SECRET)."""
    personas, values = owned
    owner, outsider = personas.owner, personas.outsider
    before = owner_state(api, owner)
    secrets = markers(values, owner)
    arguments = {
        "query": "what is my locker code",  # the owner's drawer answers it with SECRET
        "conversation_id": "c3",
        "job_id": values["job_id"],
        "memory_type": "semantic",
        "content": "an outsider's note",
        "entity_id": "e",
        "action": "get",
        "item": "locker",
        "entity": values["name"],
        "subject": values["name"],
        "predicate": "knows",
        "object": "someone",
        "turns": [{"role": "user", "content": "hello"}],
        "kind": "drawer",
        "id": values["drawer_id"],
        "fields": {"s": "x"},
    }
    called = 0
    for tool in TOOLS.values():
        schema = tool.input_schema
        given = {name: arguments[name] for name in schema.get("required", [])}
        for action in schema["properties"].get("action", {}).get("enum", [None]):
            args = given | ({"action": action} if action else {})
            if tool.name == "forget":
                args |= {"kind": "drawer", "id": values["drawer_id"]}
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool.name, "arguments": args}}
            response = api.post("/mcp", body, format="json", **outsider.headers)
            text = response.content.decode(errors="replace")
            assert response.status_code == 200, f"{tool.name}: {text[:300]}"
            assert not [s for s in secrets if s in text], f"{tool.name} {args}: {text[:500]}"
            called += 1
    assert called >= len(TOOLS)
    assert owner_state(api, owner) == before
