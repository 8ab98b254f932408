"""Mining through the real broker and worker, and the outbox with a real Redis stopped."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from rest_framework.test import APIClient

from memory_site import embedded, queues
from memory_site.celery import app as celery_app
from palace.models import Drawer, MiningJob, Passage
from palace.services import jobs
from tests.conftest import Personas

pytestmark = pytest.mark.django_db(transaction=True)

TURNS = [
    {"role": "user", "content": "Derek and I are rebuilding the Efoil project. Derek owns the board."},
    {"role": "assistant", "content": "What does the Efoil need first?"},
    {"role": "user", "content": "A new battery, Derek says 12V20Ah."},
]


def _wait_for_job(api: APIClient, headers: dict, job_id: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        job = api.get(f"/api/v1/jobs/{job_id}", **headers).json()
        if job["status"] in ("done", "failed"):
            return job
        assert time.monotonic() < deadline, f"job still {job['status']}"
        time.sleep(0.1)


def test_a_completed_conversation_is_mined_by_the_worker(
    api: APIClient, personas: Personas, celery_worker: str
) -> None:
    h = personas.owner.headers
    posted = api.post(
        "/api/v1/conversations", {"conversation_id": "c1", "turns": TURNS, "complete": True}, format="json", **h
    )
    assert posted.status_code == 202 and posted.json()["mining"] is True
    job = _wait_for_job(api, h, posted.json()["job_id"])
    assert job["status"] == "done", job
    assert job["counts"]["drawers"] == 3 and job["counts"]["embedded"] == 3
    assert Drawer.objects.filter(conversation__external_id="c1").count() == 3
    # The first turn's two sentences are its passages, embedded by the job the mining run sent after it.
    passages = Passage.objects.filter(drawer__conversation__external_id="c1")
    assert job["counts"]["passages"] == 2 == passages.count()
    deadline = time.monotonic() + 30
    while passages.filter(embedding__isnull=True).exists():
        assert time.monotonic() < deadline, "the passages were never embedded"
        time.sleep(0.1)
    assert set(passages.values_list("text", flat=True)) == {
        "Derek and I are rebuilding the Efoil project.",
        "Derek owns the board.",
    }
    # Asking again mines nothing new.
    again = api.post("/api/v1/conversations/c1/mine", **h).json()["job_id"]
    assert _wait_for_job(api, h, again)["counts"]["drawers"] == 0
    assert Drawer.objects.count() == 3


def _reset_broker_pools() -> None:
    # The app builds its connection and producer pools lazily from broker_url; drop them to rebuild.
    celery_app._pool = None  # type: ignore[attr-defined]
    celery_app.amqp._producer_pool = None  # type: ignore[attr-defined]


@pytest.fixture
def own_broker() -> Iterator[Path]:
    """Point the Celery app at a real Redis of this test's own, which the test can stop and start."""
    with tempfile.TemporaryDirectory(prefix="loci-ob-") as folder:
        state = Path(folder)
        url = embedded.start_redis(state)
        socket = url.removeprefix("unix://").split("?")[0]
        original = celery_app.conf.broker_url
        celery_app.conf.broker_url = f"redis+socket://{socket}"  # type: ignore[misc]
        _reset_broker_pools()
        try:
            yield state
        finally:
            celery_app.conf.broker_url = original  # type: ignore[misc]
            _reset_broker_pools()
            embedded.stop_redis(state)


def test_the_outbox_sends_what_a_stopped_broker_missed(api: APIClient, personas: Personas, own_broker: Path) -> None:
    h = personas.owner.headers
    embedded.stop_redis(own_broker)
    started = time.monotonic()
    posted = api.post(
        "/api/v1/conversations", {"conversation_id": "c2", "turns": TURNS, "complete": True}, format="json", **h
    )
    assert posted.status_code == 202, posted.content
    assert time.monotonic() - started < 10
    job = MiningJob.objects.get(pk=posted.json()["job_id"])
    assert job.status == "queued" and job.ready and job.enqueued_at is None  # durable, not yet sent

    # While the broker is down the outbox keeps the job; back up, it sends it.
    assert jobs.outbox_requeue(older_than=timedelta(0)) == {"sent": 0, "failed": 1}
    url = embedded.start_redis(own_broker)
    _reset_broker_pools()
    assert jobs.outbox_requeue(older_than=timedelta(0)) == {"sent": 1, "failed": 0}
    job.refresh_from_db()
    assert job.enqueued_at is not None
    queued = redis.Redis.from_url(url).lrange(queues.MINING, 0, -1)  # the mining queue's list
    assert any(str(job.id).encode() in message for message in queued)
