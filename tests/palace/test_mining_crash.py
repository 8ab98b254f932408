"""A worker process killed in the middle of mining: the job comes back (acks_late,
reject_on_worker_lost), the retried run completes it, and no drawer is lost or written twice."""

from __future__ import annotations

import os
import signal
import threading
import time

import psutil
import pytest
from django.db import connection
from rest_framework.test import APIClient

from palace.models import Conversation, Drawer, MiningJob
from palace.services import mining
from tests.conftest import Personas

pytestmark = pytest.mark.django_db(transaction=True)

LONG = [
    {
        "role": "user" if i % 2 == 0 else "assistant",
        "content": f"Turn {i}: notes about the garden, the tomatoes by the south fence and the watering plan. " * 6,
    }
    for i in range(240)
]


def _pool_children(hostname: str) -> list[psutil.Process]:
    workers = [p for p in psutil.process_iter(["cmdline"]) if hostname in " ".join(p.info["cmdline"] or [])]
    return [p for p in workers if p.parent() is not None and p.parent().pid in {w.pid for w in workers}]


def test_a_killed_worker_process_loses_and_duplicates_nothing(
    api: APIClient, personas: Personas, celery_worker: str
) -> None:
    h = personas.owner.headers
    posted = api.post(
        "/api/v1/conversations", {"conversation_id": "long", "turns": LONG, "complete": True}, format="json", **h
    )
    job_id = posted.json()["job_id"]
    deadline = time.monotonic() + 60
    while MiningJob.objects.get(pk=job_id).status != "running":
        assert time.monotonic() < deadline, "the job never started"
        time.sleep(0.05)
    time.sleep(1.0)  # well inside the run: embedding 240 long turns takes many seconds
    children = _pool_children(celery_worker)
    assert children, "no pool process to kill"
    for child in children:
        os.kill(child.pid, signal.SIGKILL)

    deadline = time.monotonic() + 240
    while (job := MiningJob.objects.get(pk=job_id)).status not in ("done", "failed"):
        assert time.monotonic() < deadline, "the job was not retried to completion"
        time.sleep(0.2)
    assert job.status == "done", job.error
    assert job.attempts >= 2
    drawers = Drawer.objects.filter(conversation__external_id="long")
    assert drawers.count() == len(LONG)
    assert sorted(drawers.values_list("turn_index", flat=True)) == list(range(len(LONG)))


def test_two_miners_at_once_write_one_result(api: APIClient, personas: Personas) -> None:
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "twice", "turns": LONG[:20]},
        format="json",
        **personas.owner.headers,
    )
    conversation = Conversation.objects.get(external_id="twice")
    results: list[dict[str, int]] = []
    barrier = threading.Barrier(2)

    def mine() -> None:
        barrier.wait()
        results.append(mining.conversation_mine(conversation=conversation))
        connection.close()

    threads = [threading.Thread(target=mine) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r["drawers"] for r in results) == [0, 20]
    assert Drawer.objects.filter(conversation=conversation).count() == 20
