"""`AsyncLoci`: the same methods, awaited, against the live test server (each once)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from tests.conftest import Personas

from loci_client import AsyncLoci, LociError  # isort: skip

pytestmark = pytest.mark.django_db(transaction=True)

TURNS: list[Any] = [
    {"role": "user", "content": "Anna is wiring the Efoil battery this weekend."},
    {"role": "assistant", "content": "Good, Anna knows wiring."},
]


async def _every_method(url: str, key: str) -> None:
    async with AsyncLoci(url, key, timeout=30) as loci:
        accepted = await loci.conversation_create("a1", TURNS[:1], title="Wiring")
        assert (await loci.conversation_append("a1", TURNS[1:]))["turns"] == 2
        job = await loci.job_wait((await loci.conversation_complete("a1"))["job_id"], timeout=60, interval=0.1)
        assert job["status"] == "done", job
        assert (await loci.job_get(accepted["job_id"]))["conversation_id"] == "a1"

        recalled = await loci.recall("Who is wiring the battery?", top_k=2)
        hit = next(h for h in recalled["results"] if h["content"] == TURNS[0]["content"])
        assert "Anna is wiring" in (await loci.context("Who is wiring the battery?"))["memory_context"]

        memory = await loci.memory_create("procedural", "Charge the pack before wiring.", steps=["charge", "wire"])
        assert memory["steps"] == ["charge", "wire"]
        assert (await loci.memory_query("charge the pack", top_k=1))["results"][0]["memory"]["id"] == memory["id"]

        await loci.working_memory_set("a1", {"step": "wire"})
        assert await loci.working_memory_get("a1") == {"step": "wire"}
        assert (await loci.working_memory_delete("a1"))["whole"] is True

        assert (await loci.ledger_mark("a1", "block:7"))["newly_marked"] is True
        assert (await loci.ledger_check("a1", "block:7"))["injected"] is True

        await loci.kg_add("Anna", "sister_of", "Derek")
        assert [r["predicate"] for r in (await loci.kg_entity("Anna"))["relations"]] == ["sister_of"]
        assert len((await loci.kg_timeline("Anna"))["relations"]) == 1

        assert hit["drawer_id"] is not None
        assert (await loci.forget_drawer(hit["drawer_id"]))["counts"]["drawers"] == 1
        assert (await loci.forget_entity("Anna"))["asked"]["kind"] == "entity"
        assert (await loci.forget("typed_memory", [memory["id"]]))["counts"]["typed_memories"] == 1
        assert (await loci.forget_conversation("a1"))["counts"]["conversations"] == 1
        assert (await loci.forget_everything(confirm="everything"))["asked"]["kind"] == "everything"

        with pytest.raises(LociError) as caught:
            await loci.job_get(str(uuid.uuid4()))
        assert (caught.value.status, caught.value.message) == (404, "Job not found.")


def test_every_method_works_awaited(live_server: Any, personas: Personas, celery_worker: str) -> None:
    asyncio.run(_every_method(live_server.url, personas.owner.key))


async def _wait_for_a_job_that_stays_queued(url: str, key: str) -> LociError:
    async with AsyncLoci(url, key) as loci:
        job_id = (await loci.conversation_create("a2", TURNS))["job_id"]
        try:
            await loci.job_wait(job_id, timeout=0.3, interval=0.1)
        except LociError as exc:
            return exc
    raise AssertionError("job_wait returned")


def test_an_awaited_wait_times_out(live_server: Any, personas: Personas) -> None:
    caught = asyncio.run(_wait_for_a_job_that_stays_queued(live_server.url, personas.owner.key))
    assert caught.status is None and caught.extra["status"] == "queued"
