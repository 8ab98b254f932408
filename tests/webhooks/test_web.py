from __future__ import annotations

import pytest
from django.test import Client

from tests.conftest import Personas
from webhooks.models import Delivery, Endpoint, Event

pytestmark = pytest.mark.django_db


def test_a_person_adds_an_endpoint_sees_the_secret_once_and_removes_it(client: Client, personas: Personas) -> None:
    client.force_login(personas.owner.user)
    section = client.get("/settings/memory/webhooks", HTTP_HX_REQUEST="true")
    assert section.status_code == 200 and b"No webhook endpoints" in section.content
    by_itself = client.get("/settings/memory/webhooks")  # not a bare fragment: the settings page, at its section
    assert by_itself.status_code == 302 and by_itself["Location"] == "/settings/memory#webhooks"

    added = client.post(
        "/settings/memory/webhooks/add",
        {"url": "https://hooks.example.com/in", "event_types": ["memory.mined", "memory.recalled"]},
    )
    endpoint = Endpoint.objects.get()
    assert added.status_code == 201 and endpoint.secret.encode() in added.content
    assert endpoint.event_types == ["memory.mined", "memory.recalled"]
    listed = client.get("/settings/memory/webhooks", HTTP_HX_REQUEST="true")
    assert b"hooks.example.com/in" in listed.content and endpoint.secret.encode() not in listed.content

    client.force_login(personas.outsider.user)
    assert client.post(f"/settings/memory/webhooks/{endpoint.pk}/delete").status_code == 404
    client.force_login(personas.owner.user)
    removed = client.post(f"/settings/memory/webhooks/{endpoint.pk}/delete")
    assert removed.status_code == 302 and not Endpoint.objects.exists()


def test_a_bad_url_is_shown_back_with_its_error(client: Client, personas: Personas) -> None:
    client.force_login(personas.owner.user)
    answer = client.post(
        "/settings/memory/webhooks/add", {"url": "ftp://x.example.com", "event_types": ["memory.mined"]}
    )
    assert answer.status_code == 400 and b"Only http:// and https://" in answer.content
    assert not Endpoint.objects.exists()


def test_the_settings_page_says_why_an_endpoint_fails(client: Client, personas: Personas) -> None:
    client.force_login(personas.owner.user)
    client.post(
        "/settings/memory/webhooks/add", {"url": "https://hooks.example.com/in", "event_types": ["memory.mined"]}
    )
    endpoint = Endpoint.objects.get()
    event = Event.objects.create(owner=personas.owner.user, type="memory.mined", endpoint_ids=[endpoint.pk])
    Delivery.objects.create(event=event, endpoint=endpoint, attempt=1, status_code=503)
    Delivery.objects.create(event=event, endpoint=endpoint, attempt=2, error="The address is private: refused.")
    html = client.get("/settings/memory").content.decode()
    assert "Last deliveries" in html and "answered 503" in html and "The address is private: refused." in html
