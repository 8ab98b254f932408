"""Context assembly: layers gathered, duplicates dropped, the token budget kept, and degraded modes with
Redis really stopped and the embedder really failing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rest_framework.test import APIClient

from episodic import providers
from episodic.models import Episode, ShortTermMemory
from episodic.services.context_entries import entry_create
from episodic.services.contexts import context_create
from episodic.services.episodes import episode_store
from episodic.services.short_term import short_term_write
from episodic.services.typed_memories import typed_memory_create
from ledger.services import working_memory_merge
from memory_site import embedded
from palace.assembly import assemble
from tests.conftest import Personas
from tests.palace.recall_data import mine

pytestmark = pytest.mark.django_db

MARCH = datetime(2024, 3, 1, 12, tzinfo=UTC)
LISBON = "My sister Anna is flying to Lisbon next week for a conference."
ALLERGY = "The user is allergic to penicillin."


def _memories(personas: Personas) -> None:
    owner = personas.owner.user
    mine(
        owner,
        "trip",
        [
            {"role": "user", "content": LISBON},
            {"role": "assistant", "content": "Lisbon in spring is lovely; she should try the pastel de nata."},
        ],
        MARCH,
    )
    mine(owner, "garden", [{"role": "user", "content": "The tomatoes in the garden need staking before June."}], MARCH)
    episode_store(
        owner=owner,
        agent=personas.owner.agent,
        conversation_id="trip",
        summary="Anna travels to Lisbon for a conference; the user asked about flights.",
        occurred_at=MARCH,
    )


def test_every_layer_in_one_block_with_sources(personas: Personas, api: APIClient) -> None:
    _memories(personas)
    working_memory_merge(
        owner_id=personas.owner.user.pk, conversation_id="live", fields={"task": "plan Anna's airport pickup"}
    )
    answer = api.post(
        "/api/v1/context",
        {"query": "When does Anna fly to Lisbon?", "conversation_id": "live"},
        format="json",
        **personas.owner.headers,
    )
    assert answer.status_code == 200
    body = answer.json()
    sources = {p["source"] for p in body["pieces"]}
    assert {"working_memory", "episodes", "drawers"} <= sources
    assert body["degraded"] == [] and body["tokens"] <= body["token_budget"]
    assert body["memory_context"].startswith("<memory_context>") and LISBON in body["memory_context"]
    assert "[working memory] task: plan Anna's airport pickup" in body["memory_context"]


def test_the_same_text_in_two_layers_is_kept_once(personas: Personas) -> None:
    _memories(personas)
    owner = personas.owner.user
    working_memory_merge(owner_id=owner.pk, conversation_id="live", fields={"note": LISBON})
    result = assemble(
        owner=owner,
        agent=personas.owner.agent,
        query="Anna Lisbon conference",
        conversation_id="live",
        token_budget=2000,
    )
    carrying = [p for p in result.pieces if LISBON.casefold() in p.text.casefold()]
    assert len(carrying) == 1 and result.dropped["duplicates"] >= 1


def test_near_duplicates_by_cosine_are_kept_once(personas: Personas) -> None:
    owner = personas.owner.user
    mine(owner, "c1", [{"role": "user", "content": "Anna flies to Lisbon on Tuesday for the conference."}], MARCH)
    episode_store(
        owner=owner,
        agent=personas.owner.agent,
        conversation_id="c1",
        summary="Anna flies to Lisbon on Tuesday, for the conference.",
        occurred_at=MARCH,
    )
    result = assemble(owner=owner, agent=None, query="Anna Lisbon", token_budget=2000)
    assert len([p for p in result.pieces if "Lisbon on Tuesday" in p.text]) == 1
    assert result.dropped["duplicates"] == 1


def test_short_term_and_long_term_entries_join_the_block_deduplicated(personas: Personas, api: APIClient) -> None:
    _memories(personas)
    me, teammate = personas.owner, personas.teammate
    short_term_write(agent=me.agent, session_id="live", key="gate", value="Anna's flight boards at gate 12")
    short_term_write(agent=me.agent, session_id="other", key="gate", value="a different session's gate 40")
    kb = context_create(agent=me.agent, name="travel")
    entry_create(agent=me.agent, context=kb, content="Anna prefers aisle seats on flights to Lisbon.")
    entry_create(agent=me.agent, context=kb, content=LISBON)  # the same text as a drawer: kept once
    hidden = context_create(agent=teammate.agent, name="teammate's own")
    entry_create(agent=teammate.agent, context=hidden, content="Anna's Lisbon flight is secretly cancelled.")

    answer = api.post(
        "/api/v1/context", {"query": "Anna's flight to Lisbon", "conversation_id": "live"}, format="json", **me.headers
    )
    body = answer.json()
    assert answer.status_code == 200 and body["degraded"] == []
    text = body["memory_context"]
    assert "[short-term task_context] gate: Anna's flight boards at gate 12" in text
    assert "gate 40" not in text  # another session's
    assert "[fact " in text and "aisle seats" in text
    assert "secretly cancelled" not in text  # a context the agent may not read
    assert text.casefold().count(LISBON.casefold()) == 1
    assert {"short_term", "long_term"} <= {p["source"] for p in body["pieces"]}
    # Being put in the context counts as a read of the short-term entry.
    assert ShortTermMemory.objects.get(session_id="live").access_count == 1


NOTES = [
    "The Lisbon hotel serves breakfast from seven on the rooftop.",
    "Our Lisbon hotel room faces the river and the bridge.",
    "Breakfast at the hotel includes custard tarts and strong coffee.",
    "The hotel in Lisbon charges a city tax of two euros a night.",
    "Tram 28 stops right outside the hotel entrance.",
    "Checkout from the Lisbon hotel is at eleven, late checkout costs extra.",
    "The hotel gym in Lisbon opens at six in the morning.",
    "We booked the Lisbon hotel through a travel agent in March.",
    "The hotel concierge recommended a fado bar in Alfama.",
    "Parking near the Lisbon hotel is expensive, so we take taxis.",
]


@pytest.mark.parametrize("budget", [60, 90, 150])
def test_the_token_budget_is_never_exceeded(personas: Personas, budget: int) -> None:
    owner = personas.owner.user
    for index, text in enumerate(NOTES):
        mine(owner, f"c{index}", [{"role": "user", "content": text}], MARCH)
    result = assemble(owner=owner, agent=None, query="Lisbon hotel breakfast", token_budget=budget, per_layer=10)
    count = providers.get_embedder().count_tokens  # type: ignore[attr-defined]
    assert result.pieces and result.dropped["over_budget"] > 0
    assert count([result.memory_context])[0] <= budget and result.tokens <= budget
    assert result.token_counter == "all-MiniLM-L6-v2 word pieces"


def test_with_redis_down_working_memory_is_left_out_and_said(
    personas: Personas, api: APIClient, own_redis: Path
) -> None:
    _memories(personas)
    working_memory_merge(owner_id=personas.owner.user.pk, conversation_id="live", fields={"task": "pickup"})
    embedded.stop_redis(own_redis)
    answer = api.post(
        "/api/v1/context", {"query": "Anna Lisbon", "conversation_id": "live"}, format="json", **personas.owner.headers
    )
    assert answer.status_code == 200
    body = answer.json()
    assert body["degraded"] == ["working_memory"]
    assert "drawers" in {p["source"] for p in body["pieces"]} and "pickup" not in body["memory_context"]


def test_with_the_embedder_down_it_searches_by_keywords(
    personas: Personas, api: APIClient, failing_embedder: Any
) -> None:
    owner = personas.owner.user
    mine(owner, "trip", [{"role": "user", "content": LISBON}], MARCH)  # stored without an embedding
    answer = api.post("/api/v1/context", {"query": "Lisbon conference"}, format="json", **personas.owner.headers)
    body = answer.json()
    assert answer.status_code == 200 and body["degraded"] == ["semantic"]
    assert LISBON in body["memory_context"]
    assert body["token_counter"] == "estimate: 4 characters per token"


def test_an_outsider_gets_nothing_of_the_owners(personas: Personas, api: APIClient) -> None:
    _memories(personas)
    answer = api.post("/api/v1/context", {"query": "Anna Lisbon"}, format="json", **personas.outsider.headers)
    assert answer.json()["pieces"] == [] and answer.json()["memory_context"] == ""
    assert Episode.objects.filter(owner=personas.owner.user).count() == 1


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": "x", "token_budget": 10},
        {"query": "x", "layers": ["nope"]},
        {"query": "x", "per_layer": 0},
        {"query": "x", "budget": 500},
    ],
)
def test_bad_context_input_is_a_400(personas: Personas, api: APIClient, body: dict[str, Any]) -> None:
    answer = api.post("/api/v1/context", body, format="json", **personas.owner.headers)
    assert answer.status_code == 400 and set(answer.json()) == {"message", "extra"}


def test_a_question_about_nothing_remembered_gets_an_empty_block(personas: Personas) -> None:
    _memories(personas)
    owner = personas.owner.user
    typed_memory_create(owner=owner, agent=personas.owner.agent, memory_type="semantic", content=ALLERGY)
    related = assemble(
        owner=owner, agent=personas.owner.agent, query="Which antibiotics must I avoid?", token_budget=2000
    )
    assert ALLERGY in related.memory_context  # the same memory is found when it is what is asked about
    result = assemble(
        owner=owner,
        agent=personas.owner.agent,
        query="What is the boiling point of tungsten in kelvin?",
        token_budget=2000,
    )
    assert result.pieces == [] and result.memory_context == ""


def test_the_message_being_asked_about_is_not_handed_back_as_memory(personas: Personas, api: APIClient) -> None:
    h = personas.owner.headers
    mine(personas.owner.user, "monday", [{"role": "user", "content": "My standup is at 9:30 every weekday."}], MARCH)
    question = "What time is my standup?"
    posted = api.post(
        "/api/v1/conversations",
        {"conversation_id": "live", "turns": [{"role": "user", "content": question}]},
        format="json",
        **h,
    )
    assert posted.status_code == 202  # not mined yet: recall reads it as a pending turn
    recalled = api.post("/api/v1/recall", {"query": question}, format="json", **h).json()
    assert any(r["content"] == question for r in recalled["results"])  # recall still finds it
    body = api.post("/api/v1/context", {"query": question, "conversation_id": "live"}, format="json", **h).json()
    assert question not in body["memory_context"] and "9:30 every weekday" in body["memory_context"]


def test_turns_of_this_conversation_still_being_filed_are_not_handed_back(personas: Personas, api: APIClient) -> None:
    h = personas.owner.headers
    mine(personas.owner.user, "gifts", [{"role": "user", "content": "Priya loves dinosaurs and glitter pens."}], MARCH)
    told = "My niece Priya turns 7 next week, and I need a present."
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "chat", "turns": [{"role": "user", "content": told}]},
        format="json",
        **h,
    )
    asked = "What present would my niece Priya like?"  # not the message's own text
    here = api.post("/api/v1/context", {"query": asked, "conversation_id": "chat"}, format="json", **h).json()
    assert told not in here["memory_context"] and "dinosaurs" in here["memory_context"]
    elsewhere = api.post("/api/v1/context", {"query": asked, "conversation_id": "other"}, format="json", **h).json()
    assert told in elsewhere["memory_context"]  # another conversation has not seen it: it is memory there
