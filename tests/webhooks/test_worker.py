"""Delivery through a real Celery worker to a loopback receiver that verifies every signature with
standardwebhooks; also measures the lag from commit to receipt (printed, not asserted: speed targets
live in bench/)."""

from __future__ import annotations

import statistics
import time

import pytest
from django.db import transaction
from standardwebhooks.webhooks import Webhook

from accounts.models import MemorySettings
from memory_site import events
from palace.services import intake
from tests.conftest import Personas
from tests.webhooks.conftest import Receiver
from webhooks.models import Delivery
from webhooks.services import endpoints

pytestmark = pytest.mark.django_db(transaction=True)
EVENTS = 30


def test_events_reach_the_receiver_signed_through_the_worker(
    personas: Personas, receiver: Receiver, celery_worker: str
) -> None:
    owner = personas.owner.user
    MemorySettings.objects.filter(user=owner).update(auto_mine=False)  # the worker delivers, nothing else
    receiver.statuses = [500]  # the first attempt fails: the worker retries it (countdown)
    registered = endpoints.endpoint_create(owner=owner, url=receiver.url, event_types=[events.CONVERSATION_COMPLETED])
    committed: list[float] = []
    turns: list[intake.TurnInput] = [{"role": "user", "content": "hello"}]
    for i in range(EVENTS):
        with transaction.atomic():
            # Registered first, so it runs first on commit: the moment the event became durable.
            transaction.on_commit(lambda: committed.append(time.time()))
            intake.conversation_create(owner=owner, agent=personas.owner.agent, external_id=f"c{i}", turns=turns)
            intake.conversation_complete(owner=owner, external_id=f"c{i}")
        time.sleep(0.05)  # one at a time, as with an idle worker

    received = receiver.wait_for(EVENTS + 1, timeout=60)
    webhook = Webhook(registered.secret)
    by_conversation: dict[str, list[float]] = {}
    for request in received:
        body = webhook.verify(request.body, request.headers)
        assert body["type"] == "conversation.completed"
        by_conversation.setdefault(body["data"]["conversation_id"], []).append(request.at)
    assert sorted(by_conversation) == sorted(f"c{i}" for i in range(EVENTS))
    retried = [c for c, times in by_conversation.items() if len(times) == 2]
    assert retried == ["c0"]
    deadline = time.monotonic() + 10
    while Delivery.objects.filter(delivered_at__isnull=False).count() < EVENTS:
        assert time.monotonic() < deadline, "the worker did not log the deliveries"
        time.sleep(0.05)
    assert Delivery.objects.count() == EVENTS + 1

    lags = sorted((by_conversation[f"c{i}"][0] - committed[i]) * 1000 for i in range(1, EVENTS))
    p95 = lags[int(0.95 * (len(lags) - 1))]
    print(f"\nwebhook lag commit -> receipt (ms): p50 {statistics.median(lags):.0f}, p95 {p95:.0f}, max {lags[-1]:.0f}")
