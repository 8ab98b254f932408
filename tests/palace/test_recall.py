"""Recall: each signal on crafted data, fusion, the block, the switches, isolation, rerank and the API."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import MemorySettings, UsageRecord
from accounts.services import agent_update
from palace import keywords, recall_parts, temporal
from palace.models import Conversation, Drawer, PreferenceTopic
from palace.recall import SIGNALS, recall
from palace.services import intake, mining
from tests.conftest import Personas
from tests.factories import make_user
from tests.palace.recall_data import mine, set_vector, unit

pytestmark = pytest.mark.django_db

MARCH = datetime(2024, 3, 1, 12, tzinfo=UTC)


def test_a_drawer_only_the_keyword_signal_finds(personas: Personas) -> None:
    owner = personas.owner.user
    found, other = mine(
        owner,
        "c1",
        [
            {"role": "user", "content": "The Zeppelin museum in Friedrichshafen opens at nine."},
            {"role": "assistant", "content": "Noted, an early start then."},
        ],
        MARCH,
    )
    set_vector(found, None)  # the vector search cannot see it
    set_vector(other, unit((1, 1.0)))
    result = recall(owner=owner, query="zeppelin museum opening", vector=unit((0, 1.0)))
    assert [h.drawer.pk for h in result.hits] == [found.pk]
    assert result.hits[0].signals["keyword"] == 1.0 and result.hits[0].signals["semantic"] == 0.0


def test_accented_names_are_found_by_their_words(personas: Personas) -> None:
    owner = personas.owner.user
    found, other = mine(
        owner,
        "c1",
        [
            {"role": "user", "content": "My pottery teacher is Hélène Müller-Lefèvre, from Besançon."},
            {"role": "assistant", "content": "Noted, pottery on Thursdays then."},
        ],
        MARCH,
    )
    set_vector(found, None)
    set_vector(other, unit((1, 1.0)))
    for query in ("Hélène", "who is Müller-Lefèvre?", "Besançon"):
        result = recall(owner=owner, query=query, vector=unit((0, 1.0)))
        assert [h.drawer.pk for h in result.hits] == [found.pk], query
        assert result.hits[0].signals["keyword"] == 1.0


def test_a_drawer_only_the_vector_finds(personas: Personas) -> None:
    owner = personas.owner.user
    meaning, unrelated = mine(
        owner,
        "c1",
        [
            {"role": "user", "content": "Our dog chewed the sofa again."},
            {"role": "user", "content": "Taxes are due in April."},
        ],
        MARCH,
    )
    set_vector(meaning, unit((0, 0.9), (1, 0.1)))
    set_vector(unrelated, unit((5, 1.0)))
    result = recall(owner=owner, query="puppy furniture damage", vector=unit((0, 1.0)))
    assert [h.drawer.pk for h in result.hits] == [meaning.pk]  # no shared word; the unrelated one is not recalled
    assert result.hits[0].signals["keyword"] == 0.0 and result.hits[0].signals["semantic"] > 0.9


@pytest.mark.parametrize(("zone", "expected"), [("Pacific/Auckland", "this-saturday"), ("UTC", "week-before")])
def test_last_saturday_is_read_in_the_owners_timezone(personas: Personas, zone: str, expected: str) -> None:
    owner = personas.owner.user
    MemorySettings.objects.filter(user=owner).update(timezone=zone)
    # Saturday 9 March 2024 18:00 in Auckland (05:00 UTC), and the Saturday a week before.
    drawers = {
        "this-saturday": mine(
            owner,
            "this-saturday",
            [{"role": "user", "content": "We hiked the ridge trail."}],
            datetime(2024, 3, 9, 5, tzinfo=UTC),
        )[0],
        "week-before": mine(
            owner,
            "week-before",
            [{"role": "user", "content": "We hiked the ridge trail."}],
            datetime(2024, 3, 2, 5, tzinfo=UTC),
        )[0],
    }
    for drawer in drawers.values():
        set_vector(drawer, unit((0, 1.0)))
    # Reference: Saturday 9 March 12:00 UTC, already Sunday 10 March 01:00 in Auckland.
    reference = datetime(2024, 3, 9, 12, tzinfo=UTC)
    result = recall(
        owner=owner, query="where did we hike last Saturday?", reference_time=reference, vector=unit((0, 1.0))
    )
    assert result.when is not None and result.when["expression"] == "last saturday"
    assert result.hits[0].drawer.pk == drawers[expected].pk
    assert result.hits[0].signals["temporal"] == 1.0 and result.hits[1].signals["temporal"] < 1.0


def test_a_turn_is_also_placed_by_the_date_it_speaks_of(personas: Personas) -> None:
    owner = personas.owner.user
    said_on = datetime(2023, 8, 15, 12, tzinfo=UTC)  # every turn said the same day, in August
    texts = {
        "july": "I ordered a set of acrylic paints online last month.",
        "undated": "I ordered a set of acrylic paints online.",
        "broad": "I ordered a set of acrylic paints online this year.",
    }
    drawers = {key: mine(owner, key, [{"role": "user", "content": text}], said_on)[0] for key, text in texts.items()}
    for drawer in drawers.values():
        set_vector(drawer, unit((0, 1.0)))
    result = recall(
        owner=owner,
        query="what did I order online in July?",
        reference_time=datetime(2023, 8, 20, tzinfo=UTC),
        vector=unit((0, 1.0)),
    )
    temporal_of = {hit.drawer.pk: hit.signals["temporal"] for hit in result.hits}
    assert temporal_of[drawers["july"].pk] == 1.0  # "last month", said in August, is July
    assert temporal_of[drawers["undated"].pk] < 1.0
    assert temporal_of[drawers["broad"].pk] == temporal_of[drawers["undated"].pk]  # a year says nothing of July
    assert result.hits[0].drawer.pk == drawers["july"].pk


def test_a_time_neutral_query_gets_no_temporal_effect(personas: Personas) -> None:
    owner = personas.owner.user
    for days in (1, 300):
        drawer = mine(
            owner, f"c{days}", [{"role": "user", "content": "The ridge trail is steep."}], MARCH - timedelta(days=days)
        )[0]
        set_vector(drawer, unit((0, 1.0)))
    result = recall(owner=owner, query="how steep is the ridge trail", reference_time=MARCH, vector=unit((0, 1.0)))
    assert result.when is None
    assert [h.signals["temporal"] for h in result.hits] == [0.0, 0.0]
    assert result.hits[0].score == result.hits[1].score


def test_fused_scores_are_the_weighted_signals_in_order(personas: Personas) -> None:
    owner = personas.owner.user
    drawers = mine(
        owner,
        "c1",
        [
            {"role": "user", "content": "I prefer window seats on long flights."},
            {"role": "assistant", "content": "Window seats it is."},
            {"role": "user", "content": "Book the flight to Lisbon for May."},
            {"role": "assistant", "content": "Flights to Lisbon in May are cheaper midweek."},
        ],
        MARCH,
    )
    for index, drawer in enumerate(drawers):
        set_vector(drawer, unit((0, 1.0), (index + 1, 0.3 * index)))
    result = recall(owner=owner, query="flight seats", top_k=5, vector=unit((0, 1.0)))
    assert result.hits
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)
    weights = settings.RECALL_WEIGHTS
    for hit in result.hits:
        assert set(hit.signals) == set(SIGNALS)
        assert hit.score == pytest.approx(sum(weights[s] * hit.signals[s] for s in SIGNALS), abs=1e-5)
    stated = next(
        h for h in result.hits if h.drawer.pk == drawers[0].pk or (h.partner and h.partner.pk == drawers[0].pk)
    )
    assert stated is not None
    assert Drawer.objects.get(pk=drawers[0].pk).stated_preference


def test_a_question_and_its_answer_are_one_result(personas: Personas) -> None:
    owner = personas.owner.user
    question, answer = mine(
        owner,
        "c1",
        [
            {"role": "user", "content": "What battery fits the efoil?"},
            {"role": "assistant", "content": "A 12V20Ah pack fits the efoil board."},
        ],
        MARCH,
    )
    set_vector(question, unit((0, 1.0)))
    set_vector(answer, unit((0, 0.8), (1, 0.6)))
    result = recall(owner=owner, query="efoil battery", vector=unit((0, 1.0)))
    assert len(result.hits) == 1
    assert result.hits[0].drawer.pk == question.pk and result.hits[0].partner is not None
    assert result.hits[0].partner.pk == answer.pk
    # Both quoted verbatim in the block, each with its pointer and date.
    assert question.content in result.memory_context and answer.content in result.memory_context
    assert question.aaak in result.memory_context and "2024-03-01" in result.memory_context


def test_nothing_recalled_means_no_block_at_all(personas: Personas) -> None:
    owner = personas.owner.user
    assert recall(owner=owner, query="anything at all").memory_context == ""
    drawer = mine(owner, "c1", [{"role": "user", "content": "Tomatoes need full sun."}], MARCH)[0]
    set_vector(drawer, unit((3, 1.0)))
    result = recall(owner=owner, query="quarterly revenue", vector=unit((0, 1.0)))
    assert result.hits == [] and result.memory_context == ""


def test_recall_disabled_agents_and_opted_out_owners_get_an_empty_block(personas: Personas, api: APIClient) -> None:
    owner = personas.owner.user
    mine(owner, "c1", [{"role": "user", "content": "The garage code is 4512."}], MARCH)
    body = {"query": "garage code"}
    assert api.post("/api/v1/recall", body, format="json", **personas.owner.headers).json()["results"]
    agent_update(agent=personas.owner.agent, config={"recall_disabled": True})
    answer = api.post("/api/v1/recall", body, format="json", **personas.owner.headers).json()
    assert (answer["results"], answer["memory_context"], answer["skipped"]) == ([], "", "recall_disabled")
    # The teammate (another agent of the same owner) still recalls.
    assert api.post("/api/v1/recall", body, format="json", **personas.teammate.headers).json()["results"]
    MemorySettings.objects.filter(user=owner).update(enabled=False)
    answer = api.post("/api/v1/recall", body, format="json", **personas.teammate.headers).json()
    assert (answer["results"], answer["memory_context"], answer["skipped"]) == ([], "", "memory_disabled")


def test_a_small_owner_among_large_ones_still_gets_k_results(personas: Personas) -> None:
    small = personas.owner.user
    for index in range(8):
        set_vector(
            mine(small, f"s{index}", [{"role": "user", "content": f"note {index}"}], MARCH)[0],
            unit((0, 1.0), (1 + index, 0.5)),
        )
    big = make_user("big")
    template = mine(big, "big", [{"role": "user", "content": "filler"}], MARCH)[0]
    rng = random.Random(7)
    # 3,000 rows of another owner, all closer to the query than any of the small owner's.
    Drawer.objects.bulk_create(
        Drawer(
            owner=big,
            room_id=template.room_id,
            closet_id=template.closet_id,
            conversation_id=template.conversation_id,
            turn_index=1 + i,
            number=1 + i + 1,
            role="user",
            content=f"filler {i}",
            occurred_at=MARCH,
            aaak=f"§ W-001/R-01/D-{i + 2:03d}",
            embedding=unit((0, 1.0), (100 + rng.randrange(200), 0.1)),
        )
        for i in range(3000)
    )
    with override_settings(RECALL_CANDIDATES=10):
        result = recall(owner=small, query="unrelated words", top_k=5, vector=unit((0, 1.0)))
    assert len(result.hits) == 5
    assert all(h.drawer.owner_id == small.pk for h in result.hits)


def test_an_outsider_never_sees_the_owners_drawers(personas: Personas, api: APIClient) -> None:
    mine(personas.owner.user, "c1", [{"role": "user", "content": "My passport number ends in QX881."}], MARCH)
    answer = api.post("/api/v1/recall", {"query": "passport number"}, format="json", **personas.outsider.headers)
    assert answer.status_code == 200
    body = answer.json()
    # Not "881" alone: a timestamp's microseconds in the answer may hold those digits.
    assert body["results"] == [] and body["memory_context"] == "" and "QX881" not in answer.content.decode()
    assert set(body) == {
        "query",
        "top_k",
        "reference_time",
        "when",
        "results",
        "memory_context",
        "skipped",
        "degraded",
        "weights",
        "rerank",
        "timings_ms",
    }


def test_recall_through_the_api_with_the_default_embedder(personas: Personas, api: APIClient) -> None:
    owner = personas.owner.user
    mine(
        owner,
        "trip",
        [
            {"role": "user", "content": "My sister Anna is flying to Lisbon next week for a conference."},
            {"role": "assistant", "content": "Lisbon in spring is lovely; she should try the pastel de nata."},
        ],
        MARCH,
    )
    mine(owner, "garden", [{"role": "user", "content": "The tomatoes in the garden need staking."}], MARCH)
    answer = api.post(
        "/api/v1/recall",
        {"query": "When is Anna travelling to Portugal?", "top_k": 3},
        format="json",
        **personas.owner.headers,
    )
    assert answer.status_code == 200
    body = answer.json()
    first = body["results"][0]
    assert first["conversation_id"] == "trip" and first["pointer"].startswith("§ W-")
    assert first["room"]["number"] >= 1 and first["wing"]["name"]
    assert set(first["signals"]) == set(SIGNALS) and first["partner"]["role"] == "assistant"
    assert body["memory_context"].startswith("<memory_context>") and "Anna is flying" in body["memory_context"]
    assert UsageRecord.objects.filter(owner=owner, source="memory_embed").exists()  # the query was embedded


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": ""},
        {"query": "x", "top_k": 0},
        {"query": "x", "top_k": 51},
        {"query": "x", "since": "2024-03-02T00:00:00Z", "until": "2024-03-01T00:00:00Z"},
        {"query": "x", "agent": "not-a-uuid"},
        {"query": ["x"]},
        {"query": "x", "topk": 3},  # a misspelt option is refused, not ignored
    ],
)
def test_bad_recall_input_is_a_400_in_the_envelope(personas: Personas, api: APIClient, body: dict[str, Any]) -> None:
    answer = api.post("/api/v1/recall", body, format="json", **personas.owner.headers)
    assert answer.status_code == 400
    assert set(answer.json()) == {"message", "extra"}
    if "topk" in body:
        assert answer.json()["extra"]["fields"] == {"topk": ["Unknown field."]}


RERANK_AXIS = 40


def _rerank_setup(personas: Personas, use_providers: Any, stub_openai: str, **extra: Any) -> list[Drawer]:
    use_providers(LLM_MODEL="stub-reader", OPENAI_BASE_URL=stub_openai, **extra)
    owner = personas.owner.user
    MemorySettings.objects.filter(user=owner).update(use_rerank=True, rerank_model="stub-reranker")
    drawers = []
    for index, text in enumerate(["Airships fly slowly.", "Balloons rise with hot air.", "A zeppelin is rigid."]):
        drawer = mine(owner, f"c{index}", [{"role": "user", "content": text}], MARCH)[0]
        # Axes no other test uses: rows other tests left in the HNSW graph (rolled back, not yet vacuumed)
        # with the very same vectors crowd a filtered search and made it return one drawer of three.
        set_vector(drawer, unit((RERANK_AXIS, 1.0), (RERANK_AXIS + 1, 0.2 * index)))  # the zeppelin: least similar
        drawers.append(drawer)
    return drawers


def test_rerank_promotes_the_readers_choice(personas: Personas, use_providers: Any, stub_openai: str) -> None:
    drawers = _rerank_setup(personas, use_providers, stub_openai)
    owner = personas.owner.user
    result = recall(owner=owner, query="tell me about lighter-than-air craft", vector=unit((RERANK_AXIS, 1.0)))
    assert result.rerank["used"] is True
    assert result.hits[0].drawer.pk == drawers[2].pk and result.hits[0].signals["rerank"] == 1.0
    assert result.hits[1].signals["rerank"] == 0.0
    usage = UsageRecord.objects.get(owner=owner, source="memory_rerank")
    assert usage.model == "stub-reranker" and usage.succeeded


@pytest.mark.parametrize("marker", ["(garbage)", "(slow)"])
def test_a_failed_rerank_keeps_the_fused_order_and_says_so(
    personas: Personas, use_providers: Any, stub_openai: str, marker: str
) -> None:
    drawers = _rerank_setup(personas, use_providers, stub_openai, RERANK_TIMEOUT=1)
    query = f"buoyant craft {marker}"  # no word of any drawer: the fused order is the vectors'
    result = recall(owner=personas.owner.user, query=query, vector=unit((RERANK_AXIS, 1.0)))
    assert result.rerank["used"] is False and "fused order kept" in result.rerank["error"]
    assert [h.drawer.pk for h in result.hits] == [d.pk for d in drawers]
    assert all("rerank" not in h.signals for h in result.hits)


def test_topics_the_user_keeps_returning_to_and_stated_preferences_boost(personas: Personas) -> None:
    owner = personas.owner.user
    for index in range(3):
        mine(
            owner,
            f"bread-{index}",
            [{"role": "user", "content": f"Baked sourdough again, loaf number {index}."}],
            MARCH + timedelta(days=index),
        )
    stated = mine(owner, "likes", [{"role": "user", "content": "I love rye bread more than anything."}], MARCH)[0]
    once = mine(owner, "once", [{"role": "user", "content": "Tried focaccia once, too oily."}], MARCH)[0]
    topic = PreferenceTopic.objects.get(owner=owner, term="sourdough")
    assert topic.rooms == 3
    # Appending to a conversation already counted does not count it again.
    intake.conversation_append(
        owner=owner, external_id="bread-0", turns=[{"role": "user", "content": "More sourdough talk."}]
    )
    mining.conversation_mine(conversation=Conversation.objects.get(owner=owner, external_id="bread-0"))
    topic.refresh_from_db()
    assert topic.rooms == 3
    everything = Drawer.objects.filter(owner=owner)
    for drawer in everything:
        set_vector(drawer, unit((0, 1.0)))
    result = recall(owner=owner, query="what sourdough, focaccia or rye did I bake", top_k=10, vector=unit((0, 1.0)))
    preference = {h.drawer.pk: h.signals["preference"] for h in result.hits}
    assert preference[stated.pk] == 1.0  # a stated preference
    assert preference[once.pk] == 0.0  # focaccia came up in one conversation only: not a topic
    sourdough = [h for h in result.hits if "sourdough" in h.drawer.content.lower()]
    assert sourdough and all(h.signals["preference"] == 0.5 for h in sourdough)  # three rooms: (3 - 1) / 4


def test_filters_narrow_recall_to_a_wing_room_agent_or_time(personas: Personas, api: APIClient) -> None:
    owner = personas.owner.user
    early = mine(owner, "early", [{"role": "user", "content": "The Heron project needs a new battery."}], MARCH)[0]
    late = mine(
        owner,
        "late",
        [{"role": "user", "content": "The Osprey project needs a new battery."}],
        MARCH + timedelta(days=30),
        agent=personas.owner.agent,
    )[0]

    def recalled(**filters: Any) -> list[str]:
        answer = api.post("/api/v1/recall", {"query": "battery", **filters}, format="json", **personas.owner.headers)
        assert answer.status_code == 200, answer.json()
        return [r["conversation_id"] for r in answer.json()["results"]]

    assert sorted(recalled()) == ["early", "late"]
    assert recalled(room=late.room_id) == ["late"]
    assert recalled(wing=early.room.wing_id) == ["early"]
    assert recalled(since=(MARCH + timedelta(days=1)).isoformat()) == ["late"]
    assert recalled(until=(MARCH + timedelta(days=1)).isoformat()) == ["early"]
    assert recalled(agent=str(personas.owner.agent.id)) == ["late"]
    assert recalled(agent=str(personas.teammate.agent.id)) == []  # neither was posted by that agent


def test_the_number_of_queries_does_not_grow_with_the_results(personas: Personas, api: APIClient) -> None:
    owner = personas.owner.user
    for index in range(12):
        mine(
            owner,
            f"c{index}",
            [
                {"role": "user", "content": f"Garden note {index}: water the basil."},
                {"role": "assistant", "content": "Basil likes morning water."},
            ],
            MARCH,
        )

    def queries_for(top_k: int) -> int:
        api.post("/api/v1/recall", {"query": "basil watering", "top_k": top_k}, format="json", **personas.owner.headers)
        with CaptureQueriesContext(connection) as captured:
            answer = api.post(
                "/api/v1/recall", {"query": "basil watering", "top_k": top_k}, format="json", **personas.owner.headers
            )
        assert len(answer.json()["results"]) == top_k
        return len(captured.captured_queries)

    assert queries_for(2) == queries_for(10)


def test_what_the_person_said_outranks_an_equally_close_reply_to_a_first_person_question(
    personas: Personas,
) -> None:
    owner = personas.owner.user
    said, reply = mine(
        owner,
        "c1",
        [
            {"role": "user", "content": "I went to two charity runs in the park."},
            {"role": "assistant", "content": "Charity runs in parks are popular in spring."},
        ],
        MARCH,
    )
    other_said, other_reply = mine(
        owner,
        "c2",
        [
            {"role": "user", "content": "Tell me about the marathon."},
            {"role": "assistant", "content": "The park hosts charity runs every May."},
        ],
        MARCH,
    )
    for drawer in (said, other_said):
        set_vector(drawer, unit((0, 0.6), (1, 0.8)))
    for drawer in (reply, other_reply):  # the replies are a little closer to the query
        set_vector(drawer, unit((0, 0.65), (1, 0.76)))
    asked = recall(owner=owner, query="which charity runs have I been to?", vector=unit((0, 1.0)))
    assert asked.hits[0].drawer.pk == said.pk
    top = asked.hits[0].signals
    assert top["speaker"] == max(top["semantic"], top["keyword"]) > 0
    assert all(h.signals["speaker"] == 0 for h in asked.hits if h.drawer.role == "assistant")
    neutral = recall(owner=owner, query="charity runs in the park", vector=unit((0, 1.0)))
    assert all(h.signals["speaker"] == 0 for h in neutral.hits)


def test_a_subject_told_in_passing_by_the_person_is_found_by_its_words(personas: Personas) -> None:
    """A list question ("which charity things have I done or bought?") is answered by the turn that names the
    subject in passing, far in meaning; the verbs of doing say nothing of the subject and are not keywords."""
    owner = personas.owner.user
    said, _ = mine(
        owner,
        "c1",
        [
            {"role": "user", "content": "I need a display case for the jersey I won at a charity auction."},
            {"role": "assistant", "content": "A UV-protected case keeps a jersey from fading."},
        ],
        MARCH,
    )
    close, _ = mine(
        owner,
        "c2",
        [
            {"role": "user", "content": "I spent $200 on comfort items for my grandma this month."},
            {"role": "assistant", "content": "That's a thoughtful way to help her."},
        ],
        MARCH,
    )
    set_vector(said, unit((0, 0.2), (1, 0.98)))  # far in meaning: the turn is about a display case
    set_vector(close, unit((0, 0.45), (2, 0.89)))  # nearer: buying things, no charity
    assert keywords.query_words("Which charity things have I done or bought from?") == ["charity"]
    asked = recall(owner=owner, query="Which charity things have I done or bought from?", vector=unit((0, 1.0)))
    assert asked.hits[0].drawer.pk == said.pk
    assert asked.hits[0].signals["speaker"] == asked.hits[0].signals["keyword"] > asked.hits[0].signals["semantic"]


@pytest.mark.parametrize(
    "query",
    [
        "Put the charity events I went to in order, from the first to the most recent.",
        "Which did I do first, the gala or the bike ride?",
        "How many days were there between the gala and my most recent race?",
    ],
)
def test_a_question_about_order_or_spans_asks_for_no_recency(query: str) -> None:
    from palace import temporal

    assert temporal.parse(query, MARCH) is None


def test_a_question_about_the_latest_still_asks_for_recency() -> None:
    from palace import temporal

    parsed = temporal.parse("What is my most recent race time?", MARCH)
    assert isinstance(parsed, temporal.Recency)
    # Newer is better: how things stand now is what the newest statement says (halved every 30 days) ...
    week, month, season = (parsed.fit(MARCH - timedelta(days=d)) for d in (7, 30, 90))
    assert 1.0 > week > month > season > 0
    assert month == pytest.approx(0.5)
    # ... while "these days" spans months of conversations: a season-old memory keeps half its weight.
    lately = temporal.parse("What am I collecting these days?", MARCH)
    assert isinstance(lately, temporal.Recency)
    assert lately.fit(MARCH - timedelta(days=90)) == pytest.approx(0.5)


def test_a_person_the_query_names_brings_every_drawer_about_them(personas: Personas) -> None:
    owner = personas.owner.user
    aside = mine(
        owner,
        "c1",
        [{"role": "user", "content": "My friend Rachel told me about a supplier fair, so I need tips on suppliers."}],
        MARCH,
    )[0]
    close = mine(owner, "c2", [{"role": "user", "content": "I went on a long weekend hike."}], MARCH)[0]
    from palace.models import Wing

    assert Wing.objects.filter(owner=owner, name="Rachel", kind="person").exists()
    set_vector(aside, unit((1, 1.0)))  # about suppliers, not close to the question at all
    set_vector(close, unit((0, 0.4), (2, 0.9165)))  # closer in meaning, names no one
    result = recall(owner=owner, query="What have I told you about my friend Rachel?", vector=unit((0, 1.0)))
    by_pk = {hit.drawer.pk: hit for hit in result.hits}
    assert by_pk[aside.pk].signals["entity"] == 1.0 and by_pk[close.pk].signals["entity"] == 0.0
    assert result.hits[0].drawer.pk == aside.pk
    elsewhere = recall(owner=owner, query="What have I told you about my weekend?", vector=unit((0, 1.0)))
    assert all(hit.signals["entity"] == 0.0 for hit in elsewhere.hits)


def test_the_named_wings_are_the_owners_only(personas: Personas) -> None:
    from palace import anchors

    mine(personas.owner.user, "c1", [{"role": "user", "content": "My sister Rachel moved to Denver."}], MARCH)
    assert "rachel" in anchors.named_in(owner_id=personas.owner.user.pk, query="Where does Rachel live?").names
    assert not anchors.named_in(owner_id=personas.outsider.user.pk, query="Where does Rachel live?")


def test_the_person_naming_what_the_question_calls_theirs_is_the_speaker_at_full_weight(personas: Personas) -> None:
    owner = personas.owner.user
    own = mine(owner, "c1", [{"role": "user", "content": "Tips for portraits? I shot my sister and her kids."}])[0]
    question, story = mine(
        owner,
        "c2",
        [{"role": "user", "content": "Who runs away?"}, {"role": "assistant", "content": "The sister runs away."}],
    )
    set_vector(own, unit((0, 0.1), (1, 0.995)))  # about portraits, far from the question
    set_vector(story, unit((0, 0.2), (2, 0.98)))  # a little closer, and naming a sister: not theirs
    set_vector(question, unit((3, 1.0)))
    result = recall(owner=owner, query="What have I told you about my sister?", vector=unit((0, 1.0)))
    by_pk = {hit.drawer.pk: hit for hit in result.hits}
    assert by_pk[own.pk].signals["speaker"] == 1.0
    assert by_pk[story.pk].signals["speaker"] == 0.0
    assert result.hits[0].drawer.pk == own.pk


@pytest.mark.parametrize(
    ("old", "new", "query"),
    [
        ("My favourite tea is genmaicha.", "My favourite tea is now hojicha.", "What is my favourite tea now?"),
        ("I drive a blue Honda Civic.", "I sold the Civic; I drive a grey Mazda 3 now.", "What car do I drive now?"),
    ],
)
def test_a_newer_statement_of_the_same_thing_wins_a_question_about_now(
    personas: Personas, old: str, new: str, query: str
) -> None:
    owner = personas.owner.user
    start = datetime(2026, 11, 20, 9, tzinfo=UTC)
    mine(owner, "before", [{"role": "user", "content": old}], start)
    mine(owner, "after", [{"role": "user", "content": new}], start + timedelta(days=5))
    hits = recall(owner=owner, query=query, reference_time=start + timedelta(days=6)).hits
    assert [h.drawer.content for h in hits[:2]] == [new, old], [(h.drawer.content, h.signals) for h in hits]


def test_a_bare_greeting_or_thanks_is_no_answer_to_a_query_it_shares_no_word_with(personas: Personas) -> None:
    owner = personas.owner.user
    mine(owner, "hello", [{"role": "user", "content": "hi"}, {"role": "user", "content": "Thanks, all good!"}], MARCH)
    mine(owner, "trip", [{"role": "user", "content": "I am flying to Lisbon on May 12."}], MARCH)
    for query in ("xyzzy plugh", "hello there", "asdf qwer"):
        assert not [h for h in recall(owner=owner, query=query).hits if h.drawer.conversation.external_id == "hello"]
    assert [h.drawer.content for h in recall(owner=owner, query="When do I fly to Lisbon?").hits] == [
        "I am flying to Lisbon on May 12."
    ]


def test_a_question_that_is_only_a_time_gets_what_was_said_then(personas: Personas) -> None:
    owner = personas.owner.user
    start = datetime(2026, 11, 2, 10, tzinfo=UTC)  # a Monday
    said = {
        0: "Bought a cast iron pan and seasoned it twice.",
        2: "The plumber fixed the leak under the sink.",
        9: "My cousin's wedding is set for June in Porto.",
        12: "Started reading a novel about lighthouse keepers.",
    }
    for day, text in said.items():
        mine(owner, f"d{day}", [{"role": "user", "content": text}], start + timedelta(days=day))
    result = recall(owner=owner, query="What did I tell you last week?", reference_time=start + timedelta(days=14))
    assert result.when is not None and result.when["start"].startswith("2026-11-09")
    assert {h.drawer.content for h in result.hits[:2]} == {said[9], said[12]}  # the week of the 9th, nothing else first
    assert all(h.signals["temporal"] == 1.0 for h in result.hits[:2])
    # A named month or day is a time too, and "talk about" asks for nothing else.
    later = start + timedelta(days=14)
    on_the_day = recall(owner=owner, query="What did we talk about on November 11?", reference_time=later)
    assert on_the_day.hits and on_the_day.hits[0].drawer.content == said[9]
    in_month = recall(owner=owner, query="What did I tell you in November?", reference_time=later)
    assert {h.drawer.content for h in in_month.hits} == set(said.values())


def test_a_pasted_document_is_quoted_in_part_in_the_block_and_whole_in_the_hit(personas: Personas) -> None:
    owner = personas.owner.user
    document = "Quarterly notes on the zeppelin hangar lease. " + "Clause text follows here. " * 4000
    drawer = mine(owner, "doc", [{"role": "user", "content": document}], MARCH)[0]
    result = recall(owner=owner, query="zeppelin hangar lease")
    assert result.hits[0].drawer.content == document
    assert len(result.memory_context) < 5000 and f"… (full text: {drawer.aaak})" in result.memory_context


def test_a_question_about_the_persons_relatives_finds_every_one_they_named(personas: Personas) -> None:
    """ "Which relatives have I mentioned?": each "my niece", "my brother" turn is evidence though none says
    "relative", and a turn where the word's stem means something else ("it relates to") is not."""
    owner = personas.owner.user
    turns = {
        "niece": "I just attended my niece's graduation ceremony last weekend.",
        "brother": "I hiked the John Muir Trail with my brother, and now I want a bike trip.",
        "trunk": "I restored an antique trunk from my parents' attic.",
        "relates": "How does knowledge modeling relate to my background in data science?",
    }
    drawers = _said_far_from_the_query(owner, turns)
    asked = recall(owner=owner, query="Which relatives have I mentioned, and in what context?", vector=unit((0, 1.0)))
    top = [hit.drawer.pk for hit in asked.hits[:3]]
    assert set(top) == {drawers["niece"].pk, drawers["brother"].pk, drawers["trunk"].pk}
    assert all(hit.signals["speaker"] == 1.0 and hit.signals["keyword"] == 1.0 for hit in asked.hits[:3])
    relates = next((hit for hit in asked.hits if hit.drawer.pk == drawers["relates"].pk), None)
    assert relates is None or relates.signals["keyword"] == 0


def test_each_event_of_an_ordering_question_keeps_a_place(personas: Personas) -> None:
    """ "Put these in order: A, B and C": ranked by the whole question the event it says most about takes
    every place; each event's best drawer leads instead (by its meaning or, here, its words)."""
    owner = personas.owner.user
    query = "Put these in order: getting my new zoom lens, the birdwatching workshop, and meeting the graphic designer."
    assert recall_parts.event_parts(query) == [
        "getting my new zoom lens",
        "the birdwatching workshop",
        "meeting the graphic designer.",
    ]
    assert recall_parts.event_parts("What zoom lens and which workshop do I like?") == []  # no order, no span
    said = {}
    texts = {
        "lens-1": "I finally got my new zoom lens for the camera.",
        "lens-2": "Is a zoom lens good for portraits? Mine is new.",
        "lens-3": "My zoom lens came with a new hood.",
        "workshop": "The birdwatching workshop at the library was great.",
        "designer": "I had coffee with a graphic designer about my logo.",
    }
    for n, (name, text) in enumerate(texts.items()):
        said[name], _ = mine(
            owner, f"c{n}", [{"role": "user", "content": text}, {"role": "assistant", "content": "Nice."}], MARCH
        )
        near = name.startswith("lens")
        set_vector(said[name], unit((0, 0.9 if near else 0.3), (n + 1, 0.44 if near else 0.95)))
    asked = recall(owner=owner, query=query, vector=unit((0, 1.0)), top_k=3)
    top = {hit.drawer.pk for hit in asked.hits}
    assert {said["workshop"].pk, said["designer"].pk} <= top
    assert len(top & {said[f"lens-{n}"].pk for n in (1, 2, 3)}) == 1


@pytest.mark.parametrize(
    ("query", "events"),
    [
        (  # "and" before one word is inside its event; the lead before the colon asks, it names no event
            "Order these events: my first coffee delivery, replacing my bike's chain and cassette, and the museum.",
            ["my first coffee delivery", "replacing my bike's chain and cassette", "the museum."],
        ),
        (
            "Which task did I complete first, fixing the fence or trimming the goats' hooves?",
            ["fixing the fence", "trimming the goats' hooves"],
        ),
        (
            "In what order did these happen: signing up for Hulu, playing chess at my uncle's, and the gala?",
            ["signing up for Hulu", "playing chess at my uncle's", "the gala"],
        ),
        (  # the second sentence names the same events again
            "Put these in order: starting therapy, and the racing event at the track. How long after my first "
            "therapy session was the track day?",
            ["starting therapy", "the racing event at the track."],
        ),
        (  # two events of one sentence may share a word
            "Which came first: the birthday party in my boots, or planning my garden party?",
            ["the birthday party in my boots", "planning my garden party"],
        ),
        (  # a quoted title is one event's, colon and all
            "Which did I finish first, 'Sapiens: A Brief History of Humankind' or 'The Power'?",
            ["'Sapiens: A Brief History of Humankind'", "'The Power'"],
        ),
        (
            "How many days had passed since I bought my running shoes when I broke a shoelace?",
            ["How many days had passed since I bought my running shoes", "I broke a shoelace"],
        ),
        ("What did I do last weekend?", []),  # a window, not an order
    ],
)
def test_the_events_of_an_ordering_question(query: str, events: list[str]) -> None:
    assert recall_parts.event_parts(query) == events


def test_a_question_about_the_persons_exercise_finds_each_kind_they_named(personas: Personas) -> None:
    """ "What kinds of exercise do I do?": a pilates class and a morning run are the answer though neither
    turn says "exercise"; kinds of exercise are named without "my", so anywhere in the person's turn counts."""
    owner = personas.owner.user
    turns = {
        "pilates": "I've been going to a pilates class on Tuesdays after work.",
        "run": "I went for a run along the river before breakfast.",
        "tax": "I need to file my taxes before April.",
    }
    drawers = _said_far_from_the_query(owner, turns)
    asked = recall(owner=owner, query="What kinds of exercise do I do?", vector=unit((0, 1.0)))
    found = [hit.drawer.pk for hit in asked.hits]
    assert set(found[:2]) == {drawers["pilates"].pk, drawers["run"].pk}
    assert drawers["tax"].pk not in found


def test_a_task_set_to_the_assistant_is_no_one_speaking_of_themselves(personas: Personas) -> None:
    """ "Write me a scene about two directors …" is an instruction; "I volunteered at the food bank" is the
    person's own: only the second gets the `speaker` signal of a first-person question."""
    owner = personas.owner.user
    task, _ = mine(
        owner,
        "c1",
        [
            {"role": "user", "content": "Write me a scene where two volunteers plan a charity event."},
            {"role": "assistant", "content": "INT. HALL - DAY ..."},
        ],
        MARCH,
    )
    own, _ = mine(
        owner,
        "c2",
        [
            {"role": "user", "content": "Last month I volunteered at the food bank downtown."},
            {"role": "assistant", "content": "That's generous of you."},
        ],
        MARCH,
    )
    set_vector(task, unit((0, 0.62), (1, 0.78)))  # a little nearer the question than the person's own words
    set_vector(own, unit((0, 0.6), (2, 0.8)))
    asked = recall(owner=owner, query="What volunteer work have I done?", vector=unit((0, 1.0)))
    by_pk = {hit.drawer.pk: hit for hit in asked.hits}
    assert by_pk[task.pk].signals["speaker"] == 0 and by_pk[own.pk].signals["speaker"] > 0
    assert asked.hits[0].drawer.pk == own.pk


def test_a_question_about_classes_finds_lessons_workshops_and_courses(personas: Personas) -> None:
    """ "What classes am I taking?" is answered by "my Spanish lessons" and "a pottery workshop" too: one thing
    asked about in many words."""
    owner = personas.owner.user
    turns = {
        "lessons": "My Spanish lessons on Thursdays are getting harder.",
        "workshop": "I signed up for a pottery workshop at the community center.",
        "garden": "My tomatoes finally turned red this week.",
        "agreed": "Of course, I will water them every morning.",  # "of course" is no course
    }
    drawers = _said_far_from_the_query(owner, turns)
    asked = recall(owner=owner, query="What classes am I taking?", vector=unit((0, 1.0)))
    found = [hit.drawer.pk for hit in asked.hits]
    assert set(found[:2]) == {drawers["lessons"].pk, drawers["workshop"].pk}
    assert drawers["garden"].pk not in found and drawers["agreed"].pk not in found


def _said_far_from_the_query(owner: Any, turns: dict[str, str]) -> dict[str, Drawer]:
    """Each text as the user's turn of its own conversation, every one far in meaning from a query along
    axis 0: what recall finds of them, it finds by their words."""
    drawers = {}
    for n, (name, text) in enumerate(turns.items()):
        drawers[name], _ = mine(
            owner, f"c{n}", [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}], MARCH
        )
        set_vector(drawers[name], unit((0, 0.1), (n + 1, 0.99)))
    return drawers


@pytest.mark.parametrize(
    ("query", "start"),
    [
        ("What did I tell you last October?", datetime(2026, 10, 1, tzinfo=UTC)),
        ("What happened last November?", datetime(2025, 11, 1, tzinfo=UTC)),  # said in November: a year ago
        ("What did I do in early May?", datetime(2026, 5, 1, tzinfo=UTC)),
        ("What did I say last month?", datetime(2026, 10, 1, tzinfo=UTC)),
    ],
)
def test_a_named_month_is_read_with_last_too(query: str, start: datetime) -> None:
    window = temporal.parse(query, datetime(2026, 11, 20, tzinfo=UTC))
    assert isinstance(window, temporal.TimeWindow) and window.start == start


def test_a_short_form_names_its_wing_only_as_written(personas: Personas) -> None:
    from palace import anchors

    owner = personas.owner.user.pk
    mine(personas.owner.user, "c1", [{"role": "user", "content": "I moved to the US from Berlin last year."}], MARCH)
    assert "united states" in anchors.named_in(owner_id=owner, query="When did I move to the US?").names
    assert "united states" in anchors.named_in(owner_id=owner, query="What did I do in the USA?").names
    assert not anchors.named_in(owner_id=owner, query="What did you tell us about moving?").names
