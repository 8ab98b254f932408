"""Every event type is written in the transaction of the change it reports: rolled back with it, and
only for the owner's endpoints that listen to it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from episodic.models import ContextEntry, ShortTermMemory
from episodic.services import maintenance, short_term
from episodic.services.context_entries import entry_create
from episodic.services.contexts import context_create
from episodic.services.maintenance import dedup
from memory_site import events
from memory_site.redis_client import get_redis
from palace.models import Drawer, DrawerRead
from palace.services import intake, reads
from palace.services.forget import forget
from tests.conftest import Personas
from tests.palace.recall_data import mine
from webhooks.models import Event
from webhooks.services import endpoints

pytestmark = pytest.mark.django_db

MARCH = datetime(2024, 3, 1, 12, tzinfo=UTC)
DIM = 384


class Undo(Exception):
    pass


@pytest.fixture(autouse=True)
def empty_read_queue() -> Iterator[None]:
    get_redis().delete(reads.QUEUE_KEY)
    yield
    get_redis().delete(reads.QUEUE_KEY)


def _listen(personas: Personas, *types: str) -> None:
    endpoints.endpoint_create(owner=personas.owner.user, url="https://hooks.example.com/x", event_types=list(types))


def _rolled_back(change: Callable[[], Any]) -> None:
    """Run the change in a transaction that is then rolled back: no event may survive it."""
    with pytest.raises(Undo), transaction.atomic():
        change()
        assert Event.objects.exists()  # written inside the change's transaction...
        raise Undo
    assert not Event.objects.exists()  # ...and gone with it


def _unit(i: int, j: int | None = None, similarity: float = 1.0) -> list[float]:
    vector = [0.0] * DIM
    vector[i] = similarity
    if j is not None:
        vector[j] = (1 - similarity**2) ** 0.5
    return vector


def test_conversation_completed(personas: Personas) -> None:
    _listen(personas, events.CONVERSATION_COMPLETED)
    turns: list[intake.TurnInput] = [{"role": "user", "content": "hello"}]

    def change() -> None:
        intake.conversation_create(owner=personas.owner.user, agent=personas.owner.agent, external_id="c", turns=turns)
        intake.conversation_complete(owner=personas.owner.user, external_id="c")

    _rolled_back(change)
    change()
    event = Event.objects.get()
    assert event.type == "conversation.completed" and event.owner == personas.owner.user
    assert event.payload == {"conversation_id": "c", "agent_id": str(personas.owner.agent.pk), "turns": 1}


def test_memory_mined_and_deleted_with_the_receipt_id(personas: Personas) -> None:
    _listen(personas, events.MEMORY_MINED, events.MEMORY_DELETED)
    secret = "My locker code at the Zeppelin gym is 4471."
    _rolled_back(lambda: mine(personas.owner.user, "gym", [{"role": "user", "content": secret}], MARCH))
    (drawer,) = mine(personas.owner.user, "gym", [{"role": "user", "content": secret}], MARCH)
    mined = Event.objects.get(type="memory.mined")
    assert mined.payload["conversation_id"] == "gym" and mined.payload["drawer_ids"] == [drawer.pk]
    assert mined.payload["counts"]["drawers"] == 1 and "4471" not in str(mined.payload) and mined.payload["wing"]

    _rolled_back_keep = Event.objects.count()
    with pytest.raises(Undo), transaction.atomic():
        forget(owner=personas.owner.user, kind="drawer", ids=[drawer.pk])
        assert Event.objects.filter(type="memory.deleted").exists()
        raise Undo
    assert Event.objects.count() == _rolled_back_keep and Drawer.objects.filter(pk=drawer.pk).exists()
    receipt = forget(owner=personas.owner.user, kind="drawer", ids=[drawer.pk])
    deleted = Event.objects.get(type="memory.deleted")
    assert deleted.payload["receipt_id"] == str(receipt.id) and deleted.payload["kind"] == "drawer"
    assert "4471" not in str(deleted.payload) and "locker" not in str(deleted.payload)
    # The earlier mining event no longer names the wing the forgotten drawer was filed into.
    mined.refresh_from_db()
    assert mined.payload["wing"] == "" and mined.payload["forgotten"] is True


def test_memory_recalled_only_for_endpoints_that_opted_in(personas: Personas) -> None:
    (drawer,) = mine(personas.owner.user, "trip", [{"role": "user", "content": "Anna flies to Lisbon."}], MARCH)
    _listen(personas, events.MEMORY_MINED)  # not opted in to memory.recalled
    reads.drawer_reads_push(
        agent=personas.owner.agent, source=DrawerRead.Source.RECALL, query="q", drawer_ids=[drawer.pk]
    )
    reads.drawer_reads_flush()
    assert DrawerRead.objects.count() == 1 and not Event.objects.exists()

    _listen(personas, events.MEMORY_RECALLED)
    reads.drawer_reads_push(
        agent=personas.owner.agent, source=DrawerRead.Source.RECALL, query="q", drawer_ids=[drawer.pk]
    )
    with pytest.raises(Undo), transaction.atomic():
        reads.drawer_reads_flush()
        assert Event.objects.exists()
        raise Undo
    assert not Event.objects.exists() and DrawerRead.objects.count() == 1
    reads.drawer_reads_push(
        agent=personas.owner.agent, source=DrawerRead.Source.RECALL, query="q", drawer_ids=[drawer.pk]
    )
    reads.drawer_reads_flush()
    event = Event.objects.get()
    assert event.type == "memory.recalled"
    assert event.payload == {"agent_id": str(personas.owner.agent.pk), "source": "recall", "drawer_ids": [drawer.pk]}


def test_memory_consolidated(personas: Personas) -> None:
    _listen(personas, events.MEMORY_CONSOLIDATED)
    agent = personas.owner.agent
    short_term.short_term_write(agent=agent, session_id="s", key="goal", value="ship it")
    for _ in range(3):
        short_term.short_term_read(agent=agent, session_id="s", key="goal")
    _rolled_back(lambda: maintenance.run("consolidation"))
    assert maintenance.run("consolidation").counts["promoted"] == 1
    event = Event.objects.get()
    entry = ContextEntry.objects.get()
    assert event.type == "memory.consolidated" and event.payload["context_entry_id"] == str(entry.pk)
    assert event.payload["short_term_id"] == str(ShortTermMemory.objects.get().pk) and event.payload["key"] == "goal"


# Dedup probes from several connections: they must see the rows, so this test commits them.
@pytest.mark.django_db(transaction=True)
def test_memory_deduplicated(personas: Personas) -> None:
    _listen(personas, events.MEMORY_DEDUPLICATED)
    context = context_create(agent=personas.owner.agent, name="kb")
    made = [entry_create(agent=None, context=context, content=text) for text in ("Deploy at noon.", "Deploys at 12.")]
    ContextEntry.objects.filter(pk=made[0].pk).update(embedding=_unit(0), importance=0.4)
    ContextEntry.objects.filter(pk=made[1].pk).update(embedding=_unit(0, 1, 0.95), importance=0.8)
    # The merge is the transaction that writes: rolled back, it leaves no event.
    _rolled_back(lambda: dedup.merge(dedup.kinds()[0], [(made[1].pk, made[0].pk, 0.95)], timezone.now()))
    assert maintenance.run("dedup").counts["context_entries"] == 1
    event = Event.objects.get()
    assert event.type == "memory.deduplicated"
    assert event.payload["survivor_id"] == str(made[1].pk) and event.payload["merged_id"] == str(made[0].pk)


def test_memory_archived(personas: Personas) -> None:
    _listen(personas, events.MEMORY_ARCHIVED)
    context = context_create(agent=personas.owner.agent, name="kb")
    stale = entry_create(agent=None, context=context, content="Forgotten detail.", importance=0.1, confidence=1.0)
    old = timezone.now() - timedelta(days=200)
    ContextEntry.objects.filter(pk=stale.pk).update(created_at=old, updated_at=old, embedding=_unit(0))
    _rolled_back(lambda: maintenance.run("context_rot"))
    assert maintenance.run("context_rot").counts == {"archived": 1}
    event = Event.objects.get()
    assert event.type == "memory.archived"
    assert event.payload == {
        "reason": "context_rot",
        "count": 1,
        "entry_ids": [str(stale.pk)],
        "context_ids": [str(context.pk)],
    }


def test_no_event_is_written_for_an_owner_nobody_listens_to(personas: Personas) -> None:
    _listen(personas, events.CONVERSATION_COMPLETED)
    turns: list[intake.TurnInput] = [{"role": "user", "content": "hello"}]
    intake.conversation_create(
        owner=personas.outsider.user, agent=personas.outsider.agent, external_id="c", turns=turns, complete=True
    )
    assert not Event.objects.exists()
