"""A turn is findable as soon as its POST returns: recall reads turns the miner has not filed yet
(palace/pending.py), and once they are filed, reads them as drawers only."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import MemorySettings
from palace.models import Conversation, Drawer, DrawerRead, Turn
from palace.recall import Filters, recall
from palace.services import intake, mining
from palace.services.exclusions import exclusion_rule_create
from tests.conftest import Personas
from tests.palace.recall_data import mine

pytestmark = pytest.mark.django_db

MARCH = datetime(2024, 3, 1, 12, tzinfo=UTC)
KAYAK = "I finally bought a red kayak from the Harbourside outfitters for the lake trip."


def post(persona: Any, conversation_id: str, *texts: str, agent: Any = None) -> Conversation:
    """Stored as the API stores it, and not mined (nobody runs the job in these tests)."""
    owner = persona.user
    MemorySettings.objects.filter(user=owner).update(auto_mine=False)
    intake.conversation_create(
        owner=owner,
        agent=agent or persona.agent,
        external_id=conversation_id,
        complete=True,
        turns=[{"role": "user", "content": text, "timestamp": MARCH} for text in texts],  # type: ignore[misc]
        started_at=MARCH,
    )
    return Conversation.objects.get(owner=owner, external_id=conversation_id)


def test_a_posted_turn_is_recalled_before_it_is_mined_and_as_its_drawer_after(personas: Personas) -> None:
    owner = personas.owner.user
    mine(owner, "older", [{"role": "user", "content": "We talked about canoe trips on the river last year."}], MARCH)
    conversation = post(personas.owner, "new", KAYAK)

    before = recall(owner=owner, query="Where did I buy the red kayak?")
    assert before.hits[0].drawer.content == KAYAK
    first = before.hits[0]
    assert first.pending and first.drawer.pk is None
    # Embedded on the spot with the local embedder: it competes on meaning, not only on words.
    assert first.signals["keyword"] > 0 and first.signals["semantic"] > 0.3
    assert "§ new [2024-03-01 Fri] user: I finally bought a red kayak" in before.memory_context

    mining.conversation_mine(conversation=conversation)
    assert not Turn.objects.get(conversation=conversation).pending
    after = recall(owner=owner, query="Where did I buy the red kayak?")
    kayaks = [h for h in after.hits if h.drawer.content == KAYAK]
    assert len(kayaks) == 1 and not kayaks[0].pending
    assert kayaks[0].drawer.pk == Drawer.objects.get(conversation=conversation).pk


def test_pending_turns_are_the_owners_only(personas: Personas) -> None:
    post(personas.owner, "new", KAYAK)
    assert recall(owner=personas.outsider.user, query="red kayak outfitters").hits == []
    teammate_view = recall(owner=personas.teammate.user, query="red kayak outfitters")
    assert [h.drawer.content for h in teammate_view.hits] == [KAYAK]  # same person, another agent


def test_an_exclusion_rule_keeps_a_pending_turn_out_and_mining_leaves_it_unfiled(personas: Personas) -> None:
    owner = personas.owner.user
    exclusion_rule_create(owner=owner, kind="word", pattern="kayak")
    conversation = post(personas.owner, "new", KAYAK, "The lake trip is in June with the outfitters.")
    found = recall(owner=owner, query="kayak lake trip outfitters")
    assert [h.drawer.content for h in found.hits] == ["The lake trip is in June with the outfitters."]
    mining.conversation_mine(conversation=conversation)
    # Neither pending nor a drawer: the rule's turn is out of recall for good.
    assert not Turn.objects.filter(conversation=conversation, pending=True).exists()
    assert Drawer.objects.filter(conversation=conversation).count() == 1


def test_a_paused_agents_pending_turns_are_not_recalled(personas: Personas) -> None:
    agent = personas.owner.agent
    agent.config = {**agent.config, "mining_paused": True}
    agent.save(update_fields=["config"])
    post(personas.owner, "new", KAYAK)
    assert recall(owner=personas.owner.user, query="red kayak outfitters").hits == []


def test_filters_apply_to_pending_turns(personas: Personas) -> None:
    owner = personas.owner.user
    post(personas.owner, "new", KAYAK)
    (drawer,) = mine(owner, "filed", [{"role": "user", "content": "My old kayak paddle broke in May."}], MARCH)
    in_room = recall(owner=owner, query="kayak", filters=Filters(room_id=drawer.room_id))
    assert [h.pending for h in in_room.hits] == [False]  # a pending turn is in no room yet
    later = recall(owner=owner, query="red kayak outfitters", filters=Filters(since=datetime(2025, 1, 1, tzinfo=UTC)))
    assert later.hits == []
    by_agent = recall(owner=owner, query="red kayak outfitters", filters=Filters(agent_id=personas.teammate.agent.pk))
    assert by_agent.hits == []


def test_the_recall_api_marks_a_pending_result_and_records_no_read_for_it(personas: Personas, api: APIClient) -> None:
    post(personas.owner, "new", KAYAK)
    response = api.post("/api/v1/recall", {"query": "red kayak outfitters"}, format="json", **personas.owner.headers)
    assert response.status_code == 200, response.content
    (result,) = response.json()["results"]
    assert result["pending"] is True
    assert result["drawer_id"] is None and result["pointer"] is None
    assert result["wing"] is None and result["room"] is None
    assert result["conversation_id"] == "new" and result["content"] == KAYAK
    assert not DrawerRead.objects.exists()


def test_an_imported_palace_has_no_pending_turns_for_its_drawers(personas: Personas) -> None:
    from palace.services.portability import load_palace

    owner = personas.owner.user
    mine(owner, "filed", [{"role": "user", "content": "Filed already."}], MARCH)
    Turn.objects.filter(conversation__owner=owner).update(pending=True)  # as an import leaves them
    assert load_palace.turns_mark_filed(owner=owner) == 1
    assert not Turn.objects.filter(conversation__owner=owner, pending=True).exists()


def test_behind_a_long_backlog_the_newest_pending_turns_are_ranked(
    personas: Personas, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranking is bounded to the newest PENDING_SCAN matching turns, so a backlog does not make every
    recall slower; the newest turn is found whatever waits before it."""
    from palace import pending

    monkeypatch.setattr(pending, "PENDING_SCAN", 5)
    texts = [f"Kayak note {n}: the kayak rack needs kayak straps, kayak kayak." for n in range(8)]
    post(personas.owner, "backlog", *texts, "The kayak is stored at Marta's garage now.")
    rows = pending.pending_rows(
        owner_id=personas.owner.user.pk, filters=Filters(), words=["kayak"], lexemes=["kayak"], vector=None
    )
    contents = {row["content"] for row in rows.values()}
    assert len(rows) == 5 and "The kayak is stored at Marta's garage now." in contents
    assert texts[0] not in contents  # the oldest waits beyond the scan (the rank alone would put it first)
