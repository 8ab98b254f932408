from __future__ import annotations

import json
import socket
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient
from standardwebhooks.webhooks import Webhook

from memory_site import events
from palace.models import ActivityEvent
from tests.conftest import Personas
from tests.webhooks.conftest import Receiver
from webhooks.addresses import MESSAGE_PRIVATE, MESSAGE_UNRESOLVED
from webhooks.models import Delivery, Endpoint, Event
from webhooks.services import endpoints
from webhooks.services.delivery import delivery_attempt
from webhooks.services.outbox import retry_delay

pytestmark = pytest.mark.django_db


def _endpoint(personas: Personas, url: str, types: list[str] | None = None) -> tuple[Endpoint, str]:
    registered = endpoints.endpoint_create(
        owner=personas.owner.user, url=url, event_types=types or [events.CONVERSATION_COMPLETED]
    )
    return registered.endpoint, registered.secret


def _event(personas: Personas) -> Event:
    with transaction.atomic():
        events.memory_event_emit(
            owner_id=personas.owner.user.pk,
            type=events.CONVERSATION_COMPLETED,
            payload={"conversation_id": "c1", "agent_id": None, "turns": 2},
        )
    return Event.objects.get()


def _due_now(delivery: Delivery) -> None:
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() - timedelta(seconds=1))


def test_a_delivery_is_signed_and_the_receiver_verifies_it(personas: Personas, receiver: Receiver) -> None:
    endpoint, secret = _endpoint(personas, receiver.url)
    event = _event(personas)
    delivery = delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk)

    assert delivery is not None and delivery.succeeded and delivery.status_code == 200
    (request,) = receiver.requests
    assert request.path == "/hooks"
    verified = Webhook(secret).verify(request.body, request.headers)
    assert verified == {
        "id": str(event.pk),
        "type": "conversation.completed",
        "timestamp": event.created_at.isoformat(),
        "data": {"conversation_id": "c1", "agent_id": None, "turns": 2},
    }
    assert request.headers["webhook-id"].startswith("msg_")
    # Signed with another secret, the receiver refuses it.
    with pytest.raises(Exception, match="signature"):
        Webhook(endpoints.secret_generate()).verify(request.body, request.headers)
    # A second send of the same delivery (at least once: the sweep and the task) sends nothing more.
    assert delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk) is None
    assert len(receiver.requests) == 1


def test_5xx_is_retried_with_growing_backoff_then_delivered(
    personas: Personas, receiver: Receiver, settings: Any
) -> None:
    settings.WEBHOOKS_RETRY_BASE = 10.0
    receiver.statuses = [500, 503]
    endpoint, secret = _endpoint(personas, receiver.url)
    event = _event(personas)

    first = delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk)
    assert first is not None and first.status_code == 500 and not first.succeeded
    assert first.next_attempt_at is not None and len(first.response_snippet) == 500
    first_delay = (first.next_attempt_at - first.created_at).total_seconds()
    assert 5 <= first_delay <= 10.5
    # Not due yet: nothing is sent.
    assert delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk) is None

    _due_now(first)
    second = delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk)
    assert second is not None and second.attempt == 2 and second.status_code == 503
    assert second.next_attempt_at is not None
    assert 10 <= (second.next_attempt_at - second.created_at).total_seconds() <= 20.5
    assert Delivery.objects.get(pk=first.pk).next_attempt_at is None  # the claimed retry is not due again

    _due_now(second)
    third = delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk)
    assert third is not None and third.succeeded and third.attempt == 3
    ids = {r.headers["webhook-id"] for r in receiver.requests}
    assert len(receiver.requests) == 3 and len(ids) == 1  # one stable id for every attempt
    for request in receiver.requests:
        Webhook(secret).verify(request.body, request.headers)
    assert Endpoint.objects.get().failing_since is None


def test_backoff_doubles_and_jitter_keeps_it_within_half_to_full() -> None:
    assert [retry_delay(attempt=a, jitter=1.0) for a in (1, 2, 3)] == [5.0, 10.0, 20.0]
    assert retry_delay(attempt=1, jitter=0.0) == 2.5
    assert retry_delay(attempt=40, jitter=1.0) == 3600.0


def test_the_endpoint_is_marked_failing_after_the_retry_window_and_replay_recovers_it(
    api: APIClient, personas: Personas, receiver: Receiver, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.WEBHOOKS_RETRY_FOR = 0
    receiver.statuses = [500]
    endpoint, _ = _endpoint(personas, receiver.url)
    event = _event(personas)

    failed = delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk)
    assert failed is not None and failed.next_attempt_at is None
    endpoint.refresh_from_db()
    assert endpoint.failing_since is not None
    shown = api.get(f"/api/v1/webhooks/{endpoint.pk}", **personas.owner.headers).json()
    assert shown["failing"] is True
    assert ActivityEvent.objects.filter(owner=personas.owner.user, kind="webhook_failing").count() == 1
    log = api.get(f"/api/v1/webhooks/{endpoint.pk}/deliveries", **personas.owner.headers).json()
    assert log["count"] == 1 and log["results"][0]["status_code"] == 500
    assert log["results"][0]["succeeded"] is False and log["results"][0]["error"] == "HTTP 500"

    with django_capture_on_commit_callbacks() as sent:
        replay = api.post(f"/api/v1/webhooks/{endpoint.pk}/deliveries/{failed.pk}/replay", **personas.owner.headers)
    assert replay.status_code == 202 and replay.json()["event_id"] == str(event.pk)
    assert len(sent) == 1  # the task is sent on commit
    # What that task runs: a new attempt, sent although no retry was due.
    replayed = delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk, replay=True)
    assert replayed is not None and replayed.succeeded and replayed.attempt == 2
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None
    assert api.get(f"/api/v1/webhooks/{endpoint.pk}", **personas.owner.headers).json()["failing"] is False
    assert len({r.headers["webhook-id"] for r in receiver.requests}) == 1


def test_loopback_is_refused_at_delivery_when_private_addresses_are_not_allowed(
    personas: Personas, receiver: Receiver, settings: Any
) -> None:
    endpoint, _ = _endpoint(personas, receiver.url)  # registered while allowed
    event = _event(personas)
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    refused = delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk)
    assert refused is not None and refused.error == MESSAGE_PRIVATE and refused.status_code is None
    assert refused.next_attempt_at is None and receiver.requests == []


def test_a_name_resolving_to_a_private_address_is_refused_at_delivery(
    personas: Personas, receiver: Receiver, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    # Public-looking when registered; the name later resolves to a private address (DNS rebinding).
    endpoint, _ = _endpoint(personas, "http://hooks.rebind.test:8080/x")
    event = _event(personas)
    real = socket.getaddrinfo

    def resolve(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "hooks.rebind.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.5", 8080))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    refused = delivery_attempt(event_id=event.pk, endpoint_id=endpoint.pk)
    assert refused is not None and refused.error == MESSAGE_PRIVATE and refused.status_code is None


def test_a_host_name_that_does_not_resolve_is_retried_like_a_refused_connection(
    api: APIClient,
    personas: Personas,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    endpoint, _ = _endpoint(personas, "https://hooks.unresolved.test/x")

    real = socket.getaddrinfo

    def unresolved(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "hooks.unresolved.test":
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", unresolved)
    with django_capture_on_commit_callbacks():
        ping = api.post(f"/api/v1/webhooks/{endpoint.pk}/test", **personas.owner.headers).json()
    failed = delivery_attempt(event_id=ping["event_id"], endpoint_id=endpoint.pk)
    # DNS outages pass: a retry is due, and one failed attempt does not mark the endpoint failing.
    assert failed is not None and failed.error == MESSAGE_UNRESOLVED and failed.status_code is None
    assert failed.next_attempt_at is not None
    assert api.get(f"/api/v1/webhooks/{endpoint.pk}", **personas.owner.headers).json()["failing"] is False

    settings.WEBHOOKS_RETRY_FOR = 0  # past the retry window, it is failing like any other error
    _due_now(failed)
    last = delivery_attempt(event_id=ping["event_id"], endpoint_id=endpoint.pk)
    assert last is not None and last.attempt == 2 and last.next_attempt_at is None
    assert api.get(f"/api/v1/webhooks/{endpoint.pk}", **personas.owner.headers).json()["failing"] is True


def test_a_ping_reaches_the_endpoint_whatever_its_event_types(
    api: APIClient, personas: Personas, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint, secret = _endpoint(personas, receiver.url, [events.MEMORY_DELETED])
    with django_capture_on_commit_callbacks():
        answer = api.post(f"/api/v1/webhooks/{endpoint.pk}/test", **personas.owner.headers)
    assert answer.status_code == 202 and answer.json()["type"] == "webhook.ping"
    assert delivery_attempt(event_id=answer.json()["event_id"], endpoint_id=endpoint.pk) is not None
    body = Webhook(secret).verify(receiver.requests[0].body, receiver.requests[0].headers)
    assert body["type"] == "webhook.ping" and body["data"] == {"endpoint_id": str(endpoint.pk)}
    assert json.loads(receiver.requests[0].body)["id"] == answer.json()["event_id"]
