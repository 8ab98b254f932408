"""Cost metering and monthly budgets: usage summed per month, and over budget every LLM path and a paid
embedder take the offline path and say so, against the OpenAI-compatible stub on loopback."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.budgets import budget_state
from accounts.models import MemorySettings, UsageRecord
from accounts.services import usage_record
from episodic.models import Episode
from episodic.services.maintenance.backfill import embedding_backfill
from palace.models import Conversation, Room
from palace.services import mining
from tests.conftest import Personas
from tests.factories import make_user
from tests.fixtures.providers import StubOpenAI
from tests.palace.recall_data import mine
from tests.palace.test_conversations import TWO_PEOPLE_AND_A_PROJECT

pytestmark = pytest.mark.django_db

LLM = {"LLM_MODEL": "gpt-4o-mini"}  # priced: 0.15 / 0.60 USD per million tokens in / out
# The stub reports 50 prompt and 20 completion tokens per chat call.
CHAT_COST = (Decimal("0.15") * 50 + Decimal("0.60") * 20) / Decimal(1_000_000)


def _budget(user: User, amount: str | None) -> None:
    MemorySettings.objects.update_or_create(
        user=user, defaults={"monthly_budget_usd": None if amount is None else Decimal(amount)}
    )


def _spend(user: User, usd: str) -> None:
    """Meter a past call worth `usd` this month (gpt-4o input costs 2.50 USD per million tokens)."""
    tokens = int(Decimal(usd) / Decimal("2.50") * 1_000_000)
    usage_record(
        owner_id=user.pk, source="memory_extract", provider="openai", model="gpt-4o", items=1, input_tokens=tokens
    )


def _propose(api: APIClient, headers: dict[str, Any]) -> dict[str, Any]:
    turns = [{"role": "user", "content": "Actually my sister is Anna, remember that."}]
    response = api.post("/api/v1/episodes/propose", {"conversation_id": "s", "turns": turns}, format="json", **headers)
    assert response.status_code in (200, 201), response.content
    return response.json()


def _chat_calls() -> int:
    return sum(1 for call in StubOpenAI.calls if call["path"].endswith("/chat/completions"))


def _embedding_calls() -> int:
    return sum(1 for call in StubOpenAI.calls if call["path"].endswith("/embeddings"))


def test_llm_calls_are_metered_with_the_stubs_token_usage_and_summed_per_month(
    api: APIClient, personas: Personas, use_providers: Any, stub_openai: str
) -> None:
    use_providers(OPENAI_BASE_URL=stub_openai, **LLM)
    h = personas.owner.headers
    assert _propose(api, h)["summarizer"] == "llm"
    assert _propose(api, personas.teammate.headers)["summarizer"] == "llm"
    record = UsageRecord.objects.filter(owner=personas.owner.user, source="memory_summarize").first()
    assert record is not None and (record.input_tokens, record.output_tokens) == (50, 20)
    assert record.cost_usd == CHAT_COST.quantize(Decimal("0.000001"))
    # One of the two calls belongs to last month.
    last_month = timezone.now().replace(day=1) - timedelta(days=1)
    UsageRecord.objects.filter(pk=record.pk).update(created_at=last_month)

    # The episodes' embeddings (the local embedder, free) are metered too, as memory_embed.
    rows = {row["source"]: row for row in api.get("/api/v1/usage", **h).json()["results"]}
    assert set(rows) == {"memory_embed", "memory_summarize"} and rows["memory_embed"]["cost_usd"] == "0.000000"
    row = rows["memory_summarize"]
    assert (row["source"], row["calls"], row["input_tokens"], row["output_tokens"]) == ("memory_summarize", 1, 50, 20)
    previous = api.get(f"/api/v1/usage?month={last_month:%Y-%m}", **h).json()
    assert (previous["next"], previous["previous"]) == (None, None)
    assert [(r["source"], r["calls"]) for r in previous["results"]] == [("memory_summarize", 1)]
    assert api.get("/api/v1/usage?month=2001-01", **h).json() == {
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
    }
    # The outsider's agent sees only its owner's (empty) usage.
    assert api.get("/api/v1/usage", **personas.outsider.headers).json()["results"] == []
    assert api.get(f"/api/v1/usage?month={last_month:%Y-%m}", **personas.outsider.headers).json()["count"] == 0


@pytest.mark.parametrize("month", ["2026-13", "2026-4", "april", "1969-12"])
def test_a_malformed_month_is_a_400_in_the_envelope(api: APIClient, personas: Personas, month: str) -> None:
    response = api.get(f"/api/v1/usage?month={month}", **personas.owner.headers)
    assert response.status_code == 400
    assert set(response.json()) == {"message", "extra"}


def test_an_empty_month_is_the_current_one(api: APIClient, personas: Personas) -> None:
    _spend(personas.owner.user, "0.25")
    [row] = api.get("/api/v1/usage?month=", **personas.owner.headers).json()["results"]
    assert row["cost_usd"] == "0.250000"


def test_the_budget_is_the_persons_own_else_the_default_else_unlimited(personas: Personas) -> None:
    owner = personas.owner.user
    _spend(owner, "2.00")
    assert budget_state(owner=owner) == {"limit": None, "spent": Decimal("2.00"), "over": False}
    with override_settings(MEMORY_MONTHLY_BUDGET_USD=Decimal("1.50")):
        assert budget_state(owner=owner)["over"] is True
        _budget(owner, "3.00")
        assert budget_state(owner=owner) == {"limit": Decimal("3.00"), "spent": Decimal("2.00"), "over": False}
        # The outsider spent nothing and has only the default.
        outsider = personas.outsider.user
        assert budget_state(owner=outsider) == {"limit": Decimal("1.50"), "spent": Decimal(0), "over": False}
    # Last month's spend does not count against this month.
    UsageRecord.objects.filter(owner=owner).update(created_at=timezone.now().replace(day=1) - timedelta(days=1))
    _budget(owner, "0.50")
    assert budget_state(owner=owner)["spent"] == 0 and budget_state(owner=owner)["over"] is False


def test_under_budget_every_llm_path_is_used(
    api: APIClient, personas: Personas, use_providers: Any, stub_openai: str
) -> None:
    use_providers(OPENAI_BASE_URL=stub_openai, **LLM)
    owner = personas.owner.user
    _budget(owner, "5.00")
    _spend(owner, "1.00")
    h = personas.owner.headers
    api.post("/api/v1/conversations", {"conversation_id": "c1", "turns": TWO_PEOPLE_AND_A_PROJECT}, format="json", **h)
    counts = mining.conversation_mine(conversation=Conversation.objects.get(owner=owner, external_id="c1"))
    assert "llm" not in counts
    assert UsageRecord.objects.filter(owner=owner, source="memory_extract", model="gpt-4o-mini").count() == 1
    assert _propose(api, h)["summarizer"] == "llm"
    body = api.post("/api/v1/recall", {"query": "Efoil battery", "use_rerank": True}, format="json", **h).json()
    assert body["rerank"]["used"] is True
    assert UsageRecord.objects.filter(owner=owner, source="memory_rerank").count() == 1


def test_over_budget_mining_extracts_offline_and_says_so(
    api: APIClient, personas: Personas, use_providers: Any, stub_openai: str
) -> None:
    use_providers(OPENAI_BASE_URL=stub_openai, **LLM)
    owner = personas.owner.user
    _budget(owner, "1.00")
    _spend(owner, "1.00")
    h = personas.owner.headers
    api.post("/api/v1/conversations", {"conversation_id": "c1", "turns": TWO_PEOPLE_AND_A_PROJECT}, format="json", **h)
    counts = mining.conversation_mine(conversation=Conversation.objects.get(owner=owner, external_id="c1"))
    assert counts["llm"] == "skipped_budget" and counts["drawers"] == 6 and counts["embedded"] == 6
    assert _chat_calls() == 0
    assert not UsageRecord.objects.filter(owner=owner, source="memory_extract", model="gpt-4o-mini").exists()
    room = Room.objects.get(owner=owner)
    assert (room.wing.name, room.wing.kind) == ("Efoil", "project")  # the offline extractor filed it
    # The outsider is under no budget: their mining still uses the LLM.
    api.post(
        "/api/v1/conversations",
        {"conversation_id": "o1", "turns": TWO_PEOPLE_AND_A_PROJECT},
        format="json",
        **personas.outsider.headers,
    )
    other = mining.conversation_mine(conversation=Conversation.objects.get(external_id="o1"))
    assert "llm" not in other and _chat_calls() == 1


def test_over_budget_recall_skips_the_rerank_and_says_so(
    api: APIClient, personas: Personas, use_providers: Any, stub_openai: str
) -> None:
    use_providers(OPENAI_BASE_URL=stub_openai, **LLM)
    owner = personas.owner.user
    mine(owner, "c1", [{"role": "user", "content": "A zeppelin is a rigid airship."}])
    mined_with = _chat_calls()  # mining used the LLM: the budget was not set yet
    _budget(owner, "0.00")  # no paid calls at all
    body = api.post(
        "/api/v1/recall", {"query": "zeppelin airship", "use_rerank": True}, format="json", **personas.owner.headers
    ).json()
    assert body["rerank"] == {"used": False, "reason": "budget_exceeded"}
    assert body["results"] and "zeppelin" in body["results"][0]["content"]
    assert _chat_calls() == mined_with and not UsageRecord.objects.filter(source="memory_rerank").exists()


def test_over_budget_episode_summaries_are_extractive_and_say_so(
    api: APIClient, personas: Personas, use_providers: Any, stub_openai: str
) -> None:
    use_providers(OPENAI_BASE_URL=stub_openai, **LLM)
    with override_settings(MEMORY_MONTHLY_BUDGET_USD=Decimal("0.10")):
        _spend(personas.owner.user, "0.10")
        body = _propose(api, personas.teammate.headers)  # the teammate's agent spends the same person's budget
        assert body["summarizer"] == "extractive (budget)"
        assert "Anna" in body["episode"]["summary"]
        assert _chat_calls() == 0
        # Raising the person's budget in the admin lifts it at once (nothing cached).
        _budget(personas.owner.user, "1.00")
        assert _propose(api, personas.owner.headers)["summarizer"] == "llm"


def test_paid_embeddings_over_budget_wait_for_the_backfill_until_the_budget_is_raised(
    api: APIClient, personas: Personas, use_providers: Any, stub_openai: str
) -> None:
    use_providers(
        EMBEDDING_PROVIDER="openai", EMBEDDING_MODEL="all-minilm", EMBEDDING_DIM=384, OPENAI_BASE_URL=stub_openai
    )
    owner = personas.owner.user
    _budget(owner, "1.00")
    _spend(owner, "1.25")
    h = personas.owner.headers
    created = api.post(
        "/api/v1/episodes", {"conversation_id": "c", "summary": "The zebra crossing."}, format="json", **h
    )
    assert created.status_code == 201 and created.json()["has_embedding"] is False
    assert _embedding_calls() == 0
    # Nothing lost: words still find it.
    hits = api.post("/api/v1/episodes/search", {"query": "zebra crossing"}, format="json", **h).json()["results"]
    assert [hit["episode"]["id"] for hit in hits] == [created.json()["id"]]
    # The outsider's row, stored while their embedder was down, is not starved by the owner's.
    outsider = personas.outsider
    now = timezone.now()
    Episode.objects.create(
        owner=outsider.user,
        agent=outsider.agent,
        conversation_id="o",
        summary="Outsider's row.",
        occurred_at=now,
        expires_at=now + timedelta(days=1),
    )

    counts = embedding_backfill()
    assert counts["owners_over_budget"] == 1 and counts["episodes"] == 1 and counts["failed"] == 0
    assert Episode.objects.get(pk=created.json()["id"]).embedding is None
    assert Episode.objects.get(owner=outsider.user).embedding is not None
    assert _embedding_calls() == 1  # the outsider's only

    _budget(owner, "2.00")  # the operator raises it
    counts = embedding_backfill()
    assert counts["episodes"] == 1 and counts["owners_over_budget"] == 0
    episode = Episode.objects.get(pk=created.json()["id"])
    assert episode.embedding is not None and episode.embedding_model == "all-minilm"


def test_the_local_embedder_is_never_held_back(api: APIClient, personas: Personas) -> None:
    _budget(personas.owner.user, "0.00")
    h = personas.owner.headers
    created = api.post("/api/v1/episodes", {"conversation_id": "c", "summary": "Local and free."}, format="json", **h)
    assert created.status_code == 201 and created.json()["has_embedding"] is True


def test_an_operator_sets_a_budget_in_the_admin(personas: Personas) -> None:
    owner = personas.owner.user
    row = MemorySettings.objects.get_or_create(user=owner)[0]
    operator = Client()
    operator.force_login(make_user("operator", superuser=True))
    form = {
        "user": owner.pk,
        "enabled": "on",
        "top_k": 5,
        "rerank_model": "",
        "embedding_model": "",
        "auto_mine": "on",
        "timezone": "UTC",
        "monthly_budget_usd": "12.50",
    }
    response = operator.post(f"/admin/accounts/memorysettings/{row.pk}/change/", form)
    assert response.status_code == 302, response.content
    assert budget_state(owner=owner)["limit"] == Decimal("12.50")
    listing = operator.get("/admin/accounts/memorysettings/").content.decode()
    assert "12.50" in listing
    # A negative budget is refused and leaves the stored one.
    refused = operator.post(f"/admin/accounts/memorysettings/{row.pk}/change/", {**form, "monthly_budget_usd": "-1"})
    assert refused.status_code == 200
    assert MemorySettings.objects.get(pk=row.pk).monthly_budget_usd == Decimal("12.50")
    # Empty goes back to the default.
    operator.post(f"/admin/accounts/memorysettings/{row.pk}/change/", {**form, "monthly_budget_usd": ""})
    assert MemorySettings.objects.get(pk=row.pk).monthly_budget_usd is None


def test_the_usage_partial_shows_the_persons_month_and_budget(personas: Personas) -> None:
    owner = personas.owner.user
    _budget(owner, "1.00")
    _spend(owner, "1.25")
    _spend(personas.outsider.user, "0.75")
    client = Client()
    client.force_login(owner)
    page = client.get("/settings/memory/usage").content.decode()
    assert "Extraction (mining)" in page and "1.2500" in page and "Over budget" in page and "<html" in page
    partial = client.get("/settings/memory/usage?month=2001-01", HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in partial and "No model calls in 2001-01" in partial
    assert "2001-02" in partial  # a link to the next month
    outsider = Client()
    outsider.force_login(personas.outsider.user)
    theirs = outsider.get("/settings/memory/usage?month=nonsense").content.decode()
    assert "0.7500" in theirs and "1.2500" not in theirs and "No monthly budget" in theirs
