"""`Loci`, the sync client, against the live test server: each method once, through the real API."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.conftest import Personas

from loci_client import Loci, LociError  # isort: skip

pytestmark = pytest.mark.django_db(transaction=True)

TURNS: list[Any] = [
    {"role": "user", "content": "Derek and I are rebuilding the Efoil project. Derek owns the board."},
    {"role": "assistant", "content": "What does the Efoil need first?"},
    {"role": "user", "content": "A new battery: Derek wants a 12V20Ah pack."},
]


@pytest.fixture
def loci(connect: Callable[..., Loci], personas: Personas) -> Loci:
    return connect(personas.owner)


def test_a_conversation_is_mined_recalled_verbatim_and_forgotten(loci: Loci, celery_worker: str) -> None:
    accepted = loci.conversation_create("c:1@work", TURNS, title="Efoil", complete=True)
    assert (accepted["conversation_id"], accepted["turns"], accepted["mining"]) == ("c:1@work", 3, True)
    job = loci.job_wait(accepted["job_id"], timeout=60, interval=0.1)
    assert job["status"] == "done" and job["counts"]["drawers"] == 3, job

    recalled = loci.recall("What battery does Derek want?", top_k=3)
    contents = [hit["content"] for hit in recalled["results"]]
    assert TURNS[2]["content"] in contents
    assert TURNS[2]["content"] in recalled["memory_context"]
    hit = next(hit for hit in recalled["results"] if hit["content"] == TURNS[2]["content"])
    assert hit["conversation_id"] == "c:1@work" and (hit["pointer"] or "").startswith("§ W-")
    assert hit["drawer_id"] is not None and not hit["pending"]

    context = loci.context("What battery does Derek want?", token_budget=500)
    assert "12V20Ah" in context["memory_context"] and context["tokens"] <= 500

    receipt = loci.forget_drawer(hit["drawer_id"])
    assert receipt["asked"]["kind"] == "drawer" and receipt["counts"]["drawers"] == 1
    assert TURNS[2]["content"] not in [h["content"] for h in loci.recall("Derek battery")["results"]]

    receipt = loci.forget_conversation("c:1@work")
    assert receipt["asked"] == {"kind": "conversation", "ids": ["c:1@work"], "actor": receipt["asked"]["actor"]}
    assert loci.recall("Derek battery")["results"] == []


def test_turns_are_appended_and_the_conversation_completed(loci: Loci, celery_worker: str) -> None:
    loci.conversation_create("c2", TURNS[:1])
    appended = loci.conversation_append("c2", TURNS[1:])
    assert appended["turns"] == 3 and appended["mining"] is False
    completed = loci.conversation_complete("c2")
    assert completed["conversation_id"] == "c2" and completed["job_id"]
    assert loci.job_get(completed["job_id"])["conversation_id"] == "c2"
    # The worker mines it now; the test waits, so the teardown's flush never meets the job's writes.
    job = loci.job_wait(completed["job_id"], timeout=60, interval=0.1)
    assert job["status"] == "done" and job["counts"]["drawers"] == 3, job


def test_waiting_for_a_job_that_does_not_finish_times_out(loci: Loci) -> None:
    # Not complete, so its job is not ready: it stays queued whatever the worker does.
    job_id = loci.conversation_create("c3", TURNS)["job_id"]
    with pytest.raises(LociError) as caught:
        loci.job_wait(job_id, timeout=0.3, interval=0.1)
    assert caught.value.status is None
    assert caught.value.extra == {"job_id": job_id, "status": "queued"}


def test_typed_memories_are_created_and_queried(loci: Loci) -> None:
    created = loci.memory_create("semantic", "My cat is called Miso.", entity_id="cat", metadata={"from": "chat"})
    assert (created["memory_type"], created["entity_id"], created["metadata"]) == ("semantic", "cat", {"from": "chat"})
    found = loci.memory_query("What is my cat called?", memory_types=["semantic"], top_k=3)
    assert found["count"] >= 1 and found["results"][0]["memory"]["id"] == created["id"]


def test_working_memory_fields_are_set_read_and_deleted(loci: Loci) -> None:
    written = loci.working_memory_set("c4", {"plan": ["a", "b"], "step": 2}, ttl_seconds=600)
    assert written["updated"] == ["plan", "step"] and written["ttl_seconds"] == 600
    loci.working_memory_set("c4", {"step": 3})
    assert loci.working_memory_get("c4") == {"plan": ["a", "b"], "step": 3}
    assert loci.working_memory_delete("c4", ["plan"]) == {"deleted": 1, "whole": False}
    assert loci.working_memory_get("c4") == {"step": 3}
    assert loci.working_memory_delete("c4")["whole"] is True
    assert loci.working_memory_get("c4") == {}


def test_the_ledger_is_checked_and_marked(loci: Loci) -> None:
    assert loci.ledger_check("c5", "skill:search") == {"item": "skill:search", "injected": False}
    assert loci.ledger_mark("c5", "skill:search")["newly_marked"] is True
    assert loci.ledger_mark("c5", "skill:search", value="v2")["newly_marked"] is False
    assert loci.ledger_check("c5", "skill:search")["injected"] is True


def test_the_graph_answers_as_of_a_time_and_a_timeline(loci: Loci) -> None:
    first = loci.kg_add("Derek", "works_at", "Acme", valid_from=datetime(2024, 1, 1, tzinfo=UTC))
    assert (first["subject"], first["object"], first["valid_to"]) == ("Derek", "Acme", None)
    loci.kg_add("Derek", "works_at", "Initech", valid_from="2025-06-01T00:00:00Z", replace=True)
    then = loci.kg_entity("Derek", as_of=datetime(2024, 6, 1, tzinfo=UTC))
    assert [r["object"] for r in then["relations"]] == ["Acme"]
    assert [r["object"] for r in loci.kg_entity("Derek")["relations"]] == ["Initech"]
    timeline = loci.kg_timeline("Derek")
    assert timeline["entity"]["name"] == "Derek" and [r["object"] for r in timeline["relations"]] == ["Acme", "Initech"]

    receipt = loci.forget_entity("Derek")
    assert receipt["asked"]["kind"] == "entity" and receipt["counts"]
    with pytest.raises(LociError) as caught:
        loci.kg_timeline("Derek")
    assert (caught.value.status, caught.value.message) == (404, "Entity not found.")


def test_forgetting_many_and_everything_answers_receipts(loci: Loci) -> None:
    loci.conversation_create("c6", TURNS)
    loci.conversation_create("c7", TURNS)
    many = loci.forget("conversation", ["c6"])
    assert many["asked"]["ids"] == ["c6"] and len(many["digest"]) == 64
    with pytest.raises(LociError) as caught:
        loci.forget_everything(confirm="yes")
    assert caught.value.status == 400 and "confirm" in caught.value.extra["fields"]
    everything = loci.forget_everything(confirm="everything")
    assert everything["asked"]["kind"] == "everything" and everything["counts"].get("conversations") == 1
