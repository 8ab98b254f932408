from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from accounts import services
from accounts.api.views import MESSAGE_KEY_NOT_FOUND
from accounts.models import Agent
from accounts.services import MESSAGE_AGENT_NAME_TAKEN
from memory_site.api.authentication import MESSAGE_AGENT_NOT_FOUND, MESSAGE_NEEDS_API_KEY
from memory_site.api.errors import MESSAGE_INVALID_INPUT
from tests.conftest import Personas
from tests.factories import make_agent

pytestmark = pytest.mark.django_db


def test_me_is_the_agent_behind_the_key(api: APIClient, personas: Personas) -> None:
    body = api.get("/api/v1/agents/me", **personas.teammate.headers).json()
    assert body["id"] == str(personas.teammate.agent.id)
    assert body["name"] == personas.teammate.agent.name


def test_the_agent_list_is_the_owners_agents_only(api: APIClient, personas: Personas) -> None:
    body = api.get("/api/v1/agents/", **personas.owner.headers).json()
    assert body["count"] == 2
    names = {row["name"] for row in body["results"]}
    assert names == {personas.owner.agent.name, personas.teammate.agent.name}
    assert personas.outsider.agent.name not in names


def test_a_teammate_sees_the_owners_agent(api: APIClient, personas: Personas) -> None:
    response = api.get(f"/api/v1/agents/{personas.owner.agent.id}", **personas.teammate.headers)
    assert response.status_code == 200


def test_an_outsider_gets_404_on_the_owners_agent_and_keys(api: APIClient, personas: Personas) -> None:
    owner = personas.owner
    outsider = personas.outsider.headers
    response = api.get(f"/api/v1/agents/{owner.agent.id}", **outsider)
    assert (response.status_code, response.json()["message"]) == (404, MESSAGE_AGENT_NOT_FOUND)
    response = api.patch(f"/api/v1/agents/{owner.agent.id}", {"name": "taken-over"}, format="json", **outsider)
    assert response.status_code == 404
    response = api.post(f"/api/v1/keys/{owner.api_key.prefix}/revoke", **outsider)
    assert (response.status_code, response.json()["message"]) == (404, MESSAGE_KEY_NOT_FOUND)
    response = api.post("/api/v1/keys", {"agent_id": str(owner.agent.id)}, format="json", **outsider)
    assert response.status_code == 404
    listed = {row["prefix"] for row in api.get("/api/v1/keys", **outsider).json()["results"]}
    assert listed == {personas.outsider.api_key.prefix}
    # Nothing changed for the owner.
    assert api.get("/api/v1/agents/me", **owner.headers).status_code == 200
    assert Agent.objects.get(pk=owner.agent.pk).name == owner.agent.name


def test_it_creates_an_agent_and_refuses_a_duplicate_name(api: APIClient, personas: Personas) -> None:
    headers = personas.owner.headers
    response = api.post(
        "/api/v1/agents", {"name": "researcher", "config": {"recall_disabled": True}}, format="json", **headers
    )
    assert response.status_code == 201
    assert response.json()["config"] == {"recall_disabled": True}
    again = api.post("/api/v1/agents/", {"name": "researcher"}, format="json", **headers)
    assert again.status_code == 409
    assert again.json() == {"message": MESSAGE_AGENT_NAME_TAKEN, "extra": {}}
    # Another owner may use the same name.
    assert (
        api.post("/api/v1/agents", {"name": "researcher"}, format="json", **personas.outsider.headers).status_code
        == 201
    )


def test_it_refuses_an_agent_config_of_the_wrong_shape(api: APIClient, personas: Personas) -> None:
    agent_url = f"/api/v1/agents/{personas.owner.agent.id}"
    for config in [["not", "an", "object"], {"recall_disabled": "maybe"}, {"surprise": 1}]:
        response = api.patch(agent_url, {"config": config}, format="json", **personas.owner.headers)
        assert response.status_code == 400, config
        assert response.json()["message"] == MESSAGE_INVALID_INPUT
        assert "config" in response.json()["extra"]["fields"]
    assert Agent.objects.get(pk=personas.owner.agent.pk).config == {}
    response = api.patch(agent_url, {"config": {"recall_disabled": True}}, format="json", **personas.owner.headers)
    assert response.json()["config"] == {"recall_disabled": True}
    assert Agent.objects.get(pk=personas.owner.agent.pk).recall_disabled is True


def test_a_new_key_is_shown_once_and_works_until_revoked(api: APIClient, personas: Personas) -> None:
    headers = personas.owner.headers
    created = api.post(
        "/api/v1/keys", {"agent_id": str(personas.teammate.agent.id), "name": "ci"}, format="json", **headers
    )
    assert created.status_code == 201
    key = created.json()["key"]
    prefix = created.json()["prefix"]
    assert key.startswith(f"loci_{prefix}_")

    me = api.get("/api/v1/agents/me", HTTP_X_API_KEY=key)
    assert me.json()["id"] == str(personas.teammate.agent.id)
    listed = api.get("/api/v1/keys", **headers).json()["results"]
    assert prefix in {row["prefix"] for row in listed}
    assert all("key" not in row for row in listed)

    revoked = api.post(f"/api/v1/keys/{prefix}/revoke", **headers)
    assert revoked.status_code == 200 and revoked.json()["active"] is False
    first_revocation = revoked.json()["revoked_at"]
    assert api.post(f"/api/v1/keys/{prefix}/revoke", **headers).json()["revoked_at"] == first_revocation
    assert api.get("/api/v1/agents/me", HTTP_X_API_KEY=key).status_code == 401


def test_a_key_defaults_to_the_calling_agent(api: APIClient, personas: Personas) -> None:
    created = api.post("/api/v1/keys", {}, format="json", **personas.teammate.headers).json()
    assert created["agent_id"] == str(personas.teammate.agent.id)


@override_settings(API_PAGE_SIZE=2, API_MAX_PAGE_SIZE=3)
def test_pages_are_bounded(api: APIClient, personas: Personas) -> None:
    for _ in range(4):
        make_agent(owner=personas.owner.user)
    first = api.get("/api/v1/agents", **personas.owner.headers).json()
    assert first["count"] == 6 and len(first["results"]) == 2 and first["next"]
    capped = api.get("/api/v1/agents?page_size=1000", **personas.owner.headers).json()
    assert len(capped["results"]) == 3
    beyond = api.get("/api/v1/agents?page=99", **personas.owner.headers)
    assert beyond.status_code == 404 and set(beyond.json()) == {"message", "extra"}


def test_a_logged_in_person_uses_the_api_without_a_key(api: APIClient, personas: Personas) -> None:
    api.force_login(personas.owner.user)
    assert api.get("/api/v1/agents").json()["count"] == 2
    me = api.get("/api/v1/agents/me")
    assert me.status_code == 403 and me.json()["message"] == MESSAGE_NEEDS_API_KEY
    missing_agent = api.post("/api/v1/keys", {}, format="json")
    assert missing_agent.status_code == 400


def test_strings_are_not_made_out_of_numbers(api: APIClient, personas: Personas) -> None:
    response = api.post("/api/v1/agents", {"name": 123}, format="json", **personas.owner.headers)
    assert response.status_code == 400 and "name" in response.json()["extra"]["fields"]
    assert not Agent.objects.filter(name="123").exists()


def test_usage_is_summed_per_source_for_the_owner_only(api: APIClient, personas: Personas) -> None:
    owner = personas.owner.user
    for tokens in (10, 30):
        services.usage_record(
            owner_id=owner.pk, source="memory_embed", provider="openai", model="m", items=2, input_tokens=tokens
        )
    services.usage_record(
        owner_id=personas.outsider.user.pk, source="memory_rerank", provider="openai", model="gpt-4o-mini", items=1
    )
    body = api.get("/api/v1/usage", **personas.teammate.headers).json()
    assert (body["count"], body["next"], body["previous"]) == (1, None, None)
    [row] = body["results"]
    assert {k: row[k] for k in ("source", "calls", "items", "input_tokens")} == {
        "source": "memory_embed",
        "calls": 2,
        "items": 4,
        "input_tokens": 40,
    }
