"""One delivery attempt: claimed in the database, sent outside any transaction, logged, and then a
retry scheduled, or the endpoint marked failing once the retry window (WEBHOOKS_RETRY_FOR) is over."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from palace.services.activity import activity_record
from webhooks.models import Delivery, Endpoint, Event
from webhooks.selectors import delivery_get, endpoint_get
from webhooks.services import http
from webhooks.services.outbox import delivery_send, retry_delay

# Retries further off than this are left to the sweep (beat, every minute) rather than held by the broker.
COUNTDOWN_MAX = 300.0
LEASE_MARGIN = 60.0  # seconds beyond the request's own time limit before a claimed attempt counts as lost


def _claim(event: Event, endpoint: Endpoint, replay: bool) -> Delivery | None:
    """The next attempt's row, or None when there is nothing to do: already delivered, no retry due
    (not yet, or given up), or another sender claimed this attempt first."""
    last = Delivery.objects.filter(event=event, endpoint=endpoint).order_by("-attempt").first()
    if last is not None and not replay:
        if last.delivered_at is not None or last.next_attempt_at is None or last.next_attempt_at > timezone.now():
            return None
    try:
        with transaction.atomic():
            # A lease: if this worker dies mid-request, the attempt falls due again once it runs out
            # (the sweep or the broker's redelivery sends it), so a crash never ends the retries.
            lease = timedelta(seconds=2 * settings.WEBHOOKS_TIMEOUT + LEASE_MARGIN)
            delivery = Delivery.objects.create(
                event=event,
                endpoint=endpoint,
                attempt=(last.attempt if last else 0) + 1,
                next_attempt_at=timezone.now() + lease,
            )
            if last is not None:
                # This attempt is the retry that was due: the sweep must not send it again.
                Delivery.objects.filter(pk=last.pk).update(next_attempt_at=None)
    except IntegrityError:
        return None  # the same attempt number, taken by a concurrent sender
    return delivery


def delivery_attempt(*, event_id: Any, endpoint_id: Any, replay: bool = False) -> Delivery | None:
    event = Event.objects.filter(pk=event_id).first()
    endpoint = Endpoint.objects.filter(pk=endpoint_id).first()
    if event is None or endpoint is None or endpoint.owner_id != event.owner_id:
        return None
    if not endpoint.active and not replay:
        return None
    delivery = _claim(event, endpoint, replay)
    if delivery is None:
        return None
    outcome = http.post(endpoint=endpoint, event=event)
    now = timezone.now()
    delivery.next_attempt_at = None  # the lease ends: set again below only if a retry is due
    delivery.status_code, delivery.latency_ms = outcome.status_code, outcome.latency_ms
    delivery.response_snippet, delivery.error = outcome.snippet, outcome.error
    if outcome.ok:
        delivery.delivered_at = now
        if Endpoint.objects.filter(pk=endpoint.pk, failing_since__isnull=False).update(failing_since=None):
            activity_record(owner=endpoint.owner, kind="webhook_recovered", data={"endpoint_id": str(endpoint.pk)})
    else:
        delay = retry_delay(attempt=delivery.attempt, jitter=random.random())
        if outcome.retryable and now + timedelta(seconds=delay) <= event.created_at + timedelta(
            seconds=settings.WEBHOOKS_RETRY_FOR
        ):
            delivery.next_attempt_at = now + timedelta(seconds=delay)
        else:
            _mark_failing(endpoint, delivery)
    delivery.save(
        update_fields=[
            "status_code",
            "latency_ms",
            "response_snippet",
            "error",
            "delivered_at",
            "next_attempt_at",
        ]
    )
    if delivery.next_attempt_at is not None and (delivery.next_attempt_at - now).total_seconds() <= COUNTDOWN_MAX:
        delivery_send(
            event_id=event.pk, endpoint_id=endpoint.pk, countdown=(delivery.next_attempt_at - now).total_seconds()
        )
    return delivery


def _mark_failing(endpoint: Endpoint, delivery: Delivery) -> None:
    """Out of retries: the owner sees the endpoint failing (the API's failing_since, and the activity)."""
    if Endpoint.objects.filter(pk=endpoint.pk, failing_since__isnull=True).update(failing_since=timezone.now()):
        activity_record(
            owner=endpoint.owner,
            kind="webhook_failing",
            data={"endpoint_id": str(endpoint.pk), "event_id": str(delivery.event_id), "error": delivery.error[:200]},
        )


def delivery_replay(*, owner: User, endpoint_id: Any, delivery_id: Any) -> Delivery:
    """Send a logged delivery's event to its endpoint again (a new attempt, same webhook-id), on commit."""
    endpoint = endpoint_get(owner=owner, endpoint_id=endpoint_id)
    delivery = delivery_get(endpoint=endpoint, delivery_id=delivery_id)
    transaction.on_commit(lambda: delivery_send(event_id=delivery.event_id, endpoint_id=endpoint.pk, replay=True))
    activity_record(
        owner=owner, kind="webhook_replayed", data={"endpoint_id": str(endpoint.pk), "delivery_id": delivery.pk}
    )
    return delivery
