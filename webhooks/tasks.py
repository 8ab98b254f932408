from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from webhooks.services import delivery, outbox


# The endpoint's own failures are handled by the service (logged, retried with backoff); only our
# database blinking is retried here.
@shared_task(
    name=outbox.DELIVER_TASK, ignore_result=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5
)
def deliver(event_id: str, endpoint_id: str, replay: bool = False) -> None:
    """One delivery attempt of one event to one endpoint (ids); returns early if either is gone."""
    delivery.delivery_attempt(event_id=event_id, endpoint_id=endpoint_id, replay=replay)


@shared_task(name="webhooks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    """Send outbox events never sent and retries that are due (beat: every minute)."""
    return outbox.webhooks_sweep()
