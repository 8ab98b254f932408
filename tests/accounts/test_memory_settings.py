"""Settings → Memory over the API, and what pausing memory (or one agent's mining) does everywhere."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import Agent, MemorySettings
from accounts.services import MESSAGE_MEMORY_PAUSED, agent_overrides_update, agent_update
from episodic.models import ContextEntry, MemoryPool, ShortTermMemory
from ledger.models import WorkingMemorySnapshot
from palace.models import ActivityEvent, Conversation, Drawer, MiningJob, Relation
from palace.services import intake, jobs
from tests.conftest import Personas
from tests.episodic.factories import make_context, make_entry

pytestmark = pytest.mark.django_db

URL = "/api/v1/settings/memory"
TURNS: list[intake.TurnInput] = [
    {"role": "user", "content": "The garage door code is 4512, remember it."},
    {"role": "assistant", "content": "Noted: the garage door code."},
]


def _put(api: APIClient, headers: dict[str, Any], body: dict[str, Any]) -> Any:
    return api.put(URL, body, format="json", **headers)


def _settings(personas: Personas) -> MemorySettings:
    return MemorySettings.objects.get_or_create(user=personas.owner.user)[0]


def test_get_shows_the_settings_the_agents_and_the_models_whose_dimension_fits(
    api: APIClient, personas: Personas
) -> None:
    body = api.get(URL, **personas.owner.headers).json()
    assert body["enabled"] is True and body["top_k"] == 5 and body["timezone"] == "UTC"
    assert {a["agent_id"] for a in body["agents"]} == {str(personas.owner.agent.pk), str(personas.teammate.agent.pk)}
    assert all(a["recall_disabled"] is False and a["mining_paused"] is False for a in body["agents"])
    # The test column is 384-d: the local MiniLM and the 384-d OpenAI-compatible model, not 1536-d ones.
    assert "all-minilm" in body["embedding_models"]
    assert "text-embedding-3-small" not in body["embedding_models"]
    # The outsider sees only their own agent.
    outsider = api.get(URL, **personas.outsider.headers).json()
    assert [a["agent_id"] for a in outsider["agents"]] == [str(personas.outsider.agent.pk)]


def test_put_changes_only_the_fields_sent_and_logs_old_and_new_values(api: APIClient, personas: Personas) -> None:
    response = _put(api, personas.owner.headers, {"top_k": 9, "timezone": "Europe/Paris"})
    assert response.status_code == 200, response.json()
    assert response.json()["top_k"] == 9 and response.json()["auto_mine"] is True
    row = _settings(personas)
    assert (row.top_k, row.timezone, row.use_rerank) == (9, "Europe/Paris", False)
    event = ActivityEvent.objects.get(owner=personas.owner.user, kind="settings_changed")
    assert event.data["fields"] == ["timezone", "top_k"]
    assert event.data["changes"]["top_k"] == {"old": 5, "new": 9}
    # The outsider's settings are untouched.
    assert MemorySettings.objects.get_or_create(user=personas.outsider.user)[0].top_k == 5


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"top_k": 0}, "top_k"),
        ({"top_k": 51}, "top_k"),
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"embedding_model": "text-embedding-3-small"}, "embedding_model"),
        ({"enabled": "no"}, "enabled"),
        ({"top_k": 7, "colour": "blue"}, "colour"),
        ({"top_k": 7, "agents": [{"agent_id": "not-a-uuid"}]}, "agents"),
    ],
)
def test_an_invalid_value_is_a_400_and_nothing_is_saved(
    api: APIClient, personas: Personas, body: dict[str, Any], field: str
) -> None:
    response = _put(api, personas.owner.headers, {"auto_mine": False, **body})
    assert response.status_code == 400
    assert field in response.json()["extra"]["fields"]
    row = _settings(personas)
    assert (row.top_k, row.timezone, row.auto_mine, row.enabled) == (5, "UTC", True, True)
    assert not ActivityEvent.objects.filter(kind="settings_changed").exists()


def test_every_bad_field_is_named_in_one_answer(api: APIClient, personas: Personas) -> None:
    response = _put(api, personas.owner.headers, {"top_k": 0, "timezone": "Mars/Olympus", "bogus": 1})
    assert response.status_code == 400
    assert set(response.json()["extra"]["fields"]) == {"top_k", "timezone", "bogus"}


def test_an_offered_embedding_model_is_accepted(api: APIClient, personas: Personas) -> None:
    assert _put(api, personas.owner.headers, {"embedding_model": "all-minilm"}).status_code == 200
    assert _settings(personas).embedding_model == "all-minilm"


def test_an_agent_of_another_owner_is_a_404_and_nothing_is_saved(api: APIClient, personas: Personas) -> None:
    body = {"top_k": 8, "agents": [{"agent_id": str(personas.outsider.agent.pk), "recall_disabled": True}]}
    response = _put(api, personas.owner.headers, body)
    assert response.status_code == 404
    assert _settings(personas).top_k == 5
    assert Agent.objects.get(pk=personas.outsider.agent.pk).recall_disabled is False


def test_per_agent_overrides_are_set_and_shown(api: APIClient, personas: Personas) -> None:
    teammate = str(personas.teammate.agent.pk)
    body = {"agents": [{"agent_id": teammate, "recall_disabled": True, "mining_paused": True}]}
    response = _put(api, personas.owner.headers, body)
    assert response.status_code == 200
    shown = {a["agent_id"]: a for a in response.json()["agents"]}
    assert shown[teammate]["recall_disabled"] is True and shown[teammate]["mining_paused"] is True
    assert shown[str(personas.owner.agent.pk)]["recall_disabled"] is False
    agent = Agent.objects.get(pk=teammate)
    assert agent.recall_disabled and agent.mining_paused
    event = ActivityEvent.objects.get(kind="settings_changed")
    assert event.data["agent_id"] == teammate and event.data["fields"] == ["mining_paused", "recall_disabled"]
    # The teammate's own recall is off now (its cached key sees the change at once).
    answer = api.post("/api/v1/recall", {"query": "garage"}, format="json", **personas.teammate.headers).json()
    assert answer["skipped"] == "recall_disabled"


def test_pause_refuses_new_memory_and_empties_recall_and_context(api: APIClient, personas: Personas) -> None:
    h = personas.owner.headers
    assert _put(api, h, {"enabled": False}).status_code == 200
    posted = api.post("/api/v1/conversations", {"conversation_id": "c1", "turns": TURNS}, format="json", **h)
    assert posted.status_code == 409
    assert posted.json() == {"message": MESSAGE_MEMORY_PAUSED, "extra": {"reason": "memory_paused", "stored": False}}
    assert not Conversation.objects.exists()
    recalled = api.post("/api/v1/recall", {"query": "garage code"}, format="json", **h).json()
    assert (recalled["results"], recalled["skipped"]) == ([], "memory_disabled")
    context = api.post("/api/v1/context", {"query": "garage code"}, format="json", **h).json()
    assert context["skipped"] == "memory_disabled"
    typed = api.post("/api/v1/memories/typed/semantic", {"content": "a fact"}, format="json", **h)
    episode = api.post("/api/v1/episodes", {"conversation_id": "c1", "summary": "a day"}, format="json", **h)
    assert typed.status_code == episode.status_code == 409
    pool = api.post("/api/v1/pools", {"pool_id": "paused-pool", "data": {"ssn": "123-45-6789"}}, format="json", **h)
    assert pool.status_code == 409 and not MemoryPool.objects.exists()  # a new pool keeps something new too
    # The outsider's memory is not paused.
    outsider = api.post(
        "/api/v1/conversations", {"conversation_id": "c1", "turns": TURNS}, format="json", **personas.outsider.headers
    )
    assert outsider.status_code == 202


def test_a_paused_owner_is_not_mined_until_memory_is_back_on(personas: Personas) -> None:
    owner = personas.owner.user
    job = intake.conversation_create(owner=owner, agent=personas.owner.agent, external_id="c1", turns=TURNS)
    MiningJob.objects.filter(pk=job.pk).update(ready=True)
    MemorySettings.objects.filter(user=owner).update(enabled=False)
    assert jobs.job_run(job_id=job.pk) is None
    job.refresh_from_db()
    assert (job.status, job.enqueued_at) == (MiningJob.Status.QUEUED, None)
    assert not Drawer.objects.exists()
    # The outbox leaves it alone while paused.
    MiningJob.objects.filter(pk=job.pk).update(requested_at=job.requested_at.replace(year=2020))
    assert jobs.outbox_requeue()["sent"] == 0
    MemorySettings.objects.filter(user=owner).update(enabled=True)
    assert jobs.job_run(job_id=job.pk) is not None
    assert Drawer.objects.filter(owner=owner).count() == 2


def test_a_paused_agent_s_conversations_are_stored_but_not_mined_until_resumed(
    personas: Personas, django_capture_on_commit_callbacks: Any
) -> None:
    owner = personas.owner.user
    agent_update(agent=personas.teammate.agent, config={"mining_paused": True})
    paused = intake.conversation_create(
        owner=owner, agent=personas.teammate.agent, external_id="paused", turns=TURNS, complete=True
    )
    other = intake.conversation_create(
        owner=owner, agent=personas.owner.agent, external_id="other", turns=TURNS, complete=True
    )
    assert Conversation.objects.filter(external_id="paused").exists()
    assert jobs.job_run(job_id=paused.pk) is None
    # Another agent's job of the same owner runs, and does not batch the paused one in.
    assert jobs.job_run(job_id=other.pk) is not None
    assert list(Drawer.objects.values_list("conversation__external_id", flat=True).distinct()) == ["other"]
    # Resuming sends the held job (on commit) and it mines.
    with django_capture_on_commit_callbacks() as sent:
        agent_overrides_update(
            owner=owner, overrides=[{"agent_id": personas.teammate.agent.pk, "mining_paused": False}]
        )
    assert [c.keywords for c in sent if getattr(c, "func", None) is jobs.job_send] == [{"job_id": paused.pk}]
    assert jobs.job_run(job_id=paused.pk) is not None
    assert Drawer.objects.filter(conversation__external_id="paused").count() == 2


def test_pause_refuses_what_would_be_kept_and_leaves_the_live_working_memory(
    api: APIClient, personas: Personas
) -> None:
    h = personas.owner.headers
    context = make_context(personas.owner)
    entry = make_entry(personas.owner, context, "The deadline is May 1.")
    assert api.post("/api/v1/pools", {"pool_id": "plan"}, format="json", **h).status_code == 201
    assert api.put("/api/v1/working-memory/live", {"fields": {"step": 1}}, format="json", **h).status_code == 200
    assert _put(api, h, {"enabled": False}).status_code == 200
    refused = [
        api.post("/api/v1/working-memory/live/persist", **h),
        api.put("/api/v1/short-term/live/note", {"value": "x"}, format="json", **h),
        api.post(f"/api/v1/contexts/{context.pk}/entries", {"content": "a fact"}, format="json", **h),
        api.post("/api/v1/tiers/write", {"key": "k", "value": "v"}, format="json", **h),
        api.patch(f"/api/v1/contexts/{context.pk}/entries/{entry.pk}", {"content": "May 8."}, format="json", **h),
        api.put("/api/v1/pools/plan", {"data": {"goal": "x"}}, format="json", **h),
        api.patch("/api/v1/pools/plan", {"data": {"goal": "y"}}, format="json", **h),
        api.post(
            "/api/v1/kg/relations", {"subject": "Alice", "predicate": "works_at", "object": "Acme"}, format="json", **h
        ),
    ]
    assert [r.status_code for r in refused] == [409] * len(refused), [r.content for r in refused]
    assert all(r.json()["extra"]["reason"] == "memory_paused" for r in refused)
    assert not WorkingMemorySnapshot.objects.exists() and not ShortTermMemory.objects.exists()
    assert list(ContextEntry.objects.values_list("content", flat=True)) == ["The deadline is May 1."]
    assert not Relation.objects.exists()
    # The conversation in progress keeps its scratch state (Redis, expiring): an agent mid-task does not break.
    assert api.put("/api/v1/working-memory/live", {"fields": {"step": 2}}, format="json", **h).status_code == 200
    assert _put(api, h, {"enabled": True}).status_code == 200
    assert api.post("/api/v1/working-memory/live/persist", **h).status_code == 200
