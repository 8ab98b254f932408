"""The beat sweep: outbox events never handed to the broker, deliveries the broker lost, retries due,
and attempts whose worker died mid-request."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from memory_site import events
from tests.conftest import Personas
from tests.webhooks.conftest import Receiver
from webhooks.models import Delivery, Event
from webhooks.services import endpoints
from webhooks.services.delivery import delivery_attempt
from webhooks.services.outbox import webhooks_sweep

pytestmark = pytest.mark.django_db


def _event(personas: Personas, url: str) -> Event:
    endpoints.endpoint_create(owner=personas.owner.user, url=url, event_types=[events.MEMORY_ARCHIVED])
    with transaction.atomic():
        events.memory_event_emit(owner_id=personas.owner.user.pk, type=events.MEMORY_ARCHIVED, payload={"count": 1})
    return Event.objects.get()


def test_an_event_never_sent_is_sent_by_the_sweep(personas: Personas) -> None:
    event = _event(personas, "https://hooks.example.com/x")
    assert event.dispatched_at is None  # the test's transaction never commits: no on-commit send
    assert webhooks_sweep()["events"] == 0  # younger than a minute: its on-commit send may still come
    Event.objects.filter(pk=event.pk).update(created_at=timezone.now() - timedelta(minutes=2))
    assert webhooks_sweep()["events"] == 1
    event.refresh_from_db()
    assert event.dispatched_at is not None
    assert webhooks_sweep()["events"] == 0


def test_a_delivery_the_broker_lost_is_sent_again(personas: Personas, receiver: Receiver) -> None:
    event = _event(personas, receiver.url)
    Event.objects.filter(pk=event.pk).update(dispatched_at=timezone.now() - timedelta(minutes=20))
    assert webhooks_sweep()["lost"] == 1
    delivery_attempt(event_id=event.pk, endpoint_id=event.endpoint_ids[0])
    assert webhooks_sweep()["lost"] == 0  # attempted now


def test_an_attempt_whose_worker_died_falls_due_when_its_lease_runs_out(personas: Personas, receiver: Receiver) -> None:
    event = _event(personas, receiver.url)
    endpoint_id = event.endpoint_ids[0]
    # What a worker killed mid-request leaves: the attempt claimed, never finished.
    lease = timezone.now() + timedelta(minutes=2)
    Delivery.objects.create(event=event, endpoint_id=endpoint_id, attempt=1, next_attempt_at=lease)
    assert delivery_attempt(event_id=event.pk, endpoint_id=endpoint_id) is None  # leased: not yet
    Delivery.objects.update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    assert webhooks_sweep()["retries"] == 1
    second = delivery_attempt(event_id=event.pk, endpoint_id=endpoint_id)
    assert second is not None and second.attempt == 2 and second.succeeded and second.next_attempt_at is None
    assert webhooks_sweep()["retries"] == 0 and len(receiver.requests) == 1


def test_beat_runs_the_sweep_every_minute() -> None:
    task = PeriodicTask.objects.get(name="webhooks sweep")
    assert task.task == "webhooks.sweep" and task.interval is not None and task.interval.every == 1
