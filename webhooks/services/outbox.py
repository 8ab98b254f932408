"""The outbox: events written in the transaction of the change they report, sent to the broker on
commit, and swept by beat (every minute) when the send never happened or a retry is due.

Delivery is at least once: a task sent twice finds the attempt already claimed (the unique attempt
number) or the event already delivered, and receivers deduplicate on the stable `webhook-id`."""

from __future__ import annotations

import functools
import logging
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Func
from django.utils import timezone

from memory_site.events import MEMORY_CONSOLIDATED, MEMORY_DELETED, MEMORY_MINED
from palace.models import ForgetReceipt
from webhooks.models import Delivery, Endpoint, Event

logger = logging.getLogger(__name__)

# Sent by name: services never import tasks (webhooks/tasks.py registers it).
DELIVER_TASK = "webhooks.deliver"
SWEEP_BATCH = 500
LOST_AFTER = timedelta(minutes=15)  # a sent delivery task not started by then was lost by the broker


def event_record(*, owner_id: int, type: str, payload: dict[str, Any]) -> Event | None:
    """The memory_site.events handler: write the event for the owner's endpoints listening to `type`,
    in the caller's transaction; nothing at all when none listens (memory.recalled is opt-in)."""
    if type == MEMORY_DELETED:
        events_redact(owner_id=owner_id, receipt_id=payload.get("receipt_id"))
    endpoint_ids = list(
        Endpoint.objects.filter(owner_id=owner_id, active=True, event_types__contains=[type]).values_list(
            "pk", flat=True
        )
    )
    if not endpoint_ids:
        return None
    return event_create(owner_id=owner_id, type=type, payload=payload, endpoint_ids=endpoint_ids)


def events_redact(*, owner_id: int, receipt_id: Any) -> int:
    """Forgetting reaches the outbox too: an earlier event that names what was just forgotten (the wing
    a mining run filed into, a consolidated entry's key) loses that name, as the activity log's do."""
    receipt = ForgetReceipt.objects.filter(owner_id=owner_id, pk=receipt_id).first()
    if receipt is None:
        return 0
    drawers = set(receipt.removed_ids.get("drawers", []))
    short_terms = set(receipt.removed_ids.get("short_term_entries", []))
    redacted = 0
    named = Event.objects.filter(owner_id=owner_id, type__in=[MEMORY_MINED, MEMORY_CONSOLIDATED]).only(
        "pk", "type", "payload"
    )
    for event in named.iterator():
        if event.type == MEMORY_MINED and drawers & {str(pk) for pk in event.payload.get("drawer_ids", [])}:
            event.payload = {**event.payload, "wing": "", "forgotten": True}
        elif event.type == MEMORY_CONSOLIDATED and str(event.payload.get("short_term_id")) in short_terms:
            event.payload = {**event.payload, "key": "", "forgotten": True}
        else:
            continue
        event.save(update_fields=["payload"])
        redacted += 1
    return redacted


def event_create(*, owner_id: int, type: str, payload: dict[str, Any], endpoint_ids: list[Any]) -> Event:
    event = Event.objects.create(owner_id=owner_id, type=type, payload=payload, endpoint_ids=endpoint_ids)
    transaction.on_commit(functools.partial(event_dispatch, event_id=event.pk))
    return event


def delivery_send(*, event_id: Any, endpoint_id: Any, replay: bool = False, countdown: float = 0) -> bool:
    try:
        current_app.send_task(
            DELIVER_TASK, args=(str(event_id), str(endpoint_id)), kwargs={"replay": replay}, countdown=countdown
        )
    except Exception:
        logger.warning("could not send webhook delivery %s/%s; the sweep will", event_id, endpoint_id, exc_info=True)
        return False
    return True


def event_dispatch(*, event_id: Any) -> bool:
    """Hand one delivery per endpoint to the broker; the event is marked dispatched when all went."""
    event = Event.objects.filter(pk=event_id).only("pk", "endpoint_ids").first()
    if event is None:
        return False
    sent = all([delivery_send(event_id=event.pk, endpoint_id=endpoint_id) for endpoint_id in event.endpoint_ids])
    if sent:
        Event.objects.filter(pk=event.pk, dispatched_at__isnull=True).update(dispatched_at=timezone.now())
    return sent


def webhooks_sweep(*, older_than: timedelta = timedelta(minutes=1)) -> dict[str, int]:
    """Send the events never handed to the broker (older than a minute) and the retries that are due
    (those whose countdown task was lost, or too far off to be held by the broker)."""
    now = timezone.now()
    counts = {"events": 0, "retries": 0, "lost": 0}
    undispatched = Event.objects.filter(dispatched_at__isnull=True, created_at__lt=now - older_than)
    for event_id in undispatched.order_by("created_at").values_list("pk", flat=True)[:SWEEP_BATCH]:
        counts["events"] += int(event_dispatch(event_id=event_id))
    counts["lost"] = _resend_lost(now)
    due = Delivery.objects.filter(next_attempt_at__lte=now, delivered_at__isnull=True, endpoint__active=True)
    for event_id, endpoint_id in due.values_list("event_id", "endpoint_id")[:SWEEP_BATCH]:
        counts["retries"] += int(delivery_send(event_id=event_id, endpoint_id=endpoint_id))
    return counts


def _resend_lost(now: datetime) -> int:
    """Events handed to the broker long ago of which an endpoint never saw an attempt: the broker lost
    the message (a Redis restart without persistence). Only within the retry window."""
    lost = (
        Event.objects.filter(
            dispatched_at__lt=now - LOST_AFTER, created_at__gt=now - timedelta(seconds=settings.WEBHOOKS_RETRY_FOR)
        )
        .annotate(attempted=Count("deliveries__endpoint", distinct=True))
        .filter(attempted__lt=Func(F("endpoint_ids"), function="cardinality"))
    )
    sent = 0
    for event in lost.only("pk", "endpoint_ids")[:SWEEP_BATCH]:
        attempted = set(Delivery.objects.filter(event=event).values_list("endpoint_id", flat=True))
        live = Endpoint.objects.filter(pk__in=event.endpoint_ids, active=True).exclude(pk__in=attempted)
        for endpoint_id in live.values_list("pk", flat=True):
            sent += int(delivery_send(event_id=event.pk, endpoint_id=endpoint_id))
    return sent


def retry_delay(*, attempt: int, jitter: float) -> float:
    """Exponential backoff: base x 2^(attempt-1), capped at an hour, scaled by a jitter in [0.5, 1]
    so that endpoints failing together do not retry together."""
    return float(min(settings.WEBHOOKS_RETRY_BASE * 2 ** (attempt - 1), 3600.0) * (0.5 + jitter / 2))
