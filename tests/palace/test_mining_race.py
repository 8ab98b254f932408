"""Two mining runs on one conversation at once (two workers, or a job and the next one for turns appended
meanwhile): the second waits for the first's lock, then mines what the first did not have. Every turn
becomes a drawer and both jobs end `done`: none is left `running` for the outbox to find much later."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from memory_site.db import advisory_lock_key
from palace.models import Conversation, Drawer, MiningJob
from palace.services import jobs
from tests.conftest import Personas

pytestmark = pytest.mark.django_db(transaction=True)


def _in_thread(work: Callable[[], Any]) -> threading.Thread:
    def run() -> None:
        try:
            work()
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _waiting_for_the_lock(count: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
            if cursor.fetchone()[0] >= count:
                return
        time.sleep(0.05)
    pytest.fail(f"{count} runs never queued for the conversation's lock")


def test_two_runs_racing_on_a_conversation_mine_every_turn_and_leave_no_job_running(
    api: APIClient, personas: Personas
) -> None:
    h = personas.owner.headers
    turns = [{"role": "user", "content": f"Turn {i}: Rachel booked the Denver trip."} for i in range(3)]
    body = {"conversation_id": "r1", "complete": True, "turns": turns}
    first = api.post("/api/v1/conversations", body, format="json", **h).json()["job_id"]
    conversation = Conversation.objects.get(owner=personas.owner.user, external_id="r1")
    key = advisory_lock_key(f"mine:{conversation.pk}")
    held, release = threading.Event(), threading.Event()

    def hold_the_lock() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [key])
            held.set()
            release.wait(60)
            cursor.execute("SELECT pg_advisory_unlock(%s)", [key])

    holder = _in_thread(hold_the_lock)
    assert held.wait(30)
    runs = [_in_thread(lambda: jobs.job_run(job_id=first))]
    _waiting_for_the_lock(1)  # the first run has read three turns and waits to write them
    appended = {"turns": [{"role": "user", "content": "Turn 3: and the hotel."}]}
    assert api.post("/api/v1/conversations/r1/turns", appended, format="json", **h).status_code == 202
    second = api.post("/api/v1/conversations/r1/complete", format="json", **h).json()["job_id"]
    runs.append(_in_thread(lambda: jobs.job_run(job_id=second)))
    _waiting_for_the_lock(2)  # the second has read four
    release.set()
    for thread in [holder, *runs]:
        thread.join(120)

    assert Drawer.objects.filter(conversation=conversation).count() == 4
    assert sorted(Drawer.objects.filter(conversation=conversation).values_list("turn_index", flat=True)) == [0, 1, 2, 3]
    assert dict(MiningJob.objects.filter(pk__in=[first, second]).values_list("pk", "status")) == {
        MiningJob.objects.get(pk=first).pk: "done",
        MiningJob.objects.get(pk=second).pk: "done",
    }
