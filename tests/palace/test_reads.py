"""Who read a drawer: recall and context assembly queue one record per drawer in Redis, off the request
path; the flush task writes them (through a real worker here, called directly elsewhere), once each;
with Redis down nothing is recorded and recall still answers."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

from memory_site.redis_client import get_redis
from palace import selectors
from palace.models import ActivityEvent, Drawer, DrawerRead
from palace.services import reads
from palace.tasks import drawer_reads_flush
from tests.conftest import Personas
from tests.palace.recall_data import mine

MARCH = datetime(2024, 3, 1, 12, tzinfo=UTC)
LISBON = "My sister Anna is flying to Lisbon next week for a conference."
QUESTION = "When does Anna fly to Lisbon?"


@pytest.fixture(autouse=True)
def empty_queue() -> Iterator[None]:
    get_redis().delete(reads.QUEUE_KEY)
    yield
    get_redis().delete(reads.QUEUE_KEY)


def _trip(personas: Personas) -> list[Drawer]:
    return mine(
        personas.owner.user,
        "trip",
        [
            {"role": "user", "content": LISBON},
            {"role": "assistant", "content": "Lisbon in spring is lovely; she should try the pastel de nata."},
        ],
        MARCH,
    )


@pytest.mark.django_db(transaction=True)
def test_a_recall_is_recorded_by_the_worker_with_agent_and_query(
    personas: Personas, api: APIClient, celery_worker: str
) -> None:
    question, answer = _trip(personas)
    long_query = QUESTION + " " + "and more " * 60
    found = api.post("/api/v1/recall", {"query": long_query}, format="json", **personas.owner.headers)
    assert found.status_code == 200 and found.json()["results"]
    assert not DrawerRead.objects.exists()  # nothing written on the request path
    drawer_reads_flush.delay()
    deadline = time.monotonic() + 60
    # Written, then trimmed off the queue: both done.
    while DrawerRead.objects.count() < 2 or get_redis().llen(reads.QUEUE_KEY):
        assert time.monotonic() < deadline, "the worker did not write the reads"
        time.sleep(0.1)
    rows = {row.drawer_id: row for row in DrawerRead.objects.all()}
    assert set(rows) == {question.pk, answer.pk}  # the lead and its partner turn, both sent to the agent
    row = rows[question.pk]
    assert row.agent_id == personas.owner.agent.pk and row.owner_id == personas.owner.user.pk
    assert row.source == "recall" and row.query == long_query[:300] and len(row.query) == 300
    assert DrawerRead.objects.count() == 2

    readers = api.get(f"/api/v1/palace/drawers/{question.pk}/readers", **personas.teammate.headers).json()
    assert readers["count"] == 1
    reader = readers["results"][0]
    assert reader["agent_id"] == str(personas.owner.agent.pk) and reader["agent_name"] == personas.owner.agent.name
    assert reader["times"] == 1 and reader["source"] == "recall" and reader["last_query"] == long_query[:300]
    outsider = api.get(f"/api/v1/palace/drawers/{question.pk}/readers", **personas.outsider.headers)
    assert outsider.status_code == 404


@pytest.mark.django_db
def test_context_reads_are_counted_per_agent_and_a_flush_twice_adds_nothing(personas: Personas, api: APIClient) -> None:
    question, _ = _trip(personas)
    for persona in (personas.owner, personas.owner, personas.teammate):
        body = {"query": QUESTION, "layers": ["drawers"]}
        assert api.post("/api/v1/context", body, format="json", **persona.headers).status_code == 200
    queued = get_redis().lrange(reads.QUEUE_KEY, 0, -1)
    assert queued
    get_redis().rpush(reads.QUEUE_KEY, *queued)  # as if a flush died after its insert, before its trim
    get_redis().rpush(reads.QUEUE_KEY, "not json", '{"id": "x"}')  # unreadable: skipped, never blocking
    reads.drawer_reads_flush()
    assert DrawerRead.objects.count() == len(queued)
    readers = selectors.drawer_readers(drawer=question)
    times = {reader["agent_id"]: reader["times"] for reader in readers}
    assert times == {personas.owner.agent.pk: 2, personas.teammate.agent.pk: 1}
    assert {reader["source"] for reader in readers} == {"context"}
    recalled = ActivityEvent.objects.filter(owner=personas.owner.user, kind="memory_recalled")
    assert {event.agent_id for event in recalled} == {personas.owner.agent.pk, personas.teammate.agent.pk}
    assert all(event.data["source"] == "context" and event.data["turns"] >= 1 for event in recalled)
    assert all("query" not in str(event.data) for event in recalled)  # queries stay with each drawer's reads
    # A drawer forgotten before its reads were written: its records are skipped, not an error.
    get_redis().rpush(reads.QUEUE_KEY, *queued[:1])
    Drawer.objects.filter(owner=personas.owner.user).delete()
    assert reads.drawer_reads_flush()["written"] == 0
    assert not DrawerRead.objects.exists()


@pytest.mark.django_db
def test_a_person_searching_in_the_browser_is_not_an_agent_read(personas: Personas) -> None:
    question, _ = _trip(personas)
    reads.drawer_reads_push(agent=None, source=DrawerRead.Source.RECALL, query=QUESTION, drawer_ids=[question.pk])
    assert get_redis().llen(reads.QUEUE_KEY) == 0


@pytest.mark.django_db
def test_many_waiting_reads_send_a_flush_at_once(personas: Personas, monkeypatch: pytest.MonkeyPatch) -> None:
    question, answer = _trip(personas)
    sent: list[bool] = []
    monkeypatch.setattr(reads, "FLUSH_AT", 3)
    monkeypatch.setattr(reads, "_send_flush", lambda: sent.append(True))
    for _ in range(4):
        reads.drawer_reads_push(
            agent=personas.owner.agent, source=DrawerRead.Source.RECALL, query="q", drawer_ids=[question.pk, answer.pk]
        )
    assert sent == [True]  # once, by the push that crossed the mark


@pytest.mark.django_db
def test_recall_answers_and_drops_the_reads_when_redis_is_down(
    personas: Personas, api: APIClient, caplog: pytest.LogCaptureFixture, request: pytest.FixtureRequest
) -> None:
    _trip(personas)
    request.getfixturevalue("unreachable_redis")
    with caplog.at_level(logging.WARNING, logger="palace.services.reads"):
        found = api.post("/api/v1/recall", {"query": QUESTION}, format="json", **personas.owner.headers)
    assert found.status_code == 200 and LISBON in found.json()["memory_context"]
    assert "drawer reads dropped (2)" in caplog.text
