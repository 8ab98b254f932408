from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from palace.models import ActivityEvent
from tests.conftest import Personas
from webhooks.addresses import MESSAGE_PRIVATE, MESSAGE_SCHEME
from webhooks.models import Endpoint
from webhooks.selectors import MESSAGE_NO_ENDPOINT

pytestmark = pytest.mark.django_db

URL = "https://hooks.example.com/loci"


def _register(api: APIClient, headers: dict[str, Any], **body: Any) -> Any:
    return api.post("/api/v1/webhooks", {"url": URL, "event_types": ["memory.mined"], **body}, format="json", **headers)


def test_registration_shows_the_secret_once(api: APIClient, personas: Personas) -> None:
    created = _register(api, personas.owner.headers, event_types=["memory.mined", "memory.deleted"])
    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 30
    assert body["event_types"] == ["memory.deleted", "memory.mined"] and body["active"] is True
    assert body["failing"] is False and body["failing_since"] is None
    read = api.get(f"/api/v1/webhooks/{body['id']}", **personas.owner.headers).json()
    listed = api.get("/api/v1/webhooks", **personas.owner.headers).json()
    assert "secret" not in read and listed["count"] == 1 and "secret" not in listed["results"][0]
    assert Endpoint.objects.get().secret == body["secret"]
    assert ActivityEvent.objects.filter(kind="webhook_created", owner=personas.owner.user).exists()


def test_a_teammate_manages_the_owners_endpoints(api: APIClient, personas: Personas) -> None:
    endpoint_id = _register(api, personas.owner.headers).json()["id"]
    teammate = personas.teammate.headers
    patched = api.patch(f"/api/v1/webhooks/{endpoint_id}", {"active": False}, format="json", **teammate)
    assert patched.status_code == 200 and patched.json()["active"] is False
    assert api.delete(f"/api/v1/webhooks/{endpoint_id}", **personas.teammate.headers).status_code == 204
    assert not Endpoint.objects.exists()


def test_reactivating_an_endpoint_clears_failing_even_when_it_was_still_active(
    api: APIClient, personas: Personas
) -> None:
    endpoint_id = _register(api, personas.owner.headers).json()["id"]
    Endpoint.objects.filter(pk=endpoint_id).update(failing_since=timezone.now())
    base = f"/api/v1/webhooks/{endpoint_id}"
    assert api.get(base, **personas.owner.headers).json()["failing"] is True

    # A change of anything else leaves the mark; `active: true` is the owner saying "try it again".
    renamed = api.patch(base, {"event_types": ["memory.deleted"]}, format="json", **personas.owner.headers)
    assert renamed.status_code == 200 and renamed.json()["failing"] is True
    reactivated = api.patch(base, {"active": True}, format="json", **personas.owner.headers)
    assert reactivated.status_code == 200, reactivated.json()
    assert reactivated.json()["active"] is True and reactivated.json()["failing"] is False
    assert reactivated.json()["failing_since"] is None
    assert Endpoint.objects.get(pk=endpoint_id).failing_since is None


def test_an_outsider_gets_404_everywhere(api: APIClient, personas: Personas) -> None:
    endpoint_id = _register(api, personas.owner.headers).json()["id"]
    base = f"/api/v1/webhooks/{endpoint_id}"
    headers = personas.outsider.headers
    answers = [
        api.get(base, **headers),
        api.patch(base, {"active": False}, format="json", **headers),
        api.delete(base, **headers),
        api.get(f"{base}/deliveries", **headers),
        api.post(f"{base}/test", **headers),
        api.post(f"{base}/deliveries/1/replay", **headers),
    ]
    assert [a.status_code for a in answers] == [404] * 6
    assert answers[0].json()["message"] == MESSAGE_NO_ENDPOINT
    assert api.get("/api/v1/webhooks", **headers).json()["count"] == 0
    assert Endpoint.objects.get().active is True


def test_bad_input_is_refused_and_nothing_is_stored(api: APIClient, personas: Personas, settings: Any) -> None:
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    headers = personas.owner.headers
    scheme = _register(api, headers, url="ftp://hooks.example.com/x")
    assert scheme.status_code == 400 and scheme.json()["extra"]["fields"]["url"] == [MESSAGE_SCHEME]
    literals = ("http://127.0.0.1:9000/x", "http://10.1.2.3/x", "http://[::1]/x", "http://169.254.169.254/")
    old_forms = ("http://2130706433:9999/hook", "http://0x7f.1/x", "http://127.1/x", "http://[::ffff:127.0.0.1]/x")
    for private in (*literals, *old_forms):
        refused = _register(api, headers, url=private)
        assert refused.status_code == 400 and refused.json()["extra"]["fields"]["url"] == [MESSAGE_PRIVATE], private
    assert _register(api, headers, event_types=["memory.exploded"]).status_code == 400
    assert _register(api, headers, event_types=[]).status_code == 400
    assert _register(api, headers, url=12).status_code == 400
    assert not Endpoint.objects.exists()
    assert api.get("/api/v1/webhooks/not-a-uuid", **headers).status_code == 404


def test_a_request_without_a_key_is_refused(api: APIClient) -> None:
    assert api.get("/api/v1/webhooks").status_code in (401, 403)
